#include "colossalai/slurm/slurm_transport.hpp"

#include "step.hpp"

#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"

namespace colossalai::slurm {

namespace {

// One node's view of the step: every call goes to the Step with the node's rank.
class TaskProcess : public job::Process {
public:
    TaskProcess(std::shared_ptr<Step> step, std::size_t rank)
        : m_step(std::move(step)), m_rank(rank) {}

    void collect_fds(std::vector<pollfd>& fds) override { m_step->collect_fds(m_rank, fds); }
    void process_events(std::span<const pollfd> fds) override {
        m_step->process_events(m_rank, fds);
    }
    bool has_work() const override { return m_step->has_work(m_rank); }
    std::optional<job::Clock::time_point> deadline() const override {
        return m_step->deadline(m_rank);
    }
    void stop(int signo) override { m_step->stop(signo); }
    void kill() override { m_step->kill(); }
    void abandon() override { m_step->abandon(); }
    std::optional<job::Outcome> result() const override { return m_step->result(m_rank); }
    void go() override { m_step->go(); }

private:
    std::shared_ptr<Step> m_step;
    std::size_t m_rank;
};

} // namespace

SlurmTransport::SlurmTransport(const run::Plan& plan, const run::SrunLaunch& launch,
                               std::function<void(std::string_view)> notice,
                               std::function<void(std::size_t, const std::string&)> named,
                               Spawn spawn) {
    Step::Settings settings;
    settings.srun.argv = srun_command(plan, launch);
    // Every node's command has the same working directory, environment changes and flag
    // variables: srun's environment gets them, and srun passes its whole environment to the tasks
    // (--export=ALL), without what --env-exclude names.
    const job::NodeCommand& first = plan.nodes.at(0);
    settings.srun.working_directory = first.working_directory;
    settings.srun.environment = job::with_flag_environment(
        job::local_environment(plan.launcher_environment, first.environment_changes, true),
        first.flag_environment);
    settings.tasks = plan.nodes.size();
    settings.notice = std::move(notice);
    if (launch.allocates) {
        settings.named = std::move(named);
    }
    std::chrono::milliseconds grace = plan.timings.kill_grace;
    settings.spawn =
        spawn ? std::move(spawn)
              : Spawn([grace](const exec::SpawnRequest& request, output::NodeOutput& output) {
                    return job::start_local_job(request, output, grace);
                });
    m_step = std::make_shared<Step>(std::move(settings));
}

SlurmTransport::~SlurmTransport() = default;

std::unique_ptr<job::Process> SlurmTransport::start(const job::NodeCommand& command,
                                                    output::NodeOutput& output) {
    m_step->add(static_cast<std::size_t>(command.rank), output, command);
    return std::make_unique<TaskProcess>(m_step, static_cast<std::size_t>(command.rank));
}

} // namespace colossalai::slurm
