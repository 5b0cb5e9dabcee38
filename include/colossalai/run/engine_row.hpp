#pragma once

// What an engine (src/engines lists them) says about `colossalai run`'s options: its name, the
// options only it reads, and its own checks. Each engine defines its row in its own module
// (ssh/engine.hpp, slurm/engine.hpp); run/ holds the type without any engine's code.

#include "colossalai/run/options.hpp"

#include <span>
#include <string>
#include <string_view>

namespace colossalai::run {

// An option that one engine owns: given with another engine, that engine refuses it.
struct OwnedOption {
    std::string_view name; // as --help names it: "--ssh-port"
    bool (*given)(const Options& options) = nullptr;
};

struct EngineRow {
    std::string_view name;                // its --launcher value
    Launcher launcher;                    // run::Options' value for it
    std::span<const OwnedOption> options; // the options only it reads
    // The one line that refuses `option`, owned by the engine named `owner`, with this engine.
    std::string (*refuse)(std::string_view option, std::string_view owner) = nullptr;
    // Its own checks across the options, beyond the options it does not own (throws a usage
    // error); nullptr: none.
    void (*validate)(const Options& options) = nullptr;
};

} // namespace colossalai::run
