#pragma once

#include <string>

namespace colossalai::ssh {

// The version of the libssh that SSH connections use ("0.10.6"), loading it if it is not yet
// loaded. Throws colossalai::Error, saying which package to install, when it cannot be loaded
// or is too old.
std::string library_version();

} // namespace colossalai::ssh
