#pragma once

// What an engine (src/engines lists them) says about `colossalai run`: its name, the options only
// it reads (each declared whole here, for both commands: `colossalai run`'s and `colossalai
// check`'s option tables take them from the rows), its own checks, and what the planner asks of
// it (where the hosts come from, whether it reaches them from this machine, its launch intent);
// and how `colossalai check` reaches nodes through it. Each engine defines its row in its own
// module (ssh/engine.hpp, slurm/engine.hpp, mpirun/engine.hpp); run/ holds the type without any
// engine's code, and the planner (make_plan) is handed the chosen row, as ninja's build is handed
// its CommandRunner.

#include "colossalai/check/options.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/options.hpp"
#include "colossalai/run/plan.hpp"
#include "colossalai/run/scheduler_hosts.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// How one command shows an engine's option, and where: its value's name, its default and help
// as that command's --help words them.
struct EngineOptionShown {
    std::string_view value_name = {};    // as --help shows the value: "PORT"; empty: a flag
    std::string_view default_shown = {}; // the default --help shows; empty: none
    std::string_view help = {};
    // The option it follows in that command's --help ("--extra_launch_args"): the order --help,
    // the man page and the docs have always had. Empty: not an option of that command.
    std::string_view follows = {};

    bool offered() const { return !follows.empty(); }
};

// An option that one engine owns, declared once for both commands: `colossalai run`'s and
// `colossalai check`'s option tables take it from the row (the cli makes it an entry of each
// command that offers it), and read it with the same function; given with another engine, that
// engine refuses it. Its value lands in the engine's own part of the command's engine options
// (Options::engine_options, CheckOptions::engine_options).
struct EngineOption {
    std::string_view name = {};   // as --help names it: "--ssh-port"
    EngineOptionShown run = {};   // under `colossalai run`
    EngineOptionShown check = {}; // under `colossalai check`
    // Converts `value` (empty for a flag) into `options`; throws a usage error for a bad value.
    // `name` is the option as --help names it, for the message.
    void (*apply)(EngineOptions& options, std::string_view name,
                  const std::string& value) = nullptr;
    bool (*given)(const EngineOptions& options) = nullptr;
};

struct EngineRow;

// `colossalai check` as the user asked for it: what the installation check reads
// (check::Options), and the engine it reaches nodes through with the values of that engine's
// options, which check, below run, cannot name.
struct CheckOptions : check::Options {
    // --launcher NAME: its row in the engines' table (engines::find), resolved once by the cli;
    // nullptr: not given, the table's first row (ssh).
    const EngineRow* engine = nullptr;
    // The engines' own options of check, each in its engine's part (EngineOption::check).
    EngineOptions engine_options;

    bool operator==(const CheckOptions&) const = default;
};

// Hosts an engine finds itself (srun allocating --num_nodes N nodes), where they come from, and
// the notice that says so.
struct EngineHosts {
    std::vector<Host> hosts;
    std::string source;
    std::string notice;
};

// What `colossalai check` (cluster_check) hands the engine it reaches the nodes through: the
// node program in both of its forms (each engine runs the one it needs) and its limits.
struct CheckRequest {
    // Its own options of check among them, in its part of `options.engine_options`.
    const CheckOptions& options;
    std::vector<Host> hosts;                    // in report order
    std::string node_input;                     // the node program as a login shell's input
    std::vector<std::string> node_argv;         // the node program as a command
    std::chrono::milliseconds probe_timeout{0}; // each probe's on the node
    std::size_t max_answer_bytes = 0;           // per node; more is no answer of ours
};

// One node's raw reply to the check: what its node program printed, which cluster_check parses,
// and why nothing ran there, which it says when `output` holds no answer.
struct NodeReply {
    std::string output;
    std::string error;
};

struct EngineRow {
    std::string_view name;                 // its --launcher value
    std::span<const EngineOption> options; // the options only it reads, of either command
    // What --launcher's help says of it after its name, in parentheses ("one srun step"), under
    // run and under check; empty: its name alone. The help's sentence lists the rows with it.
    std::string_view run_gloss = {};
    std::string_view check_gloss = {};
    // The one line that refuses `option`, owned by the engine named `owner`, with this engine.
    std::string (*refuse)(std::string_view option, std::string_view owner) = nullptr;
    // Its own checks across the options, beyond the options it does not own (throws a usage
    // error); nullptr: none.
    void (*validate)(const Options& options) = nullptr;

    // What the planner asks of it (run/planner.cpp, run/plan_hosts.cpp).
    // The hosts it finds itself when neither --host, a hostfile nor a batch job's allocation
    // names them (throws a usage error for options it cannot serve); nullopt: none, the usual
    // checks follow. nullptr: it finds none.
    std::optional<EngineHosts> (*own_hosts)(const Options& options) = nullptr;
    // Refuses (a usage error) a launch without any hosts named; nullptr: this machine is the
    // default host.
    void (*needs_hosts)() = nullptr;
    // Whether it reaches each host from this machine: a host's address is its ssh config's
    // HostName, a host that is this machine runs as a local child, and an implicit master that
    // is a loopback name becomes this machine's address towards the other nodes. false: its
    // launcher places the nodes itself (none is local; the names are used as given).
    bool reaches_hosts = false;
    // Whether the nodes it reaches on other machines lose the launcher's own batch-job identity
    // (run::is_slurm_identity_variable: it would make a node take itself for the launcher's);
    // false: its launcher sets each task's identity itself.
    bool withholds_job_identity = false;
    // The plan's launch intent from the options and the planned nodes, which it may refuse (a
    // usage error) or adjust (none is local under srun; each node's --ssh-port); `allocated`:
    // own_hosts gave the hosts.
    LaunchIntent (*launch)(const Options& options, bool allocated, Plan& plan) = nullptr;

    // How `colossalai check` reaches the nodes through it (cluster_check): the replies of
    // `request.hosts`, in their order, each node's failure in its reply (never thrown). nullptr:
    // check cannot, and refuses it as its --launcher; the columns below are then unused.
    std::vector<NodeReply> (*check_nodes)(const CheckRequest& request) = nullptr;
    // The one line that refuses `options` (another engine's options of check, those its row
    // offers there: "--ssh-port", "--ssh-timeout"), owned by the engine named `owner`, with this
    // engine under check.
    std::string (*check_refuse)(std::span<const std::string_view> options,
                                std::string_view owner) = nullptr;
    // Whether `check --launcher NAME` alone checks the nodes of the allocation it runs in;
    // false: check needs --host, --hostfile or --allocation to check any node but this machine.
    bool check_alone_checks_allocation = false;
    // Refuses (a usage error) the allocation `variable` names (nullopt: none) when it cannot
    // reach its nodes; nullptr: it reaches any.
    void (*check_allocation)(const std::optional<SchedulerVariable>& variable) = nullptr;
    // Refuses (a usage error) a host it cannot check; nullptr: it checks any.
    void (*check_host)(const Host& host) = nullptr;
};

} // namespace colossalai::run
