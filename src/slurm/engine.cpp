#include "colossalai/slurm/engine.hpp"

#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/core.h>

namespace colossalai::slurm {

namespace {

// Every node a task of the one srun step.
class SrunLaunchTransports : public job::LaunchTransports {
public:
    SrunLaunchTransports(const run::Plan& plan, const run::SrunLaunch& launch,
                         job::LaunchHooks hooks)
        : m_srun(plan, launch, std::move(hooks.notice), std::move(hooks.named)) {}

    job::Transport& transport_for(const job::NodeCommand&) override { return m_srun; }

private:
    SlurmTransport m_srun;
};

} // namespace

std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::SrunLaunch& launch, job::LaunchHooks hooks) {
    return std::make_unique<SrunLaunchTransports>(plan, launch, std::move(hooks));
}

std::string dry_run_header(const run::Plan& plan, const run::SrunLaunch& launch) {
    return fmt::format("srun (one task per node; {} runs its node's command below):\n    {}\n",
                       "/bin/sh -c SCRIPT", util::shell_join(srun_command(plan, launch)));
}

std::string dry_run_transport() {
    return "slurm";
}

} // namespace colossalai::slurm
