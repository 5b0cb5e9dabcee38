#pragma once

// The ssh_config language, as OpenSSH's readconf.c reads it: lines split into a keyword and its
// arguments once, then applied to a ClientConfig for one target host (Host and Match blocks,
// Include, first value wins). client_config.cpp finds the files and reads them with this.

#include "colossalai/ssh/client_config.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::ssh {

// One line of a configuration file, split once: the keyword in lower case, its arguments as
// written (a Host line's patterns in lower case: they match case-insensitively).
struct ConfigLine {
    int number = 0;
    std::string keyword;
    std::vector<std::string> args;
};

// The non-empty, non-comment lines of `text`, numbered as in the file.
std::vector<ConfigLine> tokenize(std::string_view text);

// Applies `lines` (from `source`, named in errors as `source line N`) to `config` for `target`.
// Throws Error for a bad value.
void apply_config_lines(const std::vector<ConfigLine>& lines, const std::string& source,
                        const ConfigTarget& target, const IncludeReader& include,
                        ClientConfig& config);

} // namespace colossalai::ssh
