# Warnings and sanitizers for every target of the project (not for imported ones).
add_library(colossalai_compile_options INTERFACE)
target_compile_options(colossalai_compile_options INTERFACE -Wall -Wextra -Wpedantic)
if(COLOSSALAI_WERROR)
    target_compile_options(colossalai_compile_options INTERFACE -Werror)
endif()

if(COLOSSALAI_SANITIZE)
    # Applied globally so that GoogleTest's main and every module agree on the runtime.
    add_compile_options(-fsanitize=${COLOSSALAI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${COLOSSALAI_SANITIZE})
    # A report names the file and line of every frame: line tables (-g1) in a Release build too,
    # at a fraction of the compile and link time of full debug information (-g).
    add_compile_options($<$<CONFIG:Release>:-g1>)
    # -O1, the level the sanitizers' documentation recommends: it keeps them fast enough at run
    # time and compiles instrumented code in about 60% of the time of -O2 (planner.cpp: 8.7 s of
    # CPU instead of 14.9 under ASan + UBSan), and the sanitizer builds are CI's costliest step.
    # Later on the command line than the build type's -O2, so it wins.
    add_compile_options($<$<CONFIG:Release>:-O1>)
    if(COLOSSALAI_SANITIZE MATCHES "address")
        # Executables at a fixed address, not position-independent. An ASan + UBSan executable
        # holds some 400,000 pointers in its data (ASan's description of every global, UBSan's
        # source locations and type descriptors); in a PIE each is a relocation that the dynamic
        # loader applies, page by page, at every start, and the suite starts the binary and the
        # test executables thousands of times: a third of the CPU of each start (unit_run with no
        # test: 0.15 s -> 0.10 s). The code is the same code, instrumented the same way; shared
        # libraries (fake_libcuda) stay position-independent. ThreadSanitizer's executables hold
        # few such pointers and stay PIE.
        string(APPEND CMAKE_EXE_LINKER_FLAGS " -no-pie")
    endif()
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        # GCC's flow analysis is weaker under sanitizer instrumentation and then warns about
        # libstdc++ internals (std::function in <regex>, std::optional) that are initialised.
        target_compile_options(colossalai_compile_options INTERFACE -Wno-maybe-uninitialized)
    endif()
endif()

# libFuzzer's coverage for the code the fuzz targets reach (fuzz/): the modules and the targets
# link this, the tests do not. It is added to an AddressSanitizer + UBSan build, so that one
# build of src/ serves both the suite and the fuzz targets (CI builds it once, with clang,
# instead of once with GCC for the suite and again with clang for fuzzing).
add_library(colossalai_fuzz_coverage INTERFACE)
if(COLOSSALAI_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "COLOSSALAI_FUZZ needs clang (CC=clang CXX=clang++)")
    endif()
    if(NOT COLOSSALAI_SANITIZE STREQUAL "address,undefined")
        message(FATAL_ERROR "COLOSSALAI_FUZZ needs -DCOLOSSALAI_SANITIZE=address,undefined: "
                            "the sanitizers turn what the fuzz targets find into reports")
    endif()
    target_compile_options(colossalai_fuzz_coverage INTERFACE -fsanitize=fuzzer-no-link)
endif()
