#include "colossalai/job/outcome.hpp"

#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

namespace colossalai::job {

std::string describe(const Outcome& outcome, std::span<const int> delivered) {
    std::string text;
    switch (outcome.kind()) {
    case Outcome::Kind::exited:
        text = fmt::format("exit code {}", outcome.code());
        break;
    case Outcome::Kind::killed:
        text = "killed by " + util::signal_name(outcome.signal());
        break;
    case Outcome::Kind::not_started:
        text = outcome.reason().empty() ? "not started" : "not started: " + outcome.reason();
        break;
    case Outcome::Kind::cannot_run:
    case Outcome::Kind::connect_failed:
    case Outcome::Kind::connection_lost:
    case Outcome::Kind::abandoned:
        text = outcome.reason();
        break;
    }
    if (delivered.empty()) {
        return text;
    }
    // What the job got, when that was not what it died of: a job that ran (an error kind says
    // its own story, a job not started got nothing).
    if (outcome.kind() == Outcome::Kind::exited || outcome.kind() == Outcome::Kind::killed) {
        std::string got;
        for (int signo : delivered) {
            if (outcome.kind() != Outcome::Kind::killed || signo != outcome.signal()) {
                got += (got.empty() ? " after " : " and ") + util::signal_name(signo);
            }
        }
        text += got;
    }
    return text + ", stopped by the launcher";
}

} // namespace colossalai::job
