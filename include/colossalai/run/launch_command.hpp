#pragma once

#include "colossalai/run/elastic.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/nproc_value.hpp"
#include "colossalai/run/torch_forms.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

// Everything one node's command is made of, typed; launch_command renders each value once.
struct LaunchSpec {
    LauncherForm form = LauncherForm::torchrun;
    // The PyTorch whose launcher reads the command (what it accepts: torch_forms.hpp); nullopt:
    // not found or unreadable, a current one.
    std::optional<util::Version> torch;
    std::string python; // the interpreter (sys.executable) for the two `-m torch...` forms
    NprocPerNode nproc_per_node = 1;
    int nnodes = 1;
    // An elastic launch: `--nnodes=MIN:MAX` instead of the count, and the rendezvous words.
    std::optional<ElasticPlan> elastic;
    std::optional<int> max_restarts; // --max_restarts=K, elastic or not
    int node_rank = 0;
    MasterAddress master_addr;
    Port master_port = default_master_port;
    std::vector<LaunchArg> extra; // without master_addr / master_port (already folded in)
    std::optional<std::string> module;
    std::optional<std::string> script;
    std::vector<std::string> script_args;
};

// The argv of one node, in the original's order:
//   launch: <python> -m torch.distributed.launch --nproc_per_node=N --master_addr=A
//           --master_port=P --nnodes=K --node_rank=R
//   run:    <python> -m torch.distributed.run --nproc_per_node=N --nnodes=K --node_rank=R
//           --master_addr=A --master_port=P
//   torchrun: torchrun --nproc_per_node=N --nnodes=K --node_rank=R --master_addr=A
//           --master_port=P
// then, for an elastic launch (where --nnodes=MIN:MAX), --rdzv_backend=B --rdzv_endpoint=H:P
// --rdzv_id=ID, then --max_restarts=K when given, then the extra launch args, then `-m MODULE` or
// the script, then the script args verbatim.
std::vector<std::string> build_launch_command(const LaunchSpec& spec);

// The same argv with where its per-node words are, as the planner builds it once.
struct LaunchCommand {
    std::vector<std::string> argv;
    std::size_t node_rank_word = 0;   // `--node_rank=R`
    std::size_t master_addr_word = 0; // `--master_addr=A`
};
LaunchCommand launch_command(const LaunchSpec& spec);

// `--node_rank=R`: launch_command's word at node_rank_word, the only one that differs between
// the commands of nodes that run the same number of processes (the planner changes just that
// word in a copy, 100,000 nodes). Pure.
std::string node_rank_option(int rank);

} // namespace colossalai::run
