# Script mode (cmake -P), run at every build: writes OUTPUT, a header with the commit the source
# tree is at, only when it changed, so that a build at the same commit recompiles nothing.
#   -DSOURCE_DIR=<tree> -DOUTPUT=<header> [-DCOMMIT=<text>]
# COMMIT, when given (COLOSSALAI_COMMIT at configure time), wins: a build from a tarball or by a
# distribution names its own. Without git, or outside a checkout of this tree, it says so.
if(NOT COMMIT)
    find_program(git_program git)
    if(git_program)
        # The tree must be the checkout's top, not a directory inside some other repository.
        execute_process(COMMAND "${git_program}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                        OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE
                        RESULT_VARIABLE top_result ERROR_QUIET)
        file(REAL_PATH "${SOURCE_DIR}" source_real)
        if(top_result EQUAL 0 AND top)
            file(REAL_PATH "${top}" top_real)
        endif()
        if(top_result EQUAL 0 AND top_real STREQUAL source_real)
            execute_process(COMMAND "${git_program}" -C "${SOURCE_DIR}" describe --always --dirty
                                    --abbrev=12
                            OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                            RESULT_VARIABLE describe_result ERROR_QUIET)
            if(NOT describe_result EQUAL 0)
                set(COMMIT "")
            endif()
        endif()
    endif()
endif()
if(NOT COMMIT)
    set(COMMIT "unknown (not built from a git checkout)")
endif()
string(REPLACE "\\" "\\\\" COMMIT "${COMMIT}")
string(REPLACE "\"" "\\\"" COMMIT "${COMMIT}")
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT [=[
#pragma once

// Generated at build time by cmake/BuildCommit.cmake.

namespace colossalai::config {

inline constexpr const char* commit = "@COMMIT@";

} // namespace colossalai::config
]=] @ONLY)
