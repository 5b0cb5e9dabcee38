// libFuzzer target: torch/version.py, colossalai/version.py, dist-info METADATA, .pth files and
// editable finders, and the version rules applied to whatever they yield.

#include "fuzz_support.hpp"

#include "colossalai/python/distributions.hpp"
#include "colossalai/python/package_info.hpp"
#include "colossalai/util/version.hpp"

#include <cstddef>
#include <cstdint>

namespace {

void exercise(const std::optional<std::string>& text) {
    if (!text) {
        return;
    }
    auto version = colossalai::util::parse_version(*text);
    if (version) {
        (void)colossalai::util::compatible(*version, *version);
    }
    (void)colossalai::util::normalize_release(*text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    colossalai::python::TorchInfo torch = colossalai::python::parse_torch_version_py(text);
    exercise(torch.version);
    exercise(torch.cuda);
    colossalai::python::ColossalaiInfo info = colossalai::python::parse_colossalai_version_py(text);
    exercise(info.version);
    exercise(info.aot_torch);
    exercise(info.aot_cuda);
    exercise(colossalai::python::parse_metadata_version(text));
    for (const std::string& module : colossalai::python::parse_pth_imports(text)) {
        colossalai::fuzz::require(!module.empty() && text.find(module) != std::string_view::npos,
                                  "an imported module that is not in the .pth text");
    }
    (void)colossalai::python::parse_editable_mapping(text, "colossalai");
    (void)colossalai::python::normalize_project_name(text);
    return 0;
}
