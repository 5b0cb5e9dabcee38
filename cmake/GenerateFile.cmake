# Script mode (cmake -P), at build time: writes OUTPUT from what `colossalai --generate=NAME`
# prints, so that man pages and completions come from the program's own command line.
#   -DBINARY=<colossalai> -DNAME=<colossalai-run.1 | completion-table> -DOUTPUT=<file>
#   [-DTEMPLATE=<file> -DQUOTING=<sh | fish>]
# With TEMPLATE, the output is the template with its line `@COLOSSALAI_COMPLETION_TABLE@`
# replaced by the printed text as one single-quoted string of that shell.
execute_process(COMMAND "${BINARY}" "--generate=${NAME}" OUTPUT_VARIABLE text
                RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "${BINARY} --generate=${NAME} failed (${result}): ${errors}")
endif()
if(TEMPLATE)
    if(QUOTING STREQUAL "fish")
        string(REPLACE "\\" "\\\\" text "${text}")
        string(REPLACE "'" "\\'" text "${text}")
    else()
        string(REPLACE "'" "'\\''" text "${text}")
    endif()
    file(READ "${TEMPLATE}" template)
    string(FIND "${template}" "@COLOSSALAI_COMPLETION_TABLE@" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "${TEMPLATE} lacks @COLOSSALAI_COMPLETION_TABLE@")
    endif()
    string(REPLACE "@COLOSSALAI_COMPLETION_TABLE@" "'${text}'" text "${template}")
endif()
get_filename_component(directory "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${directory}")
file(WRITE "${OUTPUT}.tmp" "${text}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
