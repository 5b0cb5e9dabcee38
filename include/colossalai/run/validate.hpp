#pragma once

#include "colossalai/run/options.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace colossalai::run {

// Checks everything about the options that needs no file and no other machine and that the cli
// did not check when it parsed each value (host lists, --extra_launch_args items with their
// master_addr and master_port, --master_addr, ports, durations, -x, --env-exclude,
// --network-interface, --nproc_per_node), in this order, and throws a one-line usage error for
// the first problem:
//   no script and no -m; a script not
//   ending in `.py`; `-m` given an empty name, a name starting with '-' or a `.py` name;
//   --host with --hostfile; --include with --exclude; --include / --exclude / --num_nodes
//   with --host (without a hostfile or a scheduler's hosts: the planner's call); --num_nodes 0 or
//   below -1; master_addr / master_port given both in --extra_launch_args and as an option; an
//   elastic option (max_restarts, rdzv_backend, rdzv_endpoint, rdzv_id) given both there and as
//   an option, or with a bad value there. What belongs to one engine (its options given with
//   another, srun and GPU indices) is the engines' to check, after this (engines::validate).
void validate_options(const Options& options);

// The elastic options given: the cli's (options.elastic), with those that --extra_launch_args
// set (options.extra_elastic, parsed where the cli read them). validate_options has refused one
// given both ways.
ElasticOptions given_elastic_options(const Options& options);

// Parses a positive decimal integer (no sign, no spaces); nullopt otherwise.
std::optional<int> parse_positive_int(std::string_view text);

} // namespace colossalai::run
