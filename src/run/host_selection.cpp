#include "colossalai/run/host_selection.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace colossalai::run {

namespace {

// A spelling that reads two ways in DeepSpeed's form: always an error, whatever the host list
// form makes of the text.
class AmbiguousSpelling : public Error {
public:
    explicit AmbiguousSpelling(Error error) : Error(std::move(error)) {}
};

// Whether `text` has the shape of a GPU list ("0,1", "", "0,,1"), so that a ':' before it
// starts one rather than belonging to an IPv6 address.
bool looks_like_gpu_list(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return util::is_ascii_digit(c) || c == ','; });
}

// The GPU indices after `host:`.
std::vector<int> parse_gpu_list(std::string_view list, std::string_view host,
                                std::string_view option) {
    if (list.empty()) {
        throw usage_error("{} '{}:': no GPU index after ':' (write '{}:0,1', or '{}' for all "
                          "its GPUs)",
                          option, host, host, host);
    }
    std::vector<int> gpus;
    for (const std::string& item : util::split(list, ',')) {
        bool digits = !item.empty() && item.size() <= 5 &&
                      std::all_of(item.begin(), item.end(), util::is_ascii_digit);
        int index = digits ? *util::parse_integer<int>(item) : -1;
        if (index < 0 || index > max_gpu_index) {
            throw usage_error("{} '{}:{}': '{}' is not a GPU index (0-{})", option, host,
                              util::escape_for_message(list), util::escape_for_message(item),
                              max_gpu_index);
        }
        if (std::find(gpus.begin(), gpus.end(), index) != gpus.end()) {
            throw usage_error("{} '{}:{}': GPU {} is named twice", option, host,
                              util::escape_for_message(list), index);
        }
        gpus.push_back(index);
    }
    return gpus;
}

std::optional<Host> try_host(std::string_view text) {
    try {
        return parse_host(text, "");
    } catch (const Error&) {
        return std::nullopt;
    }
}

// One node of DeepSpeed's form: HOST or HOST:I[,I...]; an IPv6 address bare or in brackets.
NodeSpec parse_node_spec(std::string_view spec, std::string_view option) {
    if (!spec.empty() && spec.front() == '[') {
        size_t close = spec.find(']');
        if (close == std::string_view::npos) {
            parse_host(spec, option); // throws: no closing bracket
        }
        Host host = parse_host(spec.substr(0, close + 1), option);
        std::string_view rest = spec.substr(close + 1);
        if (rest.empty()) {
            return {std::move(host), std::nullopt};
        }
        if (rest.front() != ':') {
            throw usage_error("{}: invalid node '{}': only ':' and GPU indices may follow ']'",
                              option, util::escape_for_message(spec));
        }
        std::vector<int> gpus = parse_gpu_list(rest.substr(1), host.name, option);
        return {std::move(host), std::move(gpus)};
    }
    size_t colon = spec.rfind(':');
    if (colon == std::string_view::npos) {
        return {parse_host(spec, option), std::nullopt};
    }
    std::string_view name = spec.substr(0, colon);
    std::string_view list = spec.substr(colon + 1);
    std::optional<Host> whole = try_host(spec); // a bare IPv6 address
    std::optional<Host> named = looks_like_gpu_list(list) ? try_host(name) : std::nullopt;
    if (whole && named) {
        throw AmbiguousSpelling(usage_error(
            "{} '{}' reads two ways: the IPv6 address '{}' (write '[{}]'), or the host '{}' "
            "with GPUs {} (write '[{}]:{}')",
            option, spec, spec, spec, name, list, name, list));
    }
    if (whole) {
        return {std::move(*whole), std::nullopt};
    }
    if (named) {
        std::vector<int> gpus = parse_gpu_list(list, name, option);
        return {std::move(*named), std::move(gpus)};
    }
    // Neither: the likelier problem is the host's.
    parse_host(looks_like_gpu_list(list) ? name : spec, option);
    throw usage_error("{}: invalid node '{}'", option, util::escape_for_message(spec));
}

// DeepSpeed's NODE[@NODE...].
std::vector<NodeSpec> parse_deepspeed_form(std::string_view text, std::string_view option) {
    if (util::trim(text).empty()) {
        throw usage_error("{}: empty host list", option);
    }
    std::vector<NodeSpec> nodes;
    std::map<std::string, std::string> seen; // machine -> the name that named it
    for (const std::string& piece : util::split(text, '@')) {
        std::string_view spec = util::trim(piece);
        if (spec.empty()) {
            throw usage_error("{} '{}': empty node between '@'s (write 'w0@w1:0,1')", option,
                              util::escape_for_message(text));
        }
        NodeSpec node = parse_node_spec(spec, option);
        auto [it, inserted] = seen.emplace(node.host.machine, node.host.name);
        if (!inserted) {
            throw usage_error("{}: duplicate host '{}'{}", option, node.host.name,
                              it->second == node.host.name
                                  ? std::string()
                                  : fmt::format(" (the same machine as '{}')", it->second));
        }
        nodes.push_back(std::move(node));
    }
    return nodes;
}

std::vector<NodeSpec> whole_hosts(std::vector<Host> hosts) {
    std::vector<NodeSpec> nodes;
    nodes.reserve(hosts.size());
    for (Host& host : hosts) {
        nodes.push_back({std::move(host), std::nullopt});
    }
    return nodes;
}

} // namespace

HostSelection::HostSelection(std::vector<Host> hosts) {
    std::vector<std::string_view> names;
    for (const Host& host : hosts) {
        names.push_back(host.name);
    }
    text = fmt::format("{}", fmt::join(names, ","));
    readings.push_back(whole_hosts(std::move(hosts)));
}

bool HostSelection::names_gpus() const {
    return std::any_of(readings.begin(), readings.end(), [](const std::vector<NodeSpec>& nodes) {
        return std::any_of(nodes.begin(), nodes.end(),
                           [](const NodeSpec& node) { return node.gpus.has_value(); });
    });
}

HostSelection parse_host_selection(std::string_view text, std::string_view option) {
    std::optional<std::vector<NodeSpec>> list;
    std::optional<std::vector<NodeSpec>> deepspeed;
    std::optional<Error> list_error;
    std::optional<Error> deepspeed_error;
    try {
        list = whole_hosts(parse_host_list(text, option));
    } catch (const Error& error) {
        list_error = error;
    }
    try {
        deepspeed = parse_deepspeed_form(text, option);
    } catch (const AmbiguousSpelling&) {
        throw;
    } catch (const Error& error) {
        deepspeed_error = error;
    }
    HostSelection selection;
    selection.text = std::string(text);
    if (!list && !deepspeed) {
        // DeepSpeed's message where only its form gives ':' or '@' a meaning of their own.
        bool deepspeed_like = text.find_first_of(":@") != std::string_view::npos;
        throw deepspeed_like ? *deepspeed_error : *list_error;
    }
    if (list && deepspeed && *list != *deepspeed) {
        if (text.find('@') == std::string_view::npos) {
            // A ',' inside DeepSpeed's GPU list, or between bare IPv6 addresses.
            throw usage_error("{} '{}' reads two ways: the hosts {}, or {} (DeepSpeed's "
                              "HOST:GPUS); write an IPv6 address in brackets ('[::1]:0,1')",
                              option, util::escape_for_message(text), describe_reading(*list),
                              describe_reading(*deepspeed));
        }
        // `alice@h1`: the hosts of the pool decide (select_hosts).
        selection.readings = {std::move(*list), std::move(*deepspeed)};
        return selection;
    }
    selection.readings.push_back(list ? std::move(*list) : std::move(*deepspeed));
    return selection;
}

std::string describe_reading(const std::vector<NodeSpec>& reading) {
    std::vector<std::string> nodes;
    for (const NodeSpec& node : reading) {
        std::string& text = nodes.emplace_back(fmt::format("'{}'", node.host.name));
        if (node.gpus) {
            text += fmt::format(" (GPU{} {})", node.gpus->size() == 1 ? "" : "s",
                                render_gpus(*node.gpus));
        }
    }
    return fmt::format("{}", fmt::join(nodes, ", "));
}

std::string render_gpus(const std::vector<int>& gpus) {
    return fmt::format("{}", fmt::join(gpus, ","));
}

} // namespace colossalai::run
