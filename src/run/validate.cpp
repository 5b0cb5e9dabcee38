#include "colossalai/run/validate.hpp"

#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::run {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Dotted Python identifiers: `pkg.train`, `müdul`. Bytes from 0x80 up are let through: Python
// identifiers may hold non-ASCII letters, which Python itself checks.
bool is_module_name(std::string_view name) {
    for (const std::string& part : util::split(name, '.')) {
        bool first_ok = !part.empty() && !(part.front() >= '0' && part.front() <= '9');
        bool chars_ok = std::all_of(part.begin(), part.end(), [](char c) {
            auto byte = static_cast<unsigned char>(c);
            return byte >= 0x80 || util::is_identifier(std::string(1, c)) || (c >= '0' && c <= '9');
        });
        if (!first_ok || !chars_ok) {
            return false;
        }
    }
    return true;
}

void check_target(const Options& options) {
    if (options.module) {
        const std::string& module = *options.module;
        if (module.empty()) {
            throw usage_error("-m needs a module name");
        }
        if (ends_with(module, ".py")) {
            throw usage_error("-m '{}': expected a module name, not a .py file (drop -m to run "
                              "a script)",
                              util::escape_for_message(module));
        }
        if (!is_module_name(module)) {
            throw usage_error("-m '{}': not a module name (dotted Python identifiers, such as "
                              "pkg.train)",
                              util::escape_for_message(module));
        }
        return;
    }
    if (!options.script) {
        throw usage_error("no script given (expected SCRIPT.py or -m MODULE)");
    }
    const std::string& script = *options.script;
    if (!ends_with(script, ".py")) {
        throw usage_error("script '{}' does not end in .py (use -m MODULE to run a module)",
                          util::escape_for_message(script));
    }
    if (script.front() == '-') {
        throw usage_error("script '{}' starts with '-', which the launcher would take for an "
                          "option (write ./{})",
                          util::escape_for_message(script), util::escape_for_message(script));
    }
}

void check_host_options(const Options& options) {
    if (options.host && options.hostfile) {
        throw usage_error("--host and --hostfile cannot be used together");
    }
    if (options.include && options.exclude) {
        throw usage_error("--include and --exclude cannot be used together");
    }
    if (options.hostfile && options.hostfile->empty()) {
        throw usage_error("--hostfile '': empty file name");
    }
    // Without --hostfile they may apply to a scheduler's hosts: the planner decides.
    if (options.host) {
        for (const auto& [given, name] : {std::pair{options.include.has_value(), "--include"},
                                          {options.exclude.has_value(), "--exclude"},
                                          {options.num_nodes.has_value(), "--num_nodes"}}) {
            if (given) {
                throw usage_error("{} cannot be used with --host (list the hosts you want)", name);
            }
        }
    }
    const std::optional<HostSelection>& selection =
        options.include ? options.include : options.exclude;
    if (selection && selection->names_gpus()) {
        std::string_view name = options.include ? "--include" : "--exclude";
        // DeepSpeed forbids --num_gpus with --include/--exclude alike.
        if (options.nproc_per_node) {
            throw usage_error("--nproc_per_node cannot be used with GPU indices in {} (each node "
                              "runs one process per GPU it selects)",
                              name);
        }
    }
    if (options.num_nodes && (*options.num_nodes == 0 || *options.num_nodes < -1)) {
        throw usage_error("--num_nodes '{}': not a positive number of nodes (or -1 for all)",
                          *options.num_nodes);
    }
}

// master_addr and master_port both as options and in --extra_launch_args (each parsed by the
// cli where it read it).
void check_extra_master(const Options& options) {
    if (options.extra_master.address && options.master_addr) {
        throw usage_error("master_addr is given both by --master_addr and by "
                          "--extra_launch_args: keep one");
    }
    if (options.extra_master.port && options.master_port) {
        throw usage_error("master_port is given both by --master_port and by "
                          "--extra_launch_args: keep one");
    }
}

// An elastic option both as an option and in --extra_launch_args (each parsed by the cli where
// it read it).
void check_extra_elastic(const Options& options) {
    auto check = [](bool as_option, bool as_extra, std::string_view name) {
        if (as_option && as_extra) {
            throw usage_error("{} is given both by --{} and by --extra_launch_args: keep one", name,
                              name);
        }
    };
    const ElasticOptions& given = options.elastic;
    const ElasticOptions& extra = options.extra_elastic;
    check(given.max_restarts.has_value(), extra.max_restarts.has_value(), "max_restarts");
    check(given.rdzv_backend.has_value(), extra.rdzv_backend.has_value(), "rdzv_backend");
    check(given.rdzv_endpoint.has_value(), extra.rdzv_endpoint.has_value(), "rdzv_endpoint");
    check(given.rdzv_id.has_value(), extra.rdzv_id.has_value(), "rdzv_id");
}

} // namespace

ElasticOptions given_elastic_options(const Options& options) {
    ElasticOptions elastic = options.elastic;
    const ElasticOptions& extra = options.extra_elastic;
    auto fill = [](auto& field, const auto& from_extra) {
        if (!field) {
            field = from_extra;
        }
    };
    fill(elastic.max_restarts, extra.max_restarts);
    fill(elastic.rdzv_backend, extra.rdzv_backend);
    fill(elastic.rdzv_endpoint, extra.rdzv_endpoint);
    fill(elastic.rdzv_id, extra.rdzv_id);
    return elastic;
}

std::optional<int> parse_positive_int(std::string_view text) {
    return util::parse_integer<int>(text, {.min = 1});
}

void validate_options(const Options& options) {
    check_target(options);
    check_host_options(options);
    check_extra_master(options);
    check_extra_elastic(options);
    if (options.python && options.python->empty()) {
        throw usage_error("--python '': no interpreter named");
    }
}

} // namespace colossalai::run
