#include "colossalai/exec/signal_policy.hpp"

#include "colossalai/util/signal_name.hpp"

#include <fmt/format.h>

#include <vector>

namespace colossalai::exec::signal_policy {

std::string short_names(std::span<const int> list, std::string_view separator) {
    std::vector<std::string_view> names;
    names.reserve(list.size());
    for (int signo : list) {
        names.push_back(util::short_signal_name(signo).value());
    }
    return fmt::format("{}", fmt::join(names, separator));
}

} // namespace colossalai::exec::signal_policy
