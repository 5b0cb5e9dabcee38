#include "colossalai/ssh/library.hpp"

#include "libssh.hpp"

namespace colossalai::ssh {

std::string library_version() {
    lib::load();
    return lib::ssh_version(0);
}

} // namespace colossalai::ssh
