#include "colossalai/run/nproc.hpp"

#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>

namespace colossalai::run {

namespace {

const Host* first_with_slots(const std::vector<Host>& hosts) {
    auto it = std::find_if(hosts.begin(), hosts.end(),
                           [](const Host& host) { return host.slots.has_value(); });
    return it == hosts.end() ? nullptr : &*it;
}

} // namespace

std::optional<NprocPerNode> parse_nproc_per_node(std::string_view text) {
    if (std::optional<int> count = parse_positive_int(text)) {
        return *count;
    }
    for (auto symbolic : {SymbolicNproc::automatic, SymbolicNproc::cpu, SymbolicNproc::gpu}) {
        if (text == to_string(symbolic)) {
            return symbolic;
        }
    }
    return std::nullopt;
}

std::string to_string(const NprocPerNode& nproc) {
    if (const int* count = std::get_if<int>(&nproc)) {
        return std::to_string(*count);
    }
    switch (std::get<SymbolicNproc>(nproc)) {
    case SymbolicNproc::automatic:
        return "auto";
    case SymbolicNproc::cpu:
        return "cpu";
    case SymbolicNproc::gpu:
        return "gpu";
    }
    return "auto";
}

NprocPerNode resolve_nproc_per_node(const std::optional<NprocPerNode>& option,
                                    const std::vector<Host>& hosts, std::string_view source) {
    const Host* with_slots = first_with_slots(hosts);
    if (option && std::holds_alternative<SymbolicNproc>(*option)) {
        std::string shown = to_string(*option);
        if (with_slots != nullptr) {
            throw usage_error("--nproc_per_node {} and slots={} for '{}' in {}: keep one", shown,
                              *with_slots->slots, with_slots->name, source);
        }
        return *option;
    }
    if (option) {
        int wanted = std::get<int>(*option);
        for (const Host& host : hosts) {
            if (host.slots && *host.slots != wanted) {
                throw usage_error("slots={} for '{}' in {} contradicts --nproc_per_node {} "
                                  "(torchrun runs the same number of processes on every node)",
                                  *host.slots, host.name, source, wanted);
            }
        }
        return wanted;
    }
    if (with_slots == nullptr) {
        throw usage_error("--nproc_per_node is required (processes per node, usually the "
                          "number of GPUs)");
    }
    for (const Host& host : hosts) {
        if (!host.slots) {
            throw usage_error("--nproc_per_node is required: '{}' in {} has no slots= while "
                              "'{}' has slots={}",
                              host.name, source, with_slots->name, *with_slots->slots);
        }
        if (*host.slots != *with_slots->slots) {
            throw usage_error("slots differ in {}: '{}' has slots={}, '{}' has slots={}; torchrun "
                              "runs the same number of processes on every node (give "
                              "--nproc_per_node, or make them equal)",
                              source, with_slots->name, *with_slots->slots, host.name, *host.slots);
        }
    }
    return *with_slots->slots;
}

job::GpusNeeded gpus_needed(const std::optional<std::vector<int>>& selected,
                            const std::optional<NprocPerNode>& nproc) {
    if (selected) {
        return job::GpuIndices{*selected};
    }
    if (!nproc) {
        return job::NoGpus{};
    }
    if (const int* count = std::get_if<int>(&*nproc)) {
        return job::GpuPerProcess{*count};
    }
    if (std::get<SymbolicNproc>(*nproc) == SymbolicNproc::gpu) {
        return job::SomeGpu{};
    }
    return job::NoGpus{};
}

} // namespace colossalai::run
