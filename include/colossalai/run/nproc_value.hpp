#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace colossalai::run {

// The values torchrun itself resolves on each node.
enum class SymbolicNproc { automatic, cpu, gpu };

// --nproc_per_node as given: a positive count, or a value torchrun resolves.
using NprocPerNode = std::variant<int, SymbolicNproc>;

// Parses a positive decimal integer (no sign, no spaces) or `auto`, `cpu`, `gpu`; nullopt
// otherwise.
std::optional<NprocPerNode> parse_nproc_per_node(std::string_view text);

// The value as torchrun takes it: "4", "auto", "cpu", "gpu".
std::string to_string(const NprocPerNode& nproc);

} // namespace colossalai::run
