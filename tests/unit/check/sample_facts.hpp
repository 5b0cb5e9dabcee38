#pragma once

// A fact set with every value known, shared by the rendering tests.

#include "colossalai/check/facts.hpp"
#include "colossalai/check/rules.hpp"

namespace colossalai::check::sample {

inline Facts everything_known() {
    Facts facts;
    facts.python = "/venv/bin/python3";
    facts.python_version = "3.10.12";
    facts.colossalai_version = "0.2.5";
    facts.torch_version = "1.13.1";
    facts.torch_cuda = "11.7";
    facts.cuda_home = "/usr/local/cuda-11.7";
    facts.system_cuda = "11.7";
    facts.aot_extension = true;
    facts.aot_torch = "1.13";
    facts.aot_cuda = "11.7";
    facts.driver_cuda = "12.4";
    facts.gpus = std::vector<Gpu>{{"NVIDIA H100 80GB HBM3", "9.0"}, {"NVIDIA A100-SXM4-40GB", {}}};
    return facts;
}

// The four checks of the original report set, every other check N/A.
inline Checks checks(std::optional<bool> torch_version, std::optional<bool> system_torch_cuda,
                     std::optional<bool> system_colossalai_cuda, std::optional<bool> driver) {
    Checks checks;
    checks.torch_version_match = torch_version;
    checks.system_torch_cuda_match = system_torch_cuda;
    checks.system_colossalai_cuda_match = system_colossalai_cuda;
    checks.driver_supports_torch_cuda = driver;
    return checks;
}

} // namespace colossalai::check::sample
