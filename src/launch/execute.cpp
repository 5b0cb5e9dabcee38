#include "colossalai/launch/execute.hpp"

#include "colossalai/exec/local_transport.hpp"
#include "colossalai/exec/signals.hpp"
#include "colossalai/launch/launcher.hpp"
#include "colossalai/util/error.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace colossalai::launch {

namespace {

std::chrono::milliseconds to_ms(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000.0)));
}

} // namespace

int execute(const run::Plan& plan, const run::Options& options) {
    bool remote = std::any_of(plan.nodes.begin(), plan.nodes.end(),
                              [](const run::NodeCommand& node) { return !node.local; });
    if (remote) {
        throw runtime_error("remote nodes need the SSH transport, which is not built yet");
    }
    output::FdWriter messages(STDERR_FILENO);
    for (const std::string& warning : plan.warnings) {
        messages.write(fmt::format("colossalai: warning: {}\n", warning));
    }

    // Blocked before any thread exists, so that every thread inherits the mask.
    exec::SignalChannel signals;
    Settings settings;
    settings.kill_grace = to_ms(options.kill_grace);
    exec::LocalTransport local(settings.kill_grace);
    output::Multiplexer output({STDOUT_FILENO, STDERR_FILENO, plan.nodes.size() > 1});
    SignalSource source{signals.fd(), [&signals] { return signals.take(); }};
    auto transport_for = [&](const run::NodeCommand&) -> Transport& { return local; };

    LaunchResult result = run_nodes(plan.nodes, transport_for, output, source, messages, settings);
    messages.write(render_summary(result.outcomes));
    return result.exit_code;
}

} // namespace colossalai::launch
