#include "colossalai/job/preflight.hpp"

#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::job {

std::string describe(const PreflightFailure& failure) {
    std::string subject = util::escape_for_message(failure.subject);
    switch (failure.check) {
    case PreflightCheck::working_directory:
        return fmt::format("no working directory '{}' (the launcher's current directory must "
                           "exist on every node: a shared file system, or cd to a path that "
                           "does)",
                           subject);
    case PreflightCheck::command:
        return fmt::format("cannot find '{}' (on the node's PATH; give a Python that has PyTorch "
                           "with --python PATH, or set the node's PATH with -x PATH=...)",
                           subject);
    case PreflightCheck::master_address:
        return fmt::format("cannot resolve master address '{}' (set --master_addr to an address "
                           "every node can reach)",
                           subject);
    case PreflightCheck::network_interface:
        return fmt::format("no network interface '{}' (see 'ip -br link' on the node; "
                           "--network-interface names must exist on every node)",
                           subject);
    }
    return subject;
}

} // namespace colossalai::job
