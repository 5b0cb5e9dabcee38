#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// One `--extra_launch_args` item: `name=value` becomes `--name=value`, `name` alone `--name`.
struct LaunchArg {
    std::string name;
    std::optional<std::string> value;

    bool operator==(const LaunchArg&) const = default;
};

// Parses `a=1,b,c=2`. A comma inside a value is written `\,` and a backslash before a comma
// `\\` (`rdzv_conf=join_timeout=900\,read_timeout=60` is one item); any other backslash is
// kept. Each item is split at its FIRST '=' only (`rdzv_conf=timeout=900` has the
// value `timeout=900`); the value is kept byte for byte. Throws a usage error for an item with an
// empty or malformed name (names are letters, digits, '_' and '-', written without the leading
// dashes), for the options the launcher sets itself (nproc_per_node, nnodes, node_rank), and for
// master_addr / master_port without a value or given twice.
std::vector<LaunchArg> parse_extra_launch_args(std::string_view text);

// `--name=value` or `--name`.
std::string to_word(const LaunchArg& arg);

// True when `name` is `option` in torchrun's spelling, where '-' and '_' are the same
// (`master-addr` is `master_addr`).
bool same_option(std::string_view name, std::string_view option);

// Removes the item named `option` from `args` and returns its value, if there was one.
std::optional<std::string> take_value(std::vector<LaunchArg>& args, std::string_view option);

} // namespace colossalai::run
