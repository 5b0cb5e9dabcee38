#include "colossalai/slurm/srun_args.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <iterator>

namespace colossalai::slurm {

namespace {

// The options the launcher sets itself: a second value from the user would change how the tasks
// are laid out or how their output is read.
constexpr std::string_view own_long_options[] = {
    "--nodes",      "--ntasks",           "--ntasks-per-node", "--nodelist", "--label",
    "--unbuffered", "--kill-on-bad-exit", "--output",          "--error",    "--input",
    "--pty"};
constexpr char own_short_options[] = {'N', 'n', 'w', 'l', 'u', 'K', 'o', 'e', 'i'};

void check_srun_word(const std::string& word) {
    std::string shown = util::escape_for_message(word);
    if (word.size() < 2 || word[0] != '-') {
        return; // the value of the option before it
    }
    if (word[1] == '-') {
        std::string_view name = std::string_view(word).substr(0, word.find('='));
        for (std::string_view own : own_long_options) {
            if (name == own) {
                throw usage_error("--srun-args: '{}' is set by the launcher itself", shown);
            }
        }
        return;
    }
    if (std::find(std::begin(own_short_options), std::end(own_short_options), word[1]) !=
        std::end(own_short_options)) {
        throw usage_error("--srun-args: '{}' is set by the launcher itself", shown);
    }
}

} // namespace

std::vector<std::string> parse_srun_args(std::string_view text) {
    std::vector<std::string> words = util::split_shell_words(text, "--srun-args");
    for (const std::string& each : words) {
        check_srun_word(each);
    }
    return words;
}

} // namespace colossalai::slurm
