#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/step/step.hpp"

namespace colossalai::step {

Step::Settings local_launcher_settings(std::vector<std::string> argv, std::string name,
                                       const std::vector<job::NodeCommand>& nodes,
                                       const std::vector<std::string>& launcher_environment,
                                       std::chrono::milliseconds kill_grace,
                                       std::function<void(std::string_view)> notice, Spawn spawn) {
    Step::Settings settings;
    settings.launcher.argv = std::move(argv);
    settings.launcher_name = std::move(name);
    const job::NodeCommand& first = nodes.at(0);
    settings.launcher.working_directory = first.working_directory;
    settings.launcher.environment = job::with_flag_environment(
        job::local_environment(launcher_environment, first.environment_changes, true),
        first.flag_environment);
    settings.tasks = nodes.size();
    settings.notice = std::move(notice);
    settings.spawn =
        spawn ? std::move(spawn)
              : Spawn([kill_grace](const exec::SpawnRequest& request, output::NodeOutput& output) {
                    return job::start_local_job(request, output, kill_grace);
                });
    return settings;
}

} // namespace colossalai::step
