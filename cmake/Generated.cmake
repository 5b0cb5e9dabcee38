# What is generated from the built binary's own command line (`colossalai --generate=NAME`,
# src/cli/reference.hpp): the man pages and the shell completions, laid out under build/share/
# as they are installed, so that they can never drift from --help.
set(COLOSSALAI_GENERATED_DIR "${PROJECT_BINARY_DIR}/share")
find_program(COLOSSALAI_GZIP gzip REQUIRED)

set(generated_files "")
set(COLOSSALAI_MAN_PAGES "")
foreach(page colossalai colossalai-check colossalai-run)
    set(page_file "${COLOSSALAI_GENERATED_DIR}/man/man1/${page}.1")
    # gzip -n: no name or time stamp in the file (a reproducible package).
    add_custom_command(OUTPUT "${page_file}" "${page_file}.gz"
        COMMAND "${CMAKE_COMMAND}" "-DBINARY=$<TARGET_FILE:colossalai>" "-DNAME=${page}.1"
                "-DOUTPUT=${page_file}" -P "${PROJECT_SOURCE_DIR}/cmake/GenerateFile.cmake"
        COMMAND "${COLOSSALAI_GZIP}" -9nkf "${page_file}"
        DEPENDS colossalai "${PROJECT_SOURCE_DIR}/cmake/GenerateFile.cmake"
        COMMENT "Generating the man page ${page}(1)" VERBATIM)
    list(APPEND generated_files "${page_file}" "${page_file}.gz")
    list(APPEND COLOSSALAI_MAN_PAGES "${page_file}.gz")
endforeach()

# completions/<template> -> its place under share/, with the option table of the binary.
set(COLOSSALAI_BASH_COMPLETION "${COLOSSALAI_GENERATED_DIR}/bash-completion/completions/colossalai")
set(COLOSSALAI_ZSH_COMPLETION "${COLOSSALAI_GENERATED_DIR}/zsh/site-functions/_colossalai")
set(COLOSSALAI_FISH_COMPLETION
    "${COLOSSALAI_GENERATED_DIR}/fish/vendor_completions.d/colossalai.fish")
foreach(entry "colossalai.bash;sh;${COLOSSALAI_BASH_COMPLETION}"
              "_colossalai.zsh;sh;${COLOSSALAI_ZSH_COMPLETION}"
              "colossalai.fish;fish;${COLOSSALAI_FISH_COMPLETION}")
    list(GET entry 0 template)
    list(GET entry 1 quoting)
    list(GET entry 2 output)
    set(template "${PROJECT_SOURCE_DIR}/completions/${template}")
    add_custom_command(OUTPUT "${output}"
        COMMAND "${CMAKE_COMMAND}" "-DBINARY=$<TARGET_FILE:colossalai>" -DNAME=completion-table
                "-DTEMPLATE=${template}" "-DQUOTING=${quoting}" "-DOUTPUT=${output}"
                -P "${PROJECT_SOURCE_DIR}/cmake/GenerateFile.cmake"
        DEPENDS colossalai "${template}" "${PROJECT_SOURCE_DIR}/cmake/GenerateFile.cmake"
        COMMENT "Generating ${output}" VERBATIM)
    list(APPEND generated_files "${output}")
endforeach()

# The changelog, in Debian's format (lintian wants it in a package), of this version.
configure_file("${PROJECT_SOURCE_DIR}/packaging/changelog.in"
               "${COLOSSALAI_GENERATED_DIR}/doc/changelog" @ONLY)
set(COLOSSALAI_CHANGELOG "${COLOSSALAI_GENERATED_DIR}/doc/changelog.gz")
add_custom_command(OUTPUT "${COLOSSALAI_CHANGELOG}"
    COMMAND "${COLOSSALAI_GZIP}" -9nkf "${COLOSSALAI_GENERATED_DIR}/doc/changelog"
    DEPENDS "${PROJECT_SOURCE_DIR}/packaging/changelog.in" VERBATIM)
list(APPEND generated_files "${COLOSSALAI_CHANGELOG}")

add_custom_target(colossalai_generated ALL DEPENDS ${generated_files})
