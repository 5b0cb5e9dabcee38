#pragma once

#include "colossalai/cluster_check/compare.hpp"

#include <string>
#include <vector>

namespace colossalai::cluster_check {

// The cluster report as text: who was checked and who not (with the reason), then the sections
// of the local report with one column per node (up to four nodes answered) or per distinct
// configuration (the nodes sharing it named in the column's header), the advice of each column
// under its section, and the "Across nodes" verdicts. Values are escaped. Pure.
std::string render_cluster_text(const std::vector<NodeFacts>& nodes,
                                const std::vector<Unreachable>& unreachable,
                                const AcrossNodes& across);

// The same as one JSON object (schema in docs/check.md): `nodes` maps each host to the local
// report's object, `unreachable` each host not checked to its reason, `across_nodes` the
// verdicts, `ok` the exit status being 0. Indented, ending in a newline.
std::string render_cluster_json(const std::vector<NodeFacts>& nodes,
                                const std::vector<Unreachable>& unreachable,
                                const AcrossNodes& across);

// The columns: groups of node indexes with the same report rows, in node order (one per node
// when at most `per_host_limit` nodes answered).
std::vector<std::vector<std::size_t>> columns(const std::vector<NodeFacts>& nodes,
                                              std::size_t per_host_limit = 4);

} // namespace colossalai::cluster_check
