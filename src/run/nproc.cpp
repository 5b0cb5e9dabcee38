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

bool is_symbolic_nproc(std::string_view value) {
    return value == "auto" || value == "cpu" || value == "gpu";
}

std::string resolve_nproc_per_node(const std::optional<std::string>& option,
                                   const std::vector<Host>& hosts, std::string_view source,
                                   LauncherForm form, const std::optional<std::string>& torch) {
    const Host* with_slots = first_with_slots(hosts);
    if (option && is_symbolic_nproc(*option)) {
        if (form != LauncherForm::torchrun) {
            throw usage_error("--nproc_per_node {} needs torchrun (PyTorch 1.10 or newer; found "
                              "{})",
                              *option, torch.value_or("an older one"));
        }
        if (with_slots != nullptr) {
            throw usage_error("--nproc_per_node {} and slots={} for '{}' in {}: keep one", *option,
                              *with_slots->slots, with_slots->name, source);
        }
        return *option;
    }
    if (option) {
        std::optional<int> parsed = parse_positive_int(*option);
        if (!parsed) { // validate_options refuses it first; a direct caller gets the same
            throw usage_error("--nproc_per_node '{}': not a positive integer (or auto, cpu, gpu)",
                              util::escape_for_message(*option));
        }
        int wanted = *parsed;
        for (const Host& host : hosts) {
            if (host.slots && *host.slots != wanted) {
                throw usage_error("slots={} for '{}' in {} contradicts --nproc_per_node {} "
                                  "(torchrun runs the same number of processes on every node)",
                                  *host.slots, host.name, source, wanted);
            }
        }
        return std::to_string(wanted);
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
    return std::to_string(*with_slots->slots);
}

} // namespace colossalai::run
