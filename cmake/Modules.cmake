# A module is one directory: src/<name>/*.cpp with headers in include/colossalai/<name>/.
# It becomes the static library colossalai_<name>; DEPENDS names other modules or alias targets.
function(colossalai_module name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS;PRIVATE_DEPENDS")
    file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${name}/*.cpp")
    add_library(colossalai_${name} STATIC ${sources})
    target_include_directories(colossalai_${name} PUBLIC "${PROJECT_SOURCE_DIR}/include"
                                                         "${PROJECT_BINARY_DIR}/include")
    target_link_libraries(colossalai_${name} PUBLIC ${ARG_DEPENDS}
                          PRIVATE ${ARG_PRIVATE_DEPENDS} colossalai_compile_options)
endfunction()

# One GoogleTest executable per module from tests/unit/<name>/*_test.cpp, labelled `unit`.
function(colossalai_unit_tests name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS")
    file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/unit/${name}/*_test.cpp")
    if(NOT sources)
        return()
    endif()
    add_executable(unit_${name} ${sources})
    target_link_libraries(unit_${name} PRIVATE colossalai_${name} ${ARG_DEPENDS} colossalai::gtest
                                               colossalai_compile_options)
    gtest_discover_tests(unit_${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()
