#include "colossalai/mpirun/engine.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/mpirun/mpirun_transport.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::mpirun {

namespace {

using namespace std::chrono_literals;

// How long `mpirun --version` may take.
constexpr std::chrono::milliseconds version_timeout = 10s;

// Every node a task of the one mpirun.
class MpirunLaunchTransports : public job::LaunchTransports {
public:
    MpirunLaunchTransports(const run::Plan& plan, const run::MpirunLaunch& launch,
                           job::LaunchHooks hooks)
        : m_mpirun(plan, launch, std::move(hooks.notice)) {}

    job::Transport& transport_for(const job::NodeCommand&) override { return m_mpirun; }

private:
    MpirunTransport m_mpirun;
};

// Its own part of run::Options::engine_options.
run::MpirunLaunch::Given& given(run::Options& options) {
    return std::get<run::MpirunLaunch::Given>(options.engine_options);
}
const run::MpirunLaunch::Given& given(const run::Options& options) {
    return std::get<run::MpirunLaunch::Given>(options.engine_options);
}

constexpr run::EngineOption mpirun_options[] = {
    {.name = "--mpirun",
     .value_name = "PATH",
     .default_shown = "mpirun",
     .help = "With --launcher mpirun: the mpirun (Open MPI) or mpiexec (MPICH) to run",
     .follows = "--srun-args",
     .apply = [](run::Options& options, std::string_view,
                 const std::string& value) { given(options).mpirun = value; },
     .given = [](const run::Options& options) { return given(options).mpirun.has_value(); }},
    {.name = "--mpirun-args",
     .value_name = "ARGS",
     .help = "With --launcher mpirun: more mpirun options, as a shell would split them "
             "(\"--mca plm_rsh_agent ssh\")",
     .follows = "--mpirun",
     .apply =
         [](run::Options& options, std::string_view, const std::string& value) {
             given(options).mpirun_args = parse_mpirun_args(value);
         },
     .given = [](const run::Options& options) { return given(options).mpirun_args.has_value(); }},
};

std::string refuse_for_mpirun(std::string_view option, std::string_view owner) {
    return fmt::format("{} is for --launcher {} (mpirun starts the nodes' jobs)", option, owner);
}

void validate_for_mpirun(const run::Options& options) {
    const std::optional<run::HostSelection>& selection =
        options.include ? options.include : options.exclude;
    if (selection && selection->names_gpus()) {
        throw usage_error("--launcher mpirun cannot use GPU indices in {}: mpirun starts one "
                          "command on every node",
                          options.include ? "--include" : "--exclude");
    }
    for (const run::ElasticOptions* elastic : {&options.elastic, &options.extra_elastic}) {
        if (elastic->nnodes && elastic->nnodes->elastic()) {
            throw usage_error("--launcher mpirun cannot run an elastic job (--nnodes MIN:MAX): "
                              "mpirun ends the whole job when one task ends");
        }
    }
}

void needs_hosts_for_mpirun() {
    throw usage_error("--launcher mpirun needs the nodes: --host or --hostfile, or run it inside "
                      "a batch job's allocation (PBS, LSF, SGE, Slurm)");
}

// Which MPI `program` is, from its --version.
run::MpiKind find_mpi(const std::string& program) {
    exec::CaptureResult version =
        exec::capture({program, "--version"}, version_timeout, std::nullopt, 64 * 1024,
                      exec::CaptureMode{.stderr_to = exec::Stderr::merge});
    std::string shown = util::escape_for_message(program);
    if (!version.error.empty()) {
        throw usage_error("--launcher mpirun: cannot run '{}' ({}); install Open MPI or MPICH, "
                          "or name the program with --mpirun PATH",
                          shown, version.error);
    }
    if (std::optional<run::MpiKind> mpi = detect_mpi(version.output)) {
        return *mpi;
    }
    std::string first(util::trim(version.output.substr(0, version.output.find('\n'))));
    throw usage_error("--launcher mpirun: '{} --version' names neither Open MPI nor MPICH's Hydra "
                      "({}); name one with --mpirun PATH",
                      shown,
                      first.empty() ? "it printed nothing" : util::escape_for_message(first));
}

// Every node is a task of one mpirun, none is started locally, and every task runs as the user
// who starts mpirun.
run::LaunchIntent mpirun_launch(const run::Options& options, bool, run::Plan& plan) {
    for (job::NodeCommand& node : plan.nodes) {
        if (node.user) {
            throw usage_error("--launcher mpirun: host '{}' names a user; mpirun runs every task "
                              "as the user who starts it",
                              node.host);
        }
        node.local = false;
    }
    std::string program = given(options).mpirun.value_or("mpirun");
    run::MpiKind mpi = find_mpi(program);
    return run::MpirunLaunch{program, mpi,
                             given(options).mpirun_args.value_or(std::vector<std::string>{})};
}

constexpr run::EngineRow mpirun_row{.name = "mpirun",
                                    .options = mpirun_options,
                                    .refuse = refuse_for_mpirun,
                                    .validate = validate_for_mpirun,
                                    .needs_hosts = needs_hosts_for_mpirun,
                                    .withholds_job_identity = true,
                                    .launch = mpirun_launch};

} // namespace

const run::EngineRow& engine_row() {
    return mpirun_row;
}

std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::MpirunLaunch& launch, job::LaunchHooks hooks) {
    return std::make_unique<MpirunLaunchTransports>(plan, launch, std::move(hooks));
}

job::RendezvousWay rendezvous_way(const run::Plan& plan) {
    return plan.rendezvous ? job::RendezvousWay::transports : job::RendezvousWay::none;
}

std::string dry_run_header(const run::Plan& plan, const run::MpirunLaunch& launch) {
    // The check's token is drawn afresh for each launch: the dry run names it.
    std::optional<job::RendezvousPlan> check = plan.rendezvous;
    if (check) {
        check->token = "TOKEN";
    }
    return fmt::format(
        "mpirun ({}; one task per node; {} runs its node's command below{}):\n    {}\n",
        launch.mpi == run::MpiKind::open_mpi ? "Open MPI" : "MPICH's Hydra", "/bin/sh -c SCRIPT",
        check ? "; TOKEN: the rendezvous check's, fresh for each launch" : "",
        util::shell_join(build_mpirun_command(plan.nodes, launch, check)));
}

std::string dry_run_transport() {
    return "mpirun";
}

} // namespace colossalai::mpirun
