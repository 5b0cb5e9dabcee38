#pragma once

// torchrun's elastic options as typed values: --nnodes N|MIN:MAX, --max_restarts,
// --rdzv_backend, --rdzv_endpoint, --rdzv_id. The cli parses each value once with these
// functions; validate_options and the planner check them against the other options and the
// hosts (ElasticPlan is what the launch gets).

#include "colossalai/run/extra_args.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// --nnodes: how many nodes the job runs on, at least `min` and at most `max` (torchrun's
// MIN:MAX; a plain N is N:N).
struct NodeRange {
    int min = 1;
    int max = 1;
    // MIN < MAX: nodes may leave (and join) while the job runs.
    bool elastic() const { return min < max; }
    bool operator==(const NodeRange&) const = default;
};

// Parses `N` or `MIN:MAX` (positive decimal integers, MIN <= MAX). Throws a one-line usage error
// naming `option` for anything else (zero, a sign, MIN > MAX, a missing bound).
NodeRange parse_node_range(std::string_view text, std::string_view option);

// "N" or "MIN:MAX", as torchrun reads it.
std::string to_string(const NodeRange& range);

// torchrun's rendezvous backends (its registry: static, c10d, etcd, etcd-v2).
enum class RdzvBackend { static_tcp, c10d, etcd, etcd_v2 };

// Parses a backend name as torchrun spells it; throws a usage error naming `option`.
RdzvBackend parse_rdzv_backend(std::string_view text, std::string_view option);

// The name torchrun takes: "static", "c10d", "etcd", "etcd-v2".
std::string_view to_string(RdzvBackend backend);

// --rdzv_endpoint HOST:PORT: where the rendezvous is served (an IPv6 address in brackets).
struct RdzvEndpoint {
    std::string host; // without brackets
    int port = 0;     // 1..65535
    bool operator==(const RdzvEndpoint&) const = default;
};

// Parses HOST:PORT or [IPV6]:PORT. The port is required (torchrun would silently pick 29400,
// which no node may be listening on); throws a usage error naming `option`.
RdzvEndpoint parse_rdzv_endpoint(std::string_view text, std::string_view option);

// "host:port", "[::1]:port".
std::string to_string(const RdzvEndpoint& endpoint);

// Checks a rendezvous id (letters, digits, '-', '_', '.'; at most 128): the key every node's
// agent meets under, written into each node's command line. Throws a usage error naming `option`.
std::string parse_rdzv_id(std::string_view text, std::string_view option);

// Parses --max_restarts: a non-negative integer. Throws a usage error naming `option`.
int parse_max_restarts(std::string_view text, std::string_view option);

// The elastic options as given (the cli sets them; nullopt: not given).
struct ElasticOptions {
    std::optional<NodeRange> nnodes;
    std::optional<int> max_restarts;
    std::optional<RdzvBackend> rdzv_backend;
    std::optional<RdzvEndpoint> rdzv_endpoint;
    std::optional<std::string> rdzv_id;
    bool operator==(const ElasticOptions&) const = default;
};

// Takes max_restarts, rdzv_backend, rdzv_endpoint and rdzv_id out of `args`
// (parse_extra_launch_args's items, in either spelling: rdzv-id or rdzv_id) and parses each as
// the option's value would be, naming "--extra_launch_args NAME" in its usage error; one given
// twice is a usage error. The rest of `args` stays in order.
ElasticOptions take_extra_elastic(std::vector<LaunchArg>& args);

// An elastic launch as the planner decided it: every node's torchrun gets these.
struct ElasticPlan {
    NodeRange nodes;
    RdzvBackend backend = RdzvBackend::c10d;
    RdzvEndpoint endpoint;
    std::string id;
    std::optional<int> max_restarts;
    bool operator==(const ElasticPlan&) const = default;
};

// A fresh rendezvous id for one launch: "colossalai-" and 16 random hex digits.
std::string fresh_rdzv_id();

} // namespace colossalai::run
