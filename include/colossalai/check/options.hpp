#pragma once

#include <optional>
#include <string>

namespace colossalai::check {

// `colossalai check` as the user asked for it.
struct Options {
    bool installation = false;         // -i / --installation
    bool json = false;                 // --json (implies --installation)
    std::optional<std::string> python; // --python PATH
};

} // namespace colossalai::check
