# Every third-party library comes from the system (Debian 12 packages) and is used through one
# alias target of ours, so that the rest of the build never names a package's own target.
find_package(CLI11 CONFIG REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
# libssh's package config defines a target named plainly `ssh`; without REQUIRED a missing
# package would silently turn into `-lssh`. 0.10.3 fixes endless loops in known_hosts checks.
find_package(libssh 0.10.3 CONFIG REQUIRED)
find_package(Threads REQUIRED)

add_library(colossalai::cli11 ALIAS CLI11::CLI11)
# fmt's implementation compiled once, into a static library of ours (third_party/fmt.cpp), from
# the package's headers: the binary needs no libfmt.so (one shared library fewer to load at every
# start, see docs/benchmarks.md), and no file compiles fmt's implementation again, as header-only
# fmt did in each of the 200 files that include it (docs/developing.md).
get_target_property(fmt_includes fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)
add_library(third_party_fmt STATIC "${PROJECT_SOURCE_DIR}/third_party/fmt.cpp")
target_include_directories(third_party_fmt SYSTEM PUBLIC ${fmt_includes})
add_library(colossalai::fmt ALIAS third_party_fmt)
add_library(colossalai::json ALIAS nlohmann_json::nlohmann_json)
add_library(colossalai::threads ALIAS Threads::Threads)
if(NOT TARGET ssh)
    message(FATAL_ERROR "libssh's CMake package did not define the target `ssh`")
endif()
# libssh is loaded at run time, only when a remote node needs it (src/ssh/libssh.hpp says why):
# the alias gives its headers and the SONAME to dlopen, and links only libdl.
get_target_property(libssh_soname ssh IMPORTED_SONAME_NONE)
if(NOT libssh_soname)
    get_target_property(libssh_soname ssh IMPORTED_SONAME_RELEASE)
endif()
if(NOT libssh_soname)
    set(libssh_soname "libssh.so.4")
endif()
get_target_property(libssh_includes ssh INTERFACE_INCLUDE_DIRECTORIES)
add_library(colossalai_libssh INTERFACE)
if(libssh_includes)
    target_include_directories(colossalai_libssh SYSTEM INTERFACE ${libssh_includes})
endif()
# The Debian package that ships that SONAME (libssh.so.4 -> libssh-4): what to install when it
# cannot be loaded, and what the .deb depends on (cmake/Package.cmake).
string(REGEX REPLACE "^lib(.+)\\.so\\.([0-9]+)$" "lib\\1-\\2" libssh_package "${libssh_soname}")
target_compile_definitions(colossalai_libssh INTERFACE COLOSSALAI_LIBSSH_SONAME="${libssh_soname}"
                                                       COLOSSALAI_LIBSSH_PACKAGE="${libssh_package}")
target_link_libraries(colossalai_libssh INTERFACE ${CMAKE_DL_LIBS})
add_library(colossalai::libssh ALIAS colossalai_libssh)

if(COLOSSALAI_BUILD_TESTS)
    find_package(GTest REQUIRED)
    add_library(colossalai_gtest INTERFACE)
    target_link_libraries(colossalai_gtest INTERFACE GTest::gtest GTest::gmock GTest::gtest_main)
    add_library(colossalai::gtest ALIAS colossalai_gtest)
endif()
