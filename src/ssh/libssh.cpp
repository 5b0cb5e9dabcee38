#include "libssh.hpp"

#include "colossalai/util/error.hpp"

#include <dlfcn.h>

namespace colossalai::ssh::lib {

#define COLOSSALAI_LIBSSH_DEFINE(name) decltype(&::name) name = nullptr;
COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_LIBSSH_DEFINE)
#undef COLOSSALAI_LIBSSH_DEFINE

namespace {

// The 0.10 releases before 0.10.3 can loop forever in their known_hosts checks.
constexpr int minimum_version = SSH_VERSION_INT(0, 10, 3);

} // namespace

void load() {
    static void* handle = nullptr;
    if (handle != nullptr) {
        return;
    }
    void* library = ::dlopen(COLOSSALAI_LIBSSH_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        throw fatal_error("SSH needs libssh ({}), which cannot be loaded: {} (install the "
                          "package {})",
                          COLOSSALAI_LIBSSH_SONAME, ::dlerror(), COLOSSALAI_LIBSSH_PACKAGE);
    }
    std::string missing;
#define COLOSSALAI_LIBSSH_RESOLVE(name)                                                            \
    name = reinterpret_cast<decltype(name)>(::dlsym(library, #name));                              \
    if (name == nullptr) {                                                                         \
        missing = #name;                                                                           \
    }
    COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_LIBSSH_RESOLVE)
#undef COLOSSALAI_LIBSSH_RESOLVE
    if (!missing.empty()) {
        throw fatal_error("{} lacks the function {}", COLOSSALAI_LIBSSH_SONAME, missing);
    }
    if (ssh_version(minimum_version) == nullptr) {
        throw fatal_error("libssh {} is too old: 0.10.3 or newer is needed (upgrade the "
                          "package {})",
                          ssh_version(0), COLOSSALAI_LIBSSH_PACKAGE);
    }
    handle = library;
}

} // namespace colossalai::ssh::lib
