#pragma once

#include "colossalai/check/facts.hpp"
#include "colossalai/python/environment.hpp"
#include "colossalai/python/package_info.hpp"

#include <filesystem>

namespace colossalai::check {

// Puts what torch/version.py said into `facts`: the version without `+local` and with at most
// three components, the CUDA version as written, and whether it is a CPU-only build.
void apply_torch_info(const python::TorchInfo& info, Facts& facts);

// Puts what colossalai/version.py (or METADATA) said into `facts`: the version without `+local`,
// the AOT build versions, and `has_extension` as the "Found AOT CUDA Extension" value.
void apply_colossalai_info(const python::ColossalaiInfo& info, bool has_extension, Facts& facts);

// True when `dir` (colossalai/_C) holds at least one compiled extension module: a regular file
// whose name ends in ".so" ("fused_optim.cpython-311-x86_64-linux-gnu.so").
bool has_compiled_extension(const std::filesystem::path& dir);

// Finds torch and colossalai in `environment` and reads their files into `facts`.
void read_packages(const python::Environment& environment, Facts& facts);

} // namespace colossalai::check
