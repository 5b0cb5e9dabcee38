#include "colossalai/python/package_info.hpp"

#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <system_error>

namespace colossalai::python {

namespace fs = std::filesystem;

namespace {

bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Parses the right-hand side of an assignment: a plain string literal, None, or anything else.
Assignment parse_value(std::string_view rhs) {
    rhs = util::trim(rhs);
    Assignment assignment{true, std::nullopt};
    if (rhs.empty()) {
        assignment.found = false;
        return assignment;
    }
    if (rhs == "None" || (util::starts_with(rhs, "None") &&
                          (rhs[4] == ' ' || rhs[4] == '\t' || rhs[4] == '#' || rhs[4] == ';'))) {
        assignment.none = true;
        return assignment;
    }
    char quote = rhs.front();
    if (quote == '\'' || quote == '"') {
        size_t end = rhs.find(quote, 1);
        if (end != std::string_view::npos) {
            assignment.value = std::string(rhs.substr(1, end - 1));
        }
    }
    // `None`, numbers, expressions: found, but no string value.
    return assignment;
}

} // namespace

Assignment find_assignment(std::string_view source, std::string_view name) {
    Assignment result;
    for (std::string_view line : util::split_lines(source)) {
        if (!util::starts_with(line, name) || line.size() == name.size() ||
            is_name_char(line[name.size()])) {
            continue; // indented, another name, or a longer name with this prefix
        }
        std::string_view rest = line.substr(name.size());
        size_t i = rest.find_first_not_of(" \t");
        if (i == std::string_view::npos) {
            continue;
        }
        rest.remove_prefix(i);
        if (rest.front() == ':') { // annotation: `name: Optional[str] = '12.1'`
            size_t equals = rest.find('=');
            if (equals == std::string_view::npos) {
                continue;
            }
            rest.remove_prefix(equals);
        }
        if (rest.size() < 2 || rest[0] != '=' || rest[1] == '=') {
            continue;
        }
        Assignment candidate = parse_value(rest.substr(1));
        if (candidate.found) {
            result = candidate;
        }
    }
    return result;
}

TorchInfo parse_torch_version_py(std::string_view source) {
    Assignment cuda = find_assignment(source, "cuda");
    return TorchInfo{find_assignment(source, "__version__").value, cuda.value, cuda.none};
}

void parse_aot_label(std::string_view version, ColossalaiInfo& info) {
    size_t plus = version.find('+');
    if (plus == std::string_view::npos) {
        return;
    }
    std::string_view label = version.substr(plus + 1);
    size_t torch = label.find("torch");
    size_t cu = label.find("cu", torch == std::string_view::npos ? 0 : torch);
    if (torch == std::string_view::npos || cu == std::string_view::npos) {
        return;
    }
    std::string torch_version(label.substr(torch + 5, cu - torch - 5));
    std::string cuda_version(label.substr(cu + 2));
    while (!cuda_version.empty() && !(cuda_version.back() >= '0' && cuda_version.back() <= '9')) {
        cuda_version.pop_back();
    }
    if (cuda_version.find('.') == std::string::npos && cuda_version.size() >= 2) {
        // cu113 -> 11.3, cu121 -> 12.1 (built anew: GCC 12 misreports insert() under -Wrestrict)
        std::string minor(1, cuda_version.back());
        cuda_version.pop_back();
        cuda_version += '.';
        cuda_version += minor;
    }
    if (!torch_version.empty()) {
        info.aot_torch = torch_version;
    }
    if (!cuda_version.empty()) {
        info.aot_cuda = cuda_version;
    }
}

ColossalaiInfo parse_colossalai_version_py(std::string_view source) {
    ColossalaiInfo info;
    info.version = find_assignment(source, "__version__").value;
    info.aot_torch = find_assignment(source, "torch").value;
    info.aot_cuda = find_assignment(source, "cuda").value;
    if (info.version) {
        parse_aot_label(*info.version, info);
    }
    return info;
}

std::optional<std::string> parse_metadata_version(std::string_view metadata) {
    for (std::string_view line : util::split_lines(metadata)) {
        if (line.empty()) {
            break; // end of the headers; the description follows
        }
        if (util::starts_with(line, "Version:")) {
            std::string_view value = util::trim(line.substr(8));
            if (!value.empty()) {
                return std::string(value);
            }
        }
    }
    return std::nullopt;
}

namespace {

std::optional<std::string> read_dist_info_version(const fs::path& package_dir) {
    std::error_code ec;
    std::string prefix = package_dir.filename().string() + "-";
    for (const auto& entry : fs::directory_iterator(package_dir.parent_path(), ec)) {
        std::string name = entry.path().filename().string();
        if (!util::starts_with(name, prefix) || !name.ends_with(".dist-info")) {
            continue;
        }
        if (auto metadata = util::read_file(entry.path() / "METADATA", 1024 * 1024)) {
            if (auto version = parse_metadata_version(*metadata)) {
                return version;
            }
        }
    }
    return std::nullopt;
}

} // namespace

ColossalaiInfo read_colossalai_info(const fs::path& package_dir) {
    ColossalaiInfo info;
    if (auto source = util::read_file(package_dir / "version.py", 1024 * 1024)) {
        info = parse_colossalai_version_py(*source);
    }
    if (!info.version) {
        info.version = read_dist_info_version(package_dir);
        if (info.version) {
            parse_aot_label(*info.version, info);
        }
    }
    return info;
}

TorchInfo read_torch_info(const fs::path& package_dir) {
    TorchInfo info;
    if (auto source = util::read_file(package_dir / "version.py", 1024 * 1024)) {
        info = parse_torch_version_py(*source);
    }
    if (!info.version) {
        info.version = read_dist_info_version(package_dir);
    }
    return info;
}

} // namespace colossalai::python
