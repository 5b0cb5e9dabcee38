# `cmake --install build [--prefix P]` (DESTDIR honoured) and the Debian package (`cpack` in the
# build tree, or the `package` target): the binary, stripped; the generated man pages and
# completions (cmake/Generated.cmake) where man, bash-completion, zsh and fish look; the license
# and the documentation. docs/install.md describes both.
include(GNUInstallDirs)

option(COLOSSALAI_INSTALL_STRIP "Strip the installed binary (cmake --install and the package)" ON)
if(COLOSSALAI_INSTALL_STRIP)
    # The installed copy is stripped even without `cmake --install --strip`, also from a build
    # with debug information (-DCMAKE_BUILD_TYPE=RelWithDebInfo, about 100 MB) or a Release
    # build's symbol table. install(TARGETS) strips when this is set while the install script
    # runs.
    install(CODE "set(CMAKE_INSTALL_DO_STRIP TRUE)")
endif()
install(TARGETS colossalai RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(FILES ${COLOSSALAI_MAN_PAGES} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${COLOSSALAI_BASH_COMPLETION}"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
# zsh searches /usr/local/share/zsh/site-functions, but under /usr (a package) Debian's zsh only
# searches vendor-completions. Decided when installing: `--prefix` may change the prefix then.
install(CODE [[
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(colossalai_zsh_completion_dir "share/zsh/vendor-completions")
else()
    set(colossalai_zsh_completion_dir "share/zsh/site-functions")
endif()
]])
install(FILES "${COLOSSALAI_ZSH_COMPLETION}" DESTINATION "\${colossalai_zsh_completion_dir}")
install(FILES "${COLOSSALAI_FISH_COMPLETION}"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d")
install(FILES LICENSE README.md docs/check.md docs/run.md docs/install.md docs/design.md
              docs/reliability.md packaging/copyright "${COLOSSALAI_CHANGELOG}"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# The Debian package: colossalai_<version>_amd64.deb.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "colossalai")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "colossalai-cpp maintainers <colossalai-cpp@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "native Colossal-AI command line: check and run")
# One string (several would be a list, joined with ';'), lines under 80 columns.
set(CPACK_PACKAGE_DESCRIPTION "\
A single native executable that replaces the Python command of Colossal-AI.
'colossalai check -i' reports whether PyTorch, CUDA, the Colossal-AI
extensions and the driver of a GPU machine are compatible; 'colossalai run'
starts torchrun on every node of a job, over SSH for the other machines,
streams their output and ends the job cleanly everywhere.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/hpcaitech/ColossalAI")
# libc from the binary's ELF dependencies (dpkg-shlibdeps); libssh by hand: it is dlopen()ed
# (src/ssh/libssh.hpp), so no tool can see it. The package of the SONAME found at build time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${libssh_package} (>= 0.10.3)")
include(CPack)
