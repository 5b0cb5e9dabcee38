#include "colossalai/mpirun/engine.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/mpirun/mpirun_transport.hpp"
#include "colossalai/mpirun/node_check.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

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

// Its own part of the engine options (run::Options::engine_options,
// run::CheckOptions::engine_options).
run::MpirunLaunch::Given& given(run::EngineOptions& options) {
    return std::get<run::MpirunLaunch::Given>(options);
}
const run::MpirunLaunch::Given& given(const run::EngineOptions& options) {
    return std::get<run::MpirunLaunch::Given>(options);
}

constexpr std::string_view mpirun_program_help =
    "With --launcher mpirun: the mpirun (Open MPI) or mpiexec (MPICH) to run";

constexpr run::EngineOption mpirun_options[] = {
    {.name = "--mpirun",
     .run = {.value_name = "PATH",
             .default_shown = "mpirun",
             .help = mpirun_program_help,
             .follows = "--srun-args"},
     .check = {.value_name = "PATH",
               .default_shown = "mpirun",
               .help = mpirun_program_help,
               .follows = "--ssh-timeout"},
     .apply = [](run::EngineOptions& options, std::string_view,
                 const std::string& value) { given(options).mpirun = value; },
     .given = [](const run::EngineOptions& options) { return given(options).mpirun.has_value(); }},
    {.name = "--mpirun-args",
     .run = {.value_name = "ARGS",
             .help = "With --launcher mpirun: more mpirun options, as a shell would split them "
                     "(\"--mca plm_rsh_agent ssh\")",
             .follows = "--mpirun"},
     .check = {.value_name = "ARGS",
               .help = "With --launcher mpirun: more mpirun options, as a shell would split them",
               .follows = "--mpirun"},
     .apply =
         [](run::EngineOptions& options, std::string_view, const std::string& value) {
             given(options).mpirun_args = parse_mpirun_args(value);
         },
     .given =
         [](const run::EngineOptions& options) { return given(options).mpirun_args.has_value(); }},
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

// A host with a user part (`shown` as the message names it): mpirun runs every task as its own
// user.
[[noreturn]] void refuse_mpirun_host_user(std::string_view shown) {
    throw usage_error("--launcher mpirun: host '{}' names a user; mpirun runs every task as the "
                      "user who starts it",
                      shown);
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

// The program its options name, which MPI it is, and their --mpirun-args.
run::MpirunLaunch launch_of(const run::MpirunLaunch::Given& own) {
    std::string program = own.mpirun.value_or("mpirun");
    run::MpiKind mpi = find_mpi(program);
    return run::MpirunLaunch{program, mpi, own.mpirun_args.value_or(std::vector<std::string>{})};
}

// Every node is a task of one mpirun, none is started locally, and every task runs as the user
// who starts mpirun.
run::LaunchIntent mpirun_launch(const run::Options& options, bool, run::Plan& plan) {
    for (job::NodeCommand& node : plan.nodes) {
        if (node.user) {
            refuse_mpirun_host_user(node.host);
        }
        node.local = false;
    }
    return launch_of(given(options.engine_options));
}

std::string refuse_for_mpirun_check(std::span<const std::string_view> options,
                                    std::string_view owner) {
    return fmt::format("{} {} for --launcher {} (mpirun starts the checks)",
                       fmt::join(options, " and "), options.size() == 1 ? "is" : "are", owner);
}

void check_mpirun_host(const run::Host& host) {
    if (host.user) {
        refuse_mpirun_host_user(util::escape_for_message(host.name));
    }
}

// check through one mpirun of the program given, which MPI it is read as for run.
std::vector<run::NodeReply> check_nodes_through_mpirun(const run::CheckRequest& request) {
    return check_nodes(request, launch_of(given(request.options.engine_options)));
}

constexpr run::EngineRow mpirun_row{.name = "mpirun",
                                    .options = mpirun_options,
                                    .run_gloss = "one mpirun, Open MPI or MPICH",
                                    .check_gloss = "one mpirun, Open MPI or MPICH",
                                    .refuse = refuse_for_mpirun,
                                    .validate = validate_for_mpirun,
                                    .needs_hosts = needs_hosts_for_mpirun,
                                    .withholds_job_identity = true,
                                    .launch = mpirun_launch,
                                    .check_nodes = check_nodes_through_mpirun,
                                    .check_refuse = refuse_for_mpirun_check,
                                    .check_host = check_mpirun_host};

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
