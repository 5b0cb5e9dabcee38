#include "colossalai/check/report.hpp"

#include <nlohmann/json.hpp>

namespace colossalai::check {

namespace {

using json = nlohmann::ordered_json;

// Bumped only for changes that break readers (a key removed, renamed or retyped); 2 added the
// NCCL, /dev/shm, runtime-build and GPU-architecture keys and `advice`, and `ok` now also
// counts the new checks; 3 is the version of `check --host/--hostfile`, whose top-level object
// (docs/check.md) holds one of these per node.
constexpr int schema_version = 3;

json string_or_null(const std::optional<std::string>& text) {
    return text && !text->empty() ? json(*text) : json(nullptr);
}

json bool_or_null(const std::optional<bool>& check) {
    return check ? json(*check) : json(nullptr);
}

json gpus(const std::optional<std::vector<Gpu>>& list) {
    if (!list) {
        return nullptr;
    }
    json array = json::array();
    for (const Gpu& gpu : *list) {
        array.push_back(
            {{"name", gpu.name}, {"compute_capability", string_or_null(gpu.compute_capability)}});
    }
    return array;
}

} // namespace

std::string render_json(const Facts& facts, const Checks& checks) {
    json environment = {
        {"colossalai_version", string_or_null(facts.colossalai_version)},
        {"torch_version", string_or_null(facts.torch_version)},
        {"system_cuda_version", string_or_null(facts.system_cuda)},
        {"torch_cuda_version", string_or_null(facts.torch_cuda)},
        {"driver_cuda_version", string_or_null(facts.driver_cuda)},
        {"gpu_count", facts.gpus ? json(std::to_string(facts.gpus->size())) : json(nullptr)},
        {"gpus", gpus(facts.gpus)},
        {"python", string_or_null(facts.python)},
        {"python_version", string_or_null(facts.python_version)},
        {"cuda_home", string_or_null(facts.cuda_home)},
        {"torch_nccl_version", string_or_null(facts.torch_nccl)},
        {"torch_nccl_source", string_or_null(facts.torch_nccl_source)},
        {"system_nccl_version", string_or_null(facts.system_nccl)},
        {"system_nccl_library", string_or_null(facts.system_nccl_library)},
        {"shm_bytes", facts.shm_bytes ? json(std::to_string(*facts.shm_bytes)) : json(nullptr)},
    };
    json aot = {
        {"extension_found", bool_or_null(facts.aot_extension)},
        {"torch_version", string_or_null(facts.aot_torch)},
        {"cuda_version", string_or_null(facts.aot_cuda)},
        {"ninja", string_or_null(facts.ninja)},
        {"cxx", string_or_null(facts.cxx)},
    };
    json compatibility = {
        {"torch_version_match", bool_or_null(checks.torch_version_match)},
        {"system_torch_cuda_match", bool_or_null(checks.system_torch_cuda_match)},
        {"system_colossalai_cuda_match", bool_or_null(checks.system_colossalai_cuda_match)},
        {"driver_supports_torch_cuda", bool_or_null(checks.driver_supports_torch_cuda)},
        {"torch_cuda_supports_gpus", bool_or_null(checks.torch_cuda_supports_gpus)},
        {"jit_ninja", bool_or_null(checks.jit_ninja)},
        {"jit_compiler", bool_or_null(checks.jit_compiler)},
        {"jit_nvcc_matches_torch", bool_or_null(checks.jit_nvcc_matches_torch)},
        {"shm_sufficient", bool_or_null(checks.shm_sufficient)},
    };
    json advice = json::array();
    for (const Advice& item : advise(facts, checks)) {
        advice.push_back({{"section", section_name(item.section)}, {"text", item.text}});
    }
    json report = {
        {"schema_version", schema_version},
        {"environment", std::move(environment)},
        {"aot", std::move(aot)},
        {"compatibility", std::move(compatibility)},
        {"ok", exit_status(checks) == 0},
        {"warnings", facts.warnings},
        {"advice", std::move(advice)},
    };
    // Replace invalid UTF-8 (a path or GPU name may hold any byte) instead of throwing.
    return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace colossalai::check
