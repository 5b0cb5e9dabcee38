#include "colossalai/run/elastic.hpp"

#include "colossalai/run/master.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <random>

namespace colossalai::run {

namespace {

constexpr std::array backends{
    std::pair{RdzvBackend::static_tcp, std::string_view("static")},
    std::pair{RdzvBackend::c10d, std::string_view("c10d")},
    std::pair{RdzvBackend::etcd, std::string_view("etcd")},
    std::pair{RdzvBackend::etcd_v2, std::string_view("etcd-v2")},
};

} // namespace

NodeRange parse_node_range(std::string_view text, std::string_view option) {
    auto fail = [&](std::string_view why) {
        return usage_error("{} '{}': {}", option, util::escape_for_message(text), why);
    };
    size_t colon = text.find(':');
    std::optional<int> min = parse_positive_int(text.substr(0, colon));
    std::optional<int> max =
        colon == std::string_view::npos ? min : parse_positive_int(text.substr(colon + 1));
    if (!min || !max) {
        throw fail("expected N or MIN:MAX, positive numbers of nodes");
    }
    if (*min > *max) {
        throw fail("MIN is greater than MAX");
    }
    return {*min, *max};
}

std::string to_string(const NodeRange& range) {
    return range.elastic() ? fmt::format("{}:{}", range.min, range.max) : std::to_string(range.min);
}

RdzvBackend parse_rdzv_backend(std::string_view text, std::string_view option) {
    auto it = std::find_if(backends.begin(), backends.end(), [&](const auto& entry) {
        // torchrun's registry knows etcd-v2 by that name only.
        return entry.second == text;
    });
    if (it == backends.end()) {
        throw usage_error("{} '{}': expected c10d, static, etcd or etcd-v2", option,
                          util::escape_for_message(text));
    }
    return it->first;
}

std::string_view to_string(RdzvBackend backend) {
    auto it = std::find_if(backends.begin(), backends.end(),
                           [&](const auto& entry) { return entry.first == backend; });
    return it->second;
}

RdzvEndpoint parse_rdzv_endpoint(std::string_view text, std::string_view option) {
    std::string shown = util::escape_for_message(text);
    size_t colon = text.rfind(':');
    bool bracketed = !text.empty() && text.front() == '[';
    if (colon == std::string_view::npos || (bracketed && text[colon - 1] != ']')) {
        throw usage_error("{} '{}': expected HOST:PORT (the port is required)", option, shown);
    }
    std::string_view host = text.substr(0, colon);
    if (!bracketed && host.find(':') != std::string_view::npos) {
        throw usage_error("{} '{}': write an IPv6 address in brackets: [ADDRESS]:PORT", option,
                          shown);
    }
    std::optional<int> port = parse_positive_int(text.substr(colon + 1));
    if (!port || *port > 65535) {
        throw usage_error("{} '{}': not a port number (1..65535) after the last ':'", option,
                          shown);
    }
    if (host.empty()) {
        throw usage_error("{} '{}': no host before the port", option, shown);
    }
    return {parse_master_address(host, option).host, *port};
}

std::string to_string(const RdzvEndpoint& endpoint) {
    bool ipv6 = endpoint.host.find(':') != std::string::npos;
    return ipv6 ? fmt::format("[{}]:{}", endpoint.host, endpoint.port)
                : fmt::format("{}:{}", endpoint.host, endpoint.port);
}

std::string parse_rdzv_id(std::string_view text, std::string_view option) {
    bool valid =
        !text.empty() && text.size() <= 128 && std::all_of(text.begin(), text.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '_' || c == '.';
        });
    if (!valid) {
        throw usage_error("{} '{}': expected 1 to 128 letters, digits, '-', '_' or '.'", option,
                          util::escape_for_message(text));
    }
    return std::string(text);
}

int parse_max_restarts(std::string_view text, std::string_view option) {
    if (text == "0") {
        return 0;
    }
    std::optional<int> value = parse_positive_int(text);
    if (!value) {
        throw usage_error("{} '{}': not a number of restarts (0 or more)", option,
                          util::escape_for_message(text));
    }
    return *value;
}

std::string fresh_rdzv_id() {
    std::random_device random;
    std::uniform_int_distribution<unsigned> digit(0, 15);
    std::string id = "colossalai-";
    for (int i = 0; i < 16; ++i) {
        id += "0123456789abcdef"[digit(random)];
    }
    return id;
}

ElasticOptions take_extra_elastic(std::vector<LaunchArg>& args) {
    ElasticOptions elastic;
    auto take = [&]<typename T>(std::optional<T>& field, std::string_view name, auto parse) {
        for (const LaunchArg& arg : args) {
            if (!same_option(arg.name, name)) {
                continue;
            }
            if (field) {
                throw usage_error("--extra_launch_args: '{}' is given twice", name);
            }
            field = parse(arg.value.value_or(""), fmt::format("--extra_launch_args {}", name));
        }
        std::erase_if(args, [&](const LaunchArg& arg) { return same_option(arg.name, name); });
    };
    take(elastic.max_restarts, "max_restarts", parse_max_restarts);
    take(elastic.rdzv_backend, "rdzv_backend", parse_rdzv_backend);
    take(elastic.rdzv_endpoint, "rdzv_endpoint", parse_rdzv_endpoint);
    take(elastic.rdzv_id, "rdzv_id", parse_rdzv_id);
    return elastic;
}

} // namespace colossalai::run
