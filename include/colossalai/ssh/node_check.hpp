#pragma once

// `colossalai check --launcher ssh` (the ssh row's check_nodes): the node program on every node
// over SSH.

#include "colossalai/run/engine_row.hpp"

#include <vector>

namespace colossalai::ssh {

// Runs `request.node_input` through each host's login shell, every node at once (a bounded
// worker pool: at most 32 connecting, as `colossalai run`), with check's --ssh-port and the
// connect timeout; each node's failure (no connection, a login shell that ran nothing) is its
// reply's error. Loads libssh first.
std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request);

} // namespace colossalai::ssh
