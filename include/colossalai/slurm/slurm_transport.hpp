#pragma once

#include "colossalai/job/process.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// `--launcher slurm`: every node's job is one task of a single srun step.
namespace colossalai::slurm {

class Step;

// One more transport of the launch seam. The nodes' processes share one local child, srun
// (started like a local job: own process group, a guardian, PR_SET_PDEATHSIG), which the first
// go() starts once every node is ready. srun's `--label`ed output is split by task: each task's
// wrapper names its node rank first and its exit status last (run/srun_command.hpp), so each
// line reaches that node's NodeOutput and each node gets its own result. srun's own lines go to
// `notice`. A signal to any node goes to srun once (SIGINT, SIGTERM, SIGHUP become SIGTERM,
// which srun passes to every task; SIGKILL kills srun, and Slurm then ends the step on every
// node). A task with no exit status when srun ends was stopped (by the launcher's signal) or
// failed with srun's status.
class SlurmTransport : public job::Transport {
public:
    // `srun_argv` from run::build_srun_command for `tasks` nodes; srun runs in
    // `working_directory` with `launcher_environment` (`NAME=value`: the plan's snapshot of the
    // launcher's, run::Plan) changed as the nodes' commands say. With `named` (srun allocates, the
    // plan's hosts are placeholders), each node's name comes from its task's start marker: its
    // output's prefix becomes `name: ` and `named(rank, name)` is called, once per node.
    SlurmTransport(std::vector<std::string> srun_argv, std::size_t tasks,
                   std::string working_directory, std::vector<std::string> launcher_environment,
                   std::chrono::milliseconds kill_grace,
                   std::function<void(std::string_view)> notice,
                   std::function<void(std::size_t, const std::string&)> named = {});
    ~SlurmTransport() override;

    // Called once per node, in rank order.
    std::unique_ptr<job::Process> start(const job::NodeCommand& command,
                                        output::NodeOutput& output) override;

private:
    std::shared_ptr<Step> m_step;
};

} // namespace colossalai::slurm
