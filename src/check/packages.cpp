#include "colossalai/check/packages.hpp"

#include "colossalai/check/system.hpp"
#include "colossalai/python/distributions.hpp"
#include "colossalai/util/version.hpp"

#include <algorithm>
#include <system_error>

namespace colossalai::check {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> non_empty(std::optional<std::string> text) {
    if (text && text->empty()) {
        return std::nullopt;
    }
    return text;
}

} // namespace

void apply_torch_info(const python::TorchInfo& info, Facts& facts) {
    facts.torch_version =
        info.version ? non_empty(util::normalize_release(*info.version)) : std::nullopt;
    facts.torch_cuda = non_empty(info.cuda);
    facts.torch_cpu_only = info.cpu_only;
}

void apply_colossalai_info(const python::ColossalaiInfo& info, bool has_extension, Facts& facts) {
    if (info.version) {
        facts.colossalai_version = non_empty(info.version->substr(0, info.version->find('+')));
    }
    facts.aot_torch = non_empty(info.aot_torch);
    facts.aot_cuda = non_empty(info.aot_cuda);
    facts.aot_extension = has_extension;
}

bool has_compiled_extension(const fs::path& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".so" && entry.is_regular_file(ec)) {
            return true;
        }
    }
    return false;
}

void read_torch_nccl(const python::Environment& environment, const fs::path& torch, Facts& facts) {
    // A library bundled in torch/lib is what libtorch_cuda's RPATH ($ORIGIN) loads first.
    if (auto bundled = find_library({torch / "lib"}, "libnccl.so"); bundled && bundled->version) {
        facts.torch_nccl = bundled->version;
        facts.torch_nccl_source = bundled->path.string();
        return;
    }
    // Wheels since PyTorch 2.0 (CUDA 11.7+) depend on nvidia-nccl-cuXX and preload its library.
    auto package = python::find_distribution(
        environment, [](std::string_view name) { return name.starts_with("nvidia_nccl_cu"); });
    if (package && package->version) {
        // The nvidia-nccl-cuXX METADATA Version is NCCL's own ("2.20.5").
        facts.torch_nccl = package->version;
        std::string name = package->name;
        std::replace(name.begin(), name.end(), '_', '-');
        facts.torch_nccl_source = name;
    }
}

void read_packages(const python::Environment& environment, Facts& facts) {
    if (auto torch = python::find_package(environment, "torch")) {
        apply_torch_info(python::read_torch_info(*torch), facts);
        if (!facts.torch_cpu_only) {
            read_torch_nccl(environment, *torch, facts);
        }
    }
    if (auto colossalai = python::find_package(environment, "colossalai")) {
        python::ColossalaiInfo info = python::read_colossalai_info(*colossalai);
        if (!info.version) {
            // An editable install keeps its dist-info in site-packages, not beside the sources.
            auto distribution = python::find_distribution(
                environment, [](std::string_view name) { return name == "colossalai"; });
            if (distribution && distribution->version) {
                info.version = distribution->version;
                python::parse_aot_label(*info.version, info);
            }
        }
        apply_colossalai_info(info, has_compiled_extension(*colossalai / "_C"), facts);
    }
}

} // namespace colossalai::check
