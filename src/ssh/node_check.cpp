#include "colossalai/ssh/node_check.hpp"

#include "colossalai/ssh/remote_capture.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/ssh/worker_pool.hpp"

namespace colossalai::ssh {

namespace {

// Connections set up at once, as `colossalai run` does.
constexpr std::size_t max_checks_connecting = 32;

run::NodeReply check_one_node(const job::NodeCommand& node, const run::CheckRequest& request,
                              const ConnectSettings& settings,
                              std::chrono::milliseconds run_timeout) {
    run::NodeReply reply;
    try {
        RemoteOutput output = capture_remote(node, request.node_input, settings, run_timeout,
                                             request.max_answer_bytes);
        // Said only when the output holds no answer: its first line is a section's, so then
        // nothing of it ran.
        reply.error = login_shell_ran_nothing(output.user, output.out + output.err,
                                              output.exit_status, "the check");
        reply.output = std::move(output.out);
    } catch (const std::exception& error) {
        reply.error = error.what();
    }
    return reply;
}

} // namespace

std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request) {
    // Its own options of check (--ssh-port, --ssh-timeout), as given.
    const auto& given = std::get<run::SshLaunch::Given>(request.options.engine_options);
    ConnectSettings connect;
    connect.timeout = given.ssh_timeout.value_or(default_connect_timeout);
    // Python, nvcc and nvidia-smi twice, each within the probe timeout, plus the round trips.
    std::chrono::milliseconds run_timeout = 4 * request.probe_timeout + connect.timeout;

    load_library(); // before any worker thread uses libssh
    std::vector<run::NodeReply> replies(request.hosts.size());
    {
        WorkerPool pool(max_checks_connecting);
        for (std::size_t i = 0; i < request.hosts.size(); ++i) {
            job::NodeCommand node;
            node.host = request.hosts[i].name;
            node.user = request.hosts[i].user;
            node.address = request.hosts[i].address;
            if (given.ssh_port) {
                node.ssh_port = given.ssh_port->number;
            }
            pool.submit([&, i, node = std::move(node)] {
                run::NodeReply reply = check_one_node(node, request, connect, run_timeout);
                replies[i] = std::move(reply); // its own element: no other task touches it
            });
        }
        pool.wait_idle(); // every node answered (the pool's lock orders their writes before)
    }
    return replies;
}

} // namespace colossalai::ssh
