#include "colossalai/slurm/engine.hpp"

#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/core.h>

namespace colossalai::slurm {

namespace {

// Every node a task of the one srun step.
class SrunLaunchTransports : public job::LaunchTransports {
public:
    SrunLaunchTransports(const run::Plan& plan, const run::SrunLaunch& launch,
                         job::LaunchHooks hooks)
        : m_srun(plan, launch, std::move(hooks.notice)) {}

    job::Transport& transport_for(const job::NodeCommand&) override { return m_srun; }

private:
    SlurmTransport m_srun;
};

constexpr run::OwnedOption slurm_options[] = {
    {"--srun-args", [](const run::Options& options) { return options.srun_args.has_value(); }},
};

std::string refuse_for_slurm(std::string_view option, std::string_view owner) {
    return fmt::format("{} is for --launcher {} (srun starts the nodes' jobs)", option, owner);
}

// srun starts one command on every node: no node can have GPUs of its own.
void validate_for_slurm(const run::Options& options) {
    const std::optional<run::HostSelection>& selection =
        options.include ? options.include : options.exclude;
    if (selection && selection->names_gpus()) {
        throw usage_error("--launcher slurm cannot use GPU indices in {}: srun starts one command "
                          "on every node (--srun-args '--gpus-per-node=N' selects GPUs there)",
                          options.include ? "--include" : "--exclude");
    }
}

constexpr run::EngineRow slurm_row{.name = "slurm",
                                   .launcher = run::Launcher::slurm,
                                   .options = slurm_options,
                                   .refuse = refuse_for_slurm,
                                   .validate = validate_for_slurm};

} // namespace

const run::EngineRow& engine_row() {
    return slurm_row;
}

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
