// libFuzzer target: --extra_launch_args. Property: every item's words round-trip, i.e. the value
// is kept byte for byte after the first '='.

#include "fuzz_support.hpp"

#include "colossalai/run/extra_args.hpp"
#include "colossalai/util/error.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const colossalai::run::LaunchArg& arg :
             colossalai::run::parse_extra_launch_args(text)) {
            colossalai::fuzz::require(!arg.name.empty(), "empty name accepted");
            std::string word = colossalai::run::to_word(arg);
            colossalai::fuzz::require(word.rfind("--" + arg.name, 0) == 0, "word lost its name");
            if (arg.value) {
                colossalai::fuzz::require(word == "--" + arg.name + "=" + *arg.value,
                                          "value not kept");
            }
        }
    } catch (const colossalai::Error&) {
    }
    return 0;
}
