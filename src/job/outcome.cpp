#include "colossalai/job/outcome.hpp"

#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

namespace colossalai::job {

std::string describe(const Outcome& outcome, bool stopped) {
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
    if (stopped) {
        text += ", stopped by the launcher";
    }
    return text;
}

} // namespace colossalai::job
