#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// The most hosts one host list (or hostfile) may expand to. A bigger list is a typo such as
// `node[1-1000000]`, not a cluster, and would only exhaust memory.
inline constexpr std::size_t max_expanded_hosts = 100000;

// Splits a comma-separated host list at the commas outside brackets, as Slurm writes node
// lists: "gpu-a[001-004,010],gpu-b7" -> {"gpu-a[001-004,010]", "gpu-b7"}. Items are returned
// untrimmed; an unclosed '[' keeps the rest of the list in its item (expand_host_pattern then
// refuses it).
std::vector<std::string_view> split_host_list(std::string_view list);

// Expands the brackets of one host pattern, as clusters write them:
//   node[01-16]          -> node01 ... node16 (the width of the first bound is kept)
//   gpu-a[001-004,010]   -> gpu-a001 ... gpu-a004, gpu-a010
//   r[1-2]n[01-04]       -> r1n01 r1n02 r1n03 r1n04 r2n01 ... (the leftmost bracket varies
//                           slowest, as in Slurm)
// Brackets holding a ':' are an IPv6 address (`[::1]`, `user@[fe80::1]`) and stay as written;
// text without brackets comes back unchanged. Names are not validated here (parse_host does).
// `limit` is how many hosts may still be added. Throws a usage error
// `<where>: invalid host range '<pattern>': <reason>` for an unclosed or stray bracket, an empty
// or non-numeric item, a reversed range (`[5-1]`), a bound of more than 18 digits, or more than
// `limit` hosts.
std::vector<std::string> expand_host_pattern(std::string_view pattern, std::string_view where,
                                             std::size_t limit = max_expanded_hosts);

} // namespace colossalai::run
