#include "colossalai/python/distributions.hpp"

#include "colossalai/python/package_info.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <system_error>

namespace colossalai::python {

namespace fs = std::filesystem;

namespace {

constexpr size_t max_source = 1024 * 1024;

bool is_module_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
}

// Reads a Python string literal starting at text[0] (a quote); returns it and moves `text`
// past it. nullopt when `text` does not start with a complete literal.
std::optional<std::string> take_string_literal(std::string_view& text) {
    if (text.empty() || (text.front() != '\'' && text.front() != '"')) {
        return std::nullopt;
    }
    char quote = text.front();
    std::string value;
    for (size_t i = 1; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            char next = text[i + 1];
            if (next == '\\' || next == '\'' || next == '"') {
                value += next;
                ++i;
                continue;
            }
        }
        if (c == quote) {
            text.remove_prefix(i + 1);
            return value;
        }
        value += c;
    }
    return std::nullopt;
}

void skip_blanks(std::string_view& text) {
    size_t i = text.find_first_not_of(" \t\r\n");
    text.remove_prefix(i == std::string_view::npos ? text.size() : i);
}

// The `.pth` files of `dir`, sorted by name as site.addsitedir() reads them.
std::vector<fs::path> pth_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".pth" && entry.is_regular_file(ec)) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool is_package_dir(const fs::path& dir) {
    std::error_code ec;
    return fs::is_directory(dir, ec) && (fs::is_regular_file(dir / "__init__.py", ec) ||
                                         fs::is_regular_file(dir / "version.py", ec));
}

} // namespace

std::vector<std::string> parse_pth_imports(std::string_view pth) {
    std::vector<std::string> modules;
    for (std::string_view line : util::split_lines(pth)) {
        if (!util::starts_with(line, "import ") && !util::starts_with(line, "import\t")) {
            continue; // site.py executes only lines starting with `import`
        }
        size_t start = 0;
        while (start <= line.size()) {
            size_t end = line.find(';', start);
            std::string_view statement =
                util::trim(line.substr(start, end == std::string_view::npos ? end : end - start));
            if (util::starts_with(statement, "import") && statement.size() > 6 &&
                (statement[6] == ' ' || statement[6] == '\t')) {
                std::string_view name = util::trim(statement.substr(7));
                if (!name.empty() && std::all_of(name.begin(), name.end(), is_module_char)) {
                    modules.emplace_back(name);
                }
            }
            if (end == std::string_view::npos) {
                break;
            }
            start = end + 1;
        }
    }
    return modules;
}

std::optional<fs::path> parse_editable_mapping(std::string_view finder_source,
                                               std::string_view package) {
    for (std::string_view line : util::split_lines(finder_source)) {
        // `MAPPING: dict[str, str] = {...}` (setuptools >= 64) or `MAPPING = {...}`.
        if (!util::starts_with(line, "MAPPING") || line.size() == 7 ||
            (line[7] != ' ' && line[7] != ':' && line[7] != '=')) {
            continue;
        }
        size_t open = line.find('{');
        if (open == std::string_view::npos) {
            continue;
        }
        std::string_view rest = line.substr(open + 1);
        while (true) {
            skip_blanks(rest);
            std::optional<std::string> key = take_string_literal(rest);
            if (!key) {
                break;
            }
            skip_blanks(rest);
            if (rest.empty() || rest.front() != ':') {
                break;
            }
            rest.remove_prefix(1);
            skip_blanks(rest);
            std::optional<std::string> value = take_string_literal(rest);
            if (!value) {
                break;
            }
            if (*key == package) {
                return fs::path(*value);
            }
            skip_blanks(rest);
            if (rest.empty() || rest.front() != ',') {
                break;
            }
            rest.remove_prefix(1);
        }
    }
    return std::nullopt;
}

std::optional<fs::path> find_editable_package(const Environment& environment,
                                              std::string_view package) {
    SearchFiles files;
    files.pth_files = pth_files;
    files.read = [](const fs::path& path) { return util::read_file(path, max_source); };
    files.is_package_dir = is_package_dir;
    return find_editable_package(environment.search_path, package, files);
}

std::optional<fs::path> find_editable_package(const std::vector<fs::path>& search_path,
                                              std::string_view package, const SearchFiles& files) {
    for (const fs::path& dir : search_path) {
        for (const fs::path& pth : files.pth_files(dir)) {
            std::optional<std::string> text = files.read(pth);
            if (!text) {
                continue;
            }
            for (const std::string& module : parse_pth_imports(*text)) {
                if (!util::starts_with(module, "__editable__") ||
                    module.find('.') != std::string::npos) {
                    continue;
                }
                for (const fs::path& where : search_path) {
                    std::optional<std::string> source = files.read(where / (module + ".py"));
                    if (!source) {
                        continue;
                    }
                    std::optional<fs::path> mapped = parse_editable_mapping(*source, package);
                    if (mapped && files.is_package_dir(*mapped)) {
                        return mapped;
                    }
                    break; // the import finds the first module of that name only
                }
            }
        }
    }
    return std::nullopt;
}

std::string normalize_project_name(std::string_view name) {
    std::string out;
    for (char c : name) {
        bool separator = c == '-' || c == '_' || c == '.';
        if (separator) {
            if (out.empty() || out.back() != '_') {
                out += '_';
            }
        } else {
            out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        }
    }
    return out;
}

std::optional<Distribution>
find_distribution(const Environment& environment,
                  const std::function<bool(std::string_view name)>& matches) {
    std::error_code ec;
    for (const fs::path& dir : environment.search_path) {
        std::vector<fs::path> candidates;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            std::string file = entry.path().filename().string();
            if (!file.ends_with(".dist-info")) {
                continue;
            }
            std::string stem = file.substr(0, file.size() - 10);
            std::string name = normalize_project_name(stem.substr(0, stem.find('-')));
            if (matches(name)) {
                candidates.push_back(entry.path());
            }
        }
        std::sort(candidates.begin(), candidates.end());
        for (const fs::path& dist_info : candidates) {
            Distribution distribution;
            distribution.dist_info = dist_info;
            std::string file = dist_info.filename().string();
            distribution.name = file.substr(0, file.find('-'));
            if (auto metadata = util::read_file(dist_info / "METADATA", max_source)) {
                distribution.version = parse_metadata_version(*metadata);
            }
            return distribution;
        }
    }
    return std::nullopt;
}

} // namespace colossalai::python
