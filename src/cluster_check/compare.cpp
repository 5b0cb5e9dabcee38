#include "colossalai/cluster_check/compare.hpp"

#include "colossalai/check/rules.hpp"

#include <functional>

namespace colossalai::cluster_check {

namespace {

// The verdict for one value: N/A below two nodes or when no node knows it.
template <typename Value>
std::optional<bool> same(const std::vector<NodeFacts>& nodes,
                         const std::function<std::optional<Value>(const check::Facts&)>& key) {
    if (nodes.size() < 2) {
        return std::nullopt;
    }
    std::optional<Value> first = key(nodes.front().facts);
    bool any_known = first.has_value();
    for (const NodeFacts& node : nodes) {
        std::optional<Value> value = key(node.facts);
        any_known = any_known || value.has_value();
        if (value != first) {
            return false;
        }
    }
    return any_known ? std::optional<bool>(true) : std::nullopt;
}

using Text = std::optional<std::string>;

} // namespace

AcrossNodes compare_nodes(const std::vector<NodeFacts>& nodes) {
    AcrossNodes across;
    across.same_torch = same<std::pair<std::string, bool>>(
        nodes, [](const check::Facts& facts) -> std::optional<std::pair<std::string, bool>> {
            if (!facts.torch_version) {
                return std::nullopt;
            }
            return std::make_pair(*facts.torch_version, facts.torch_cpu_only);
        });
    across.same_torch_cuda =
        same<std::string>(nodes, [](const check::Facts& facts) { return facts.torch_cuda; });
    across.same_system_cuda =
        same<std::string>(nodes, [](const check::Facts& facts) { return facts.system_cuda; });
    using Build = std::tuple<Text, std::optional<bool>, Text, Text>;
    across.same_colossalai =
        same<Build>(nodes, [](const check::Facts& facts) -> std::optional<Build> {
            if (!facts.colossalai_version && !facts.aot_extension) {
                return std::nullopt;
            }
            return Build{facts.colossalai_version, facts.aot_extension, facts.aot_torch,
                         facts.aot_cuda};
        });
    across.same_driver_cuda =
        same<std::string>(nodes, [](const check::Facts& facts) { return facts.driver_cuda; });
    across.same_gpus = same<std::vector<std::string>>(
        nodes, [](const check::Facts& facts) -> std::optional<std::vector<std::string>> {
            if (!facts.gpus) {
                return std::nullopt;
            }
            std::vector<std::string> models;
            for (const check::Gpu& gpu : *facts.gpus) {
                models.push_back(gpu.name);
            }
            return models;
        });
    return across;
}

int cluster_exit_status(const std::vector<NodeFacts>& nodes,
                        const std::vector<Unreachable>& unreachable, const AcrossNodes& across) {
    if (!unreachable.empty()) {
        return 255;
    }
    for (const NodeFacts& node : nodes) {
        if (check::exit_status(check::evaluate(node.facts)) != 0) {
            return 1;
        }
    }
    for (const std::optional<bool>& verdict :
         {across.same_torch, across.same_torch_cuda, across.same_system_cuda,
          across.same_colossalai, across.same_driver_cuda, across.same_gpus}) {
        if (verdict == false) {
            return 1;
        }
    }
    return 0;
}

} // namespace colossalai::cluster_check
