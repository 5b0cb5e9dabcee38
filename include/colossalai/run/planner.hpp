#pragma once

#include "colossalai/run/options.hpp"
#include "colossalai/run/plan.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// What make_plan needs to know about this machine, gathered by prepare() (or written by a
// test).
struct Context {
    std::vector<std::string> environment;     // `NAME=value`, as in environ
    std::string working_directory;            // absolute
    std::optional<std::string> python;        // the interpreter's sys.executable, if found
    std::optional<std::string> torch_version; // raw torch.__version__; nullopt: not found
    std::optional<std::string> hostfile_text; // the contents of options.hostfile
    // The contents of the scheduler's node file (PBS_NODEFILE) when the hosts come from it.
    std::optional<std::string> nodefile_text;
    // True when an address (no user part, no brackets) names this machine.
    std::function<bool(std::string_view)> is_local;
    std::vector<std::string> warnings; // gathered while looking around (a broken interpreter)
};

// The plan for `colossalai run`, without any I/O, from options the cli has validated once
// (validate_options): hosts from --host, or the hostfile text, or the allocation of a
// batch scheduler found in the environment (SLURM_JOB_NODELIST, PBS_NODEFILE; a notice says
// so), with --include / --exclude / --num_nodes, or else the local machine (127.0.0.1); ranks in
// that order and --nnodes = the count; with several nodes and no explicit master address, the
// master is the first host; the command form from the PyTorch version (-m refused below 2.0); the
// filtered environment and the working directory for every node. Throws a usage error for any
// problem.
Plan make_plan(const Options& options, const Context& context);

// Gathers the Context with real I/O (reads the hostfile, environ, the current directory, finds
// the Python environment and its PyTorch version, detects local hosts) and calls make_plan.
// `options` are validated already. Nothing is started or connected to.
Plan prepare(const Options& options);

} // namespace colossalai::run
