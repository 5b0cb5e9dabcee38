#include "colossalai/ssh/openssh_transport.hpp"

#include "openssh_channel.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/error.hpp"

#include <utility>

namespace colossalai::ssh {

using output::Stream;

OpenSshTransport::OpenSshTransport(SshSettings settings, std::vector<std::string> environment,
                                   std::string program)
    : m_settings(std::move(settings)), m_environment(std::move(environment)),
      m_program(std::move(program)) {}

std::unique_ptr<job::Process> OpenSshTransport::start(const job::NodeCommand& command,
                                                      output::NodeOutput& output) {
    ClientConfig config;
    try {
        ConfigTarget target{command.address, command.address};
        config = m_settings.connect.read_config(target);
        target.host = host_name_of(command.address, config);
        if (target.host != command.address) {
            config = m_settings.connect.read_config(target);
        }
    } catch (const Error&) {
        // A bad value in the ssh config: ssh itself reports it, with its file and line.
    }
    exec::SpawnRequest request;
    request.argv = openssh_command(m_program, command, m_settings, config);
    request.environment = m_environment;
    request.working_directory = command.working_directory;
    request.stdin_pipe = true;
    std::string input = wrapper_input(command, m_settings.kill_grace, m_settings.silence_limit,
                                      ExitLine::printed, m_settings.rendezvous);
    try {
        return make_openssh_session(exec::spawn_job(request), command, output, m_settings,
                                    std::move(input), m_timings);
    } catch (const Error& e) {
        output.close(Stream::out);
        output.close(Stream::err);
        return job::ended_process(job::Outcome::connect_failed(e.what()));
    }
}

std::string OpenSshTransport::timing_report() const {
    return render_timing(m_timings, m_created);
}

} // namespace colossalai::ssh
