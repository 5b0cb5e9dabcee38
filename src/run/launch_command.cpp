#include "colossalai/run/launch_command.hpp"

#include <fmt/core.h>

#include <utility>

namespace colossalai::run {

std::vector<std::string> build_launch_command(const LaunchSpec& spec) {
    return launch_command(spec).argv;
}

LaunchCommand launch_command(const LaunchSpec& spec) {
    std::string nproc = "--nproc_per_node=" + to_string(spec.nproc_per_node);
    std::string nnodes = spec.elastic ? "--nnodes=" + to_string(spec.elastic->nodes)
                                      : fmt::format("--nnodes={}", spec.nnodes);
    std::string rank = node_rank_option(spec.node_rank);
    std::string addr = "--master_addr=" + spec.master_addr.host;
    std::string port = fmt::format("--master_port={}", spec.master_port.number);

    LaunchCommand command;
    std::vector<std::string>& argv = command.argv;
    // The exact size, before the words go in: 100,000 nodes each hold their own command.
    std::size_t program = spec.module ? 2 : spec.script ? 1 : 0;
    argv.reserve((spec.form == LauncherForm::torchrun ? 6 : 8) + (spec.elastic ? 3 : 0) +
                 (spec.max_restarts ? 1 : 0) + spec.extra.size() + program +
                 spec.script_args.size());
    // The words are moved in, not copied (an initializer list copies each one).
    auto append = [&argv](auto&&... words) {
        (argv.emplace_back(std::forward<decltype(words)>(words)), ...);
    };
    switch (spec.form) {
    case LauncherForm::distributed_launch:
        append(spec.python, "-m", "torch.distributed.launch", std::move(nproc), std::move(addr),
               std::move(port), std::move(nnodes), std::move(rank));
        command.master_addr_word = 4;
        command.node_rank_word = 7;
        break;
    case LauncherForm::distributed_run:
        append(spec.python, "-m", "torch.distributed.run", std::move(nproc), std::move(nnodes),
               std::move(rank), std::move(addr), std::move(port));
        command.node_rank_word = 5;
        command.master_addr_word = 6;
        break;
    case LauncherForm::torchrun:
        append("torchrun", std::move(nproc), std::move(nnodes), std::move(rank), std::move(addr),
               std::move(port));
        command.node_rank_word = 3;
        command.master_addr_word = 4;
        break;
    }
    if (spec.elastic) {
        argv.push_back(fmt::format("--rdzv_backend={}", to_string(spec.elastic->backend)));
        argv.push_back("--rdzv_endpoint=" + to_string(spec.elastic->endpoint));
        argv.push_back("--rdzv_id=" + spec.elastic->id);
    }
    if (spec.max_restarts) {
        argv.push_back(fmt::format("--max_restarts={}", *spec.max_restarts));
    }
    for (const LaunchArg& arg : spec.extra) {
        argv.push_back(to_word(arg));
    }
    if (spec.module) {
        argv.push_back("-m");
        argv.push_back(*spec.module);
    } else if (spec.script) {
        argv.push_back(*spec.script);
    }
    argv.insert(argv.end(), spec.script_args.begin(), spec.script_args.end());
    return command;
}

std::string node_rank_option(int rank) {
    return fmt::format("--node_rank={}", rank);
}

} // namespace colossalai::run
