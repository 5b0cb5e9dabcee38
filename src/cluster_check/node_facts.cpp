#include "colossalai/check/cuda.hpp"
#include "colossalai/check/packages.hpp"
#include "colossalai/check/system.hpp"
#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/python/distributions.hpp"
#include "colossalai/python/environment.hpp"
#include "colossalai/python/package_info.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"
#include "colossalai/util/version.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>

// Reading a node's answer (the Dump) into the facts the local check reports, by the local
// check's own rules; the program that produces the answer is in node_probe.cpp.
namespace colossalai::cluster_check {

namespace fs = std::filesystem;

namespace {

// The section's first line, without its newline; nullopt when absent or empty.
std::optional<std::string> first_line(const Dump& dump, std::string_view name) {
    const Dump::Section* section = dump.find(name);
    if (section == nullptr) {
        return std::nullopt;
    }
    std::string line = section->body.substr(0, section->body.find('\n'));
    if (line.empty()) {
        return std::nullopt;
    }
    return line;
}

// The release a libnccl file name carries ("libnccl.so.2.18.3" -> "2.18.3"), as
// check::find_library takes it: `libnccl.so.2` is the soname, no release.
std::optional<std::string> nccl_release(std::string_view file_name) {
    auto version = check::library_file_version(file_name, "libnccl.so");
    if (!version || version->find('.') == std::string::npos) {
        return std::nullopt;
    }
    return version;
}

// True when version `a` orders before `b` (unparsable versions order first).
bool older(const std::string& a, const std::string& b) {
    return util::parse_version(a) < util::parse_version(b);
}

// The lines of a listing, without empty ones.
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines = util::split_lines(text);
    std::erase_if(lines, [](std::string_view line) { return line.empty(); });
    return lines;
}

// The node's interpreter's answer to the sys.path query, parsed as locally.
std::optional<python::Environment> environment_of(const Dump& dump,
                                                  const std::string& interpreter) {
    const Dump::Section* sys = dump.find("sys");
    std::string answer = sys != nullptr ? sys->body : std::string();
    if (!answer.empty() && answer.back() == '\n') {
        answer.pop_back();
    }
    std::replace(answer.begin(), answer.end(), '\n', '\0');
    return python::parse_probe_output(interpreter, answer);
}

void read_python(const Dump& dump, check::Facts& facts) {
    std::optional<std::string> interpreter = first_line(dump, "python");
    if (!interpreter) {
        facts.warnings.push_back(
            "no python3 or python in the node's PATH (use --python PATH); Python values are N/A");
        return;
    }
    facts.python = *interpreter;
    std::optional<python::Environment> environment = environment_of(dump, *interpreter);
    if (!environment) {
        facts.warnings.push_back(fmt::format(
            "{}: no answer to the sys.path query; Python values are N/A", *interpreter));
        return;
    }
    facts.python_version = environment->version;
}

void read_torch(const Dump& dump, check::Facts& facts) {
    // The package directory: the node found torch there (an answer without it counts as none).
    std::optional<std::string> torch = first_line(dump, "torch");
    if (!torch) {
        return;
    }
    const Dump::Section* source = dump.find("torch_version_py");
    check::apply_torch_info(python::parse_torch_version_py(source ? source->body : ""), facts);
    if (facts.torch_cpu_only) {
        return;
    }
    // As check::read_torch_nccl: a versioned library in torch/lib, else nvidia-nccl-cu*.
    std::optional<std::string> bundled;
    std::string bundled_file;
    if (const Dump::Section* lib = dump.find("torch_lib")) {
        for (std::string_view name : lines_of(lib->body)) {
            auto version = nccl_release(name);
            if (version && (!bundled || older(*bundled, *version))) {
                bundled = version;
                bundled_file = *torch + "/lib/" + std::string(name);
            }
        }
    }
    if (bundled) {
        facts.torch_nccl = bundled;
        facts.torch_nccl_source = bundled_file;
        return;
    }
    if (const Dump::Section* package = dump.find("nccl_package")) {
        if (auto version = python::parse_metadata_version(package->body)) {
            facts.torch_nccl = version;
            // .../nvidia_nccl_cu12-2.20.5.dist-info/METADATA -> nvidia-nccl-cu12
            std::string name = fs::path(package->argument).parent_path().filename().string();
            name = name.substr(0, name.find('-'));
            std::replace(name.begin(), name.end(), '_', '-');
            facts.torch_nccl_source = name;
        }
    }
}

// The sections of an editable Colossal-AI (PEP 660): the package directory that the node's `.pth`
// files and finder modules map `colossalai` to, by the local check's own rules
// (python::find_editable_package), among those the node sent (`editableK_J DIR`); returns the
// name suffix of its sections (`_version` and `_c` follow it), or nullopt.
std::optional<std::string> editable_colossalai(const Dump& dump) {
    std::optional<std::string> interpreter = first_line(dump, "python");
    std::optional<python::Environment> environment =
        interpreter ? environment_of(dump, *interpreter) : std::nullopt;
    if (!environment) {
        return std::nullopt;
    }
    std::map<fs::path, std::vector<fs::path>> pth_by_dir;
    std::map<fs::path, const std::string*> files;
    std::map<fs::path, std::string> packages; // package directory -> its sections' suffix
    for (const auto& [name, section] : dump.sections) {
        if (util::starts_with(name, "pth") || util::starts_with(name, "finder")) {
            files[fs::path(section.argument)] = &section.body;
        }
        if (util::starts_with(name, "pth")) {
            pth_by_dir[fs::path(section.argument).parent_path()].push_back(section.argument);
        }
        if (name.size() > 8 && util::starts_with(name, "editable") && name[8] >= '0' &&
            name[8] <= '9') {
            packages[fs::path(section.argument)] = name.substr(8);
        }
    }
    python::SearchFiles search;
    search.pth_files = [&](const fs::path& dir) {
        std::vector<fs::path> found = pth_by_dir[dir];
        std::sort(found.begin(), found.end());
        return found;
    };
    search.read = [&](const fs::path& path) -> std::optional<std::string> {
        auto it = files.find(path);
        return it == files.end() ? std::nullopt : std::optional<std::string>(*it->second);
    };
    search.is_package_dir = [&](const fs::path& dir) { return packages.contains(dir); };
    std::optional<fs::path> found =
        python::find_editable_package(environment->search_path, "colossalai", search);
    return found ? std::optional<std::string>(packages.at(*found)) : std::nullopt;
}

void read_colossalai(const Dump& dump, check::Facts& facts) {
    std::string version_section = "colossalai_version_py";
    std::string extensions_section = "colossalai_c";
    if (!first_line(dump, "colossalai")) {
        // The import system's path finder comes first; editable finders after it.
        std::optional<std::string> editable = editable_colossalai(dump);
        if (!editable) {
            return;
        }
        version_section = "editable_version" + *editable;
        extensions_section = "editable_c" + *editable;
    }
    const Dump::Section* source = dump.find(version_section);
    python::ColossalaiInfo info = python::parse_colossalai_version_py(source ? source->body : "");
    if (!info.version) {
        if (const Dump::Section* metadata = dump.find("colossalai_metadata")) {
            info.version = python::parse_metadata_version(metadata->body);
            if (info.version) {
                python::parse_aot_label(*info.version, info);
            }
        }
    }
    const Dump::Section* extensions = dump.find(extensions_section);
    bool has_extension = extensions != nullptr && !lines_of(extensions->body).empty();
    check::apply_colossalai_info(info, has_extension, facts);
}

void read_system(const Dump& dump, check::Facts& facts) {
    facts.cuda_home = first_line(dump, "cuda_home");
    if (facts.cuda_home) {
        const Dump::Section* nvcc = dump.find("nvcc");
        facts.system_cuda = check::parse_nvcc_release(nvcc != nullptr ? nvcc->body : "");
        if (!facts.system_cuda) {
            facts.warnings.push_back(
                fmt::format("{}/bin/nvcc -V gave no CUDA release; System CUDA version is N/A",
                            *facts.cuda_home));
        }
    }
    if (const Dump::Section* nccl = dump.find("system_nccl")) {
        for (std::string_view path : lines_of(nccl->body)) {
            std::string name = fs::path(path).filename().string();
            auto version = nccl_release(name);
            if (!facts.system_nccl_library ||
                (version && (!facts.system_nccl || older(*facts.system_nccl, *version)))) {
                facts.system_nccl_library = std::string(path);
                if (version) {
                    facts.system_nccl = version;
                }
            }
        }
    }
    if (const Dump::Section* header = dump.find("nccl_header");
        header != nullptr && facts.system_nccl_library && !facts.system_nccl) {
        // As the local probe: a libnccl.so.2 without a full version, nccl.h beside it.
        facts.system_nccl = check::parse_nccl_header(header->body);
    }
    if (const Dump::Section* shm = dump.find("shm")) {
        facts.shm_bytes = parse_df_size(shm->body);
    }
    if (facts.aot_extension == false) {
        facts.jit_tools_probed = true;
        facts.ninja = first_line(dump, "ninja");
        facts.cxx = first_line(dump, "cxx");
    }
    if (const Dump::Section* gpus = dump.find("gpus")) {
        facts.gpus = parse_gpu_csv(gpus->body);
    }
    if (const Dump::Section* smi = dump.find("smi")) {
        facts.driver_cuda = parse_smi_cuda_version(smi->body);
    }
}

} // namespace

check::Facts facts_from_dump(const Dump& dump) {
    check::Facts facts;
    read_python(dump, facts);
    read_torch(dump, facts);
    read_colossalai(dump, facts);
    read_system(dump, facts);
    if (!dump.complete) {
        facts.warnings.push_back("the node's answer ended early; missing values are N/A");
    }
    return facts;
}

std::optional<std::vector<check::Gpu>> parse_gpu_csv(std::string_view csv) {
    std::vector<check::Gpu> gpus;
    for (std::string_view line : lines_of(csv)) {
        size_t comma = line.rfind(',');
        if (comma == std::string_view::npos) {
            continue;
        }
        check::Gpu gpu;
        gpu.name = util::trim(line.substr(0, comma));
        std::string_view cc = util::trim(line.substr(comma + 1));
        if (gpu.name.empty()) {
            continue;
        }
        if (!cc.empty() && cc.find('.') != std::string_view::npos &&
            cc.find_first_not_of("0123456789.") == std::string_view::npos) {
            gpu.compute_capability = std::string(cc);
        }
        gpus.push_back(std::move(gpu));
    }
    if (gpus.empty()) {
        return std::nullopt;
    }
    return gpus;
}

std::optional<std::string> parse_smi_cuda_version(std::string_view text) {
    constexpr std::string_view label = "CUDA Version:";
    size_t at = text.find(label);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view rest = util::trim(text.substr(at + label.size()));
    size_t end = rest.find_first_not_of("0123456789.");
    std::string_view version = rest.substr(0, end);
    if (version.empty() || version.find('.') == std::string_view::npos) {
        return std::nullopt;
    }
    return std::string(version);
}

std::optional<std::uint64_t> parse_df_size(std::string_view text) {
    std::vector<std::string_view> lines = lines_of(text);
    if (lines.size() < 2) {
        return std::nullopt;
    }
    std::string_view line = lines[1];
    // Filesystem 1024-blocks Used Available Capacity Mounted-on: the second field.
    size_t first_end = line.find_first_of(" \t");
    if (first_end == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view rest = util::trim(line.substr(first_end));
    std::string_view blocks = rest.substr(0, rest.find_first_of(" \t"));
    std::optional<std::uint64_t> kib = util::parse_integer<std::uint64_t>(blocks);
    if (!kib) {
        return std::nullopt;
    }
    return *kib * 1024;
}

} // namespace colossalai::cluster_check
