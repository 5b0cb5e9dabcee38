#pragma once

#include "colossalai/run/hosts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// The largest GPU index --include / --exclude accept (no node has more GPUs; it keeps the
// numbers far from overflow).
inline constexpr int max_gpu_index = 65535;

// One node of a selection: a host and, in DeepSpeed's `host:0,1`, which of its GPUs.
struct NodeSpec {
    Host host;
    // The GPU indices as written (no duplicates); nullopt: the whole host.
    std::optional<std::vector<int>> gpus;
    bool operator==(const NodeSpec&) const = default;
};

// --include / --exclude as the cli parsed them, in one of two syntaxes:
//  - the host list: `h1,h2`, `node[01-04]`, `alice@h1` (a host logged into as alice);
//  - DeepSpeed's: NODE[@NODE...] with NODE = HOST or HOST:I[,I...] (`w0:0,1@w1:2,3`), where
//    `@` joins nodes and `:` starts the node's GPU indices.
// Most texts read only one way. `alice@h1` reads two ways (the host h1 as the user alice, or the
// hosts alice and h1): both readings are kept, and select_hosts takes the one whose hosts are
// all in the pool; when both are, the launch stops with an error that shows both.
struct HostSelection {
    // One reading, or two (the host list's first, then DeepSpeed's).
    std::vector<std::vector<NodeSpec>> readings;
    std::string text; // as given, for messages

    HostSelection() = default;
    // The host list form of these hosts, every one whole (what `h1,h2` parses to).
    HostSelection(std::vector<Host> hosts); // NOLINT(google-explicit-constructor): a list is one

    // Whether some reading names GPU indices (then each node runs one process per GPU).
    bool names_gpus() const;

    // The readings decide; the text is only for messages.
    bool operator==(const HostSelection& other) const { return readings == other.readings; }
};

// Parses `text` given to `option` (--include, --exclude). Throws a usage error for what neither
// syntax accepts (the host list's message, or DeepSpeed's when the text has a ':' or '@'): an
// empty list or node (`a@@b`), a bad host, a GPU list that is empty (`w1:`) or holds something
// other than indices 0..max_gpu_index or an index twice, a host named twice; and for a spelling
// whose ':' reads two ways (`1::2:3`: the IPv6 address 1::2 with GPU 3, or the address 1::2:3;
// `::1:0,1`), with both readings and how to write each (brackets around an IPv6 address).
HostSelection parse_host_selection(std::string_view text, std::string_view option);

// One reading as messages show it: `'w0' (GPUs 0,1), 'w1'`.
std::string describe_reading(const std::vector<NodeSpec>& reading);

// The CUDA_VISIBLE_DEVICES value of these GPU indices: "0,1".
std::string render_gpus(const std::vector<int>& gpus);

} // namespace colossalai::run
