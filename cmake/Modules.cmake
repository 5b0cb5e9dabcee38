# A module is one directory: src/<name>/*.cpp with headers in include/colossalai/<name>/.
# It becomes the static library colossalai_<name>; DEPENDS names other modules or alias targets.
# Modules are declared in dependency order: a module may only depend on modules declared before
# it (checked here), and its sources may only include the headers of itself and of the modules it
# depends on, directly or not (checked by the `ModuleGraph.IncludesPointDown` test, which reads
# the graph this function records).
function(colossalai_module name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS;PRIVATE_DEPENDS")
    get_property(declared GLOBAL PROPERTY COLOSSALAI_MODULES)
    set(reachable ${name})
    foreach(dependency IN LISTS ARG_DEPENDS ARG_PRIVATE_DEPENDS)
        if(NOT dependency MATCHES "^colossalai_(.+)$")
            continue() # an external library (colossalai::fmt, ...)
        endif()
        set(module ${CMAKE_MATCH_1})
        if(NOT module IN_LIST declared)
            message(FATAL_ERROR "module ${name} depends on ${module}, which is not declared before "
                                "it: dependencies only point down the module list")
        endif()
        get_property(below GLOBAL PROPERTY COLOSSALAI_MODULE_${module}_REACHABLE)
        list(APPEND reachable ${below})
    endforeach()
    list(REMOVE_DUPLICATES reachable)
    set_property(GLOBAL APPEND PROPERTY COLOSSALAI_MODULES ${name})
    set_property(GLOBAL PROPERTY COLOSSALAI_MODULE_${name}_REACHABLE ${reachable})
    set_property(GLOBAL APPEND_STRING PROPERTY COLOSSALAI_MODULE_GRAPH
                 "set(reachable_${name} \"${reachable}\")\n")
    file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${name}/*.cpp")
    add_library(colossalai_${name} STATIC ${sources})
    # A module's files compile together in batches (docs/developing.md, "unity build"): its
    # file-local helpers must have names of their own, or be shared from a header.
    set_target_properties(colossalai_${name} PROPERTIES UNITY_BUILD ${COLOSSALAI_UNITY})
    target_include_directories(colossalai_${name} PUBLIC "${PROJECT_SOURCE_DIR}/include"
                                                         "${PROJECT_BINARY_DIR}/include")
    target_link_libraries(colossalai_${name} PUBLIC ${ARG_DEPENDS}
                          PRIVATE ${ARG_PRIVATE_DEPENDS} colossalai_compile_options
                                  colossalai_fuzz_coverage)
endfunction()

# One GoogleTest executable per module from tests/unit/<name>/*_test.cpp, labelled `unit`, with
# the helpers any test may use (colossalai_test_common, tests/common) and nothing of the
# end-to-end tests' support.
function(colossalai_unit_tests name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS")
    file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/unit/${name}/*_test.cpp")
    if(NOT sources)
        return()
    endif()
    add_executable(unit_${name} ${sources})
    target_link_libraries(unit_${name} PRIVATE colossalai_${name} ${ARG_DEPENDS}
                                               colossalai_test_common colossalai::gtest
                                               colossalai_compile_options)
    colossalai_test_code(unit_${name}) # -O1, the precompiled header: tests/CMakeLists.txt
    gtest_discover_tests(unit_${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
    colossalai_test_label_target(unit_${name} unit) # tests_unit: tests/CMakeLists.txt
endfunction()

# Writes the module graph recorded by colossalai_module() for cmake/CheckIncludes.cmake.
function(colossalai_write_module_graph file)
    get_property(modules GLOBAL PROPERTY COLOSSALAI_MODULES)
    get_property(graph GLOBAL PROPERTY COLOSSALAI_MODULE_GRAPH)
    file(WRITE "${file}" "set(modules \"${modules}\")\n${graph}")
endfunction()
