#include "colossalai/launch/local_preflight.hpp"

#include "colossalai/exec/local_transport.hpp"
#include "colossalai/exec/spawn.hpp"

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>

namespace colossalai::launch {

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

std::optional<run::PreflightFailure> local_preflight(const run::NodeCommand& command,
                                                     const std::vector<std::string>& environment) {
    using run::PreflightCheck;
    if (!is_directory(command.working_directory)) {
        return run::PreflightFailure{PreflightCheck::working_directory, command.working_directory};
    }
    if (!command.argv.empty() && exec::resolve_executable(command.argv[0], environment).empty()) {
        return run::PreflightFailure{PreflightCheck::command, command.argv[0]};
    }
    const std::string& master = command.preflight.master_address;
    if (!master.empty() && !resolves(master)) {
        return run::PreflightFailure{PreflightCheck::master_address, master};
    }
    for (const std::string& name : command.preflight.interfaces) {
        if (::if_nametoindex(name.c_str()) == 0) {
            return run::PreflightFailure{PreflightCheck::network_interface, name};
        }
    }
    return std::nullopt;
}

std::unique_ptr<Process> LocalPreflightTransport::start(const run::NodeCommand& command,
                                                        output::NodeOutput& output) {
    const char* path = std::getenv("PATH");
    std::vector<std::string> environment;
    if (path != nullptr) {
        environment.push_back(std::string("PATH=") + path);
    }
    if (std::optional<run::PreflightFailure> failure = local_preflight(command, environment)) {
        return exec::failed_process(run::preflight_exit_status, run::describe(*failure));
    }
    return m_local.start(command, output);
}

} // namespace colossalai::launch
