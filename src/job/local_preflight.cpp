#include "colossalai/job/local_preflight.hpp"

#include "colossalai/exec/spawn.hpp"

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>

namespace colossalai::job {

namespace {

bool is_directory(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool resolves(const std::string& address) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int rc = ::getaddrinfo(address.c_str(), nullptr, &hints, &found);
    if (found != nullptr) {
        ::freeaddrinfo(found);
    }
    return rc == 0;
}

} // namespace

std::optional<PreflightFailure> local_preflight(const NodeCommand& command,
                                                const std::vector<std::string>& environment) {
    if (!is_directory(command.working_directory)) {
        return PreflightFailure{PreflightCheck::working_directory, command.working_directory};
    }
    if (!command.argv.empty() && exec::resolve_executable(command.argv[0], environment).empty()) {
        return PreflightFailure{PreflightCheck::command, command.argv[0]};
    }
    const std::string& master = command.preflight.master_address;
    if (!master.empty() && !resolves(master)) {
        return PreflightFailure{PreflightCheck::master_address, master};
    }
    for (const std::string& name : command.preflight.interfaces) {
        if (::if_nametoindex(name.c_str()) == 0) {
            return PreflightFailure{PreflightCheck::network_interface, name};
        }
    }
    return std::nullopt;
}

} // namespace colossalai::job
