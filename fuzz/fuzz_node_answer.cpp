// libFuzzer target: a node's answer to the `check --host` program, which comes from another
// machine and may be anything. Properties: the facts and the column report come out without a
// crash, and the report holds no control byte but newlines (no line can be forged by a node).

#include "fuzz_support.hpp"

#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/cluster_check/report.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    namespace cc = colossalai::cluster_check;
    std::vector<cc::NodeFacts> nodes = {{"node1", cc::facts_from_dump(cc::parse_dump(text))},
                                        {"node2", {}}};
    std::string report = cc::render_cluster_text(nodes, {}, cc::compare_nodes(nodes));
    for (char c : report) {
        colossalai::fuzz::require(static_cast<unsigned char>(c) >= 0x20 || c == '\n',
                                  "a control byte in the cluster report");
    }
    return 0;
}
