// libFuzzer target: --srun-args. Properties: an accepted word is never one of the options the
// launcher sets itself (a second --nodes or --label would change how the tasks are laid out or
// how their output is read), and the words round-trip: quoted again as the dry run prints them,
// they split back into exactly the same words.

#include "fuzz_support.hpp"

#include "colossalai/slurm/srun_args.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Independent of the parser's own table: the launcher's options as srun spells them.
bool is_launcher_option(std::string_view word) {
    if (word.size() < 2 || word[0] != '-') {
        return false;
    }
    if (word[1] != '-') {
        return std::string_view("NnwluKoei").find(word[1]) != std::string_view::npos;
    }
    std::string_view name = word.substr(0, word.find('='));
    for (std::string_view own :
         {"--nodes", "--ntasks", "--ntasks-per-node", "--nodelist", "--label", "--unbuffered",
          "--kill-on-bad-exit", "--output", "--error", "--input", "--pty"}) {
        if (name == own) {
            return true;
        }
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using colossalai::fuzz::require;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> words;
    try {
        words = colossalai::slurm::parse_srun_args(text);
    } catch (const colossalai::Error&) {
        return 0;
    }
    for (const std::string& word : words) {
        require(!is_launcher_option(word), "a launcher option was accepted in --srun-args");
    }
    if (words.empty()) {
        return 0;
    }
    std::vector<std::string> again;
    try {
        again = colossalai::slurm::parse_srun_args(colossalai::util::shell_join(words));
    } catch (const colossalai::Error&) {
        require(false, "the quoted words are refused");
    }
    require(again == words, "the quoted words do not split back into the same words");
    return 0;
}
