#include "colossalai/ssh/ssh_transport.hpp"

#include "attempt.hpp"
#include "libssh.hpp"
#include "libssh_channel.hpp"

#include "colossalai/ssh/remote_command.hpp"

namespace colossalai::ssh {

SshTransport::SshTransport(SshSettings settings)
    : m_settings(settings), m_pool(settings.max_connecting) {
    lib::load(); // here, on the launcher's thread, before any worker runs
}

SshTransport::~SshTransport() = default;

std::unique_ptr<job::Process> SshTransport::start(const job::NodeCommand& command,
                                                  output::NodeOutput& output) {
    auto attempt = std::make_shared<Attempt>();
    m_pool.submit([attempt, node = command, connect = m_settings.connect,
                   input = wrapper_input(command, m_settings.kill_grace, m_settings.silence_limit,
                                         ExitLine::omitted, m_settings.rendezvous)] {
        attempt->connect(node, connect, input);
    });
    return make_libssh_session(std::move(attempt), command, output, m_settings, m_timings);
}

std::string SshTransport::timing_report() const {
    return render_timing(m_timings, m_created);
}

} // namespace colossalai::ssh
