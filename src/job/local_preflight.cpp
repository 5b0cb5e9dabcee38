#include "colossalai/job/local_preflight.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/strings.hpp"

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iterator>
#include <system_error>

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

// As the node wrapper's shell: `nvidia-smi -L` from the node's PATH, else the driver's entries.
GpuShortage count_gpus(const std::vector<std::string>& environment) {
    std::string smi = exec::resolve_executable("nvidia-smi", environment);
    if (!smi.empty()) {
        // A hung nvidia-smi (a driver stuck on a lost GPU) costs the launch at most this long.
        constexpr std::chrono::seconds limit{30};
        exec::CaptureResult result = exec::capture({smi, "-L"}, limit, environment);
        if (!result.started || result.timed_out || result.signal != 0) {
            return {{}, std::nullopt, GpuProbe::nvidia_smi};
        }
        return {{}, count_gpu_lines(result.output), GpuProbe::nvidia_smi};
    }
    std::error_code error;
    std::filesystem::directory_iterator entries("/proc/driver/nvidia/gpus", error);
    if (error) {
        return {{}, 0, GpuProbe::none};
    }
    auto count = std::distance(begin(entries), end(entries));
    return {{}, static_cast<int>(count), GpuProbe::driver_proc};
}

} // namespace

int count_gpu_lines(std::string_view nvidia_smi_list) {
    int count = 0;
    for (std::string_view line : util::split_lines(nvidia_smi_list)) {
        count += line.starts_with("GPU ") ? 1 : 0;
    }
    return count;
}

std::optional<PreflightFailure> local_preflight(const NodeCommand& command,
                                                const std::vector<std::string>& environment) {
    if (!is_directory(command.working_directory)) {
        return PreflightFailure{PreflightCheck::working_directory, command.working_directory};
    }
    if (!command.argv.empty() && exec::resolve_executable(command.argv[0], environment).empty()) {
        return PreflightFailure{PreflightCheck::command, command.argv[0]};
    }
    if (command.preflight.script &&
        ::access(
            (std::filesystem::path(command.working_directory) / *command.preflight.script).c_str(),
            R_OK) != 0) {
        return PreflightFailure{PreflightCheck::script, *command.preflight.script};
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
    if (!std::holds_alternative<NoGpus>(command.preflight.gpus)) {
        GpuShortage found = count_gpus(environment);
        if (!found.found || !gpus_suffice(command.preflight.gpus, *found.found)) {
            found.needed = command.preflight.gpus;
            return PreflightFailure{PreflightCheck::gpus, "", std::move(found)};
        }
    }
    return std::nullopt;
}

} // namespace colossalai::job
