// libFuzzer target: host ranges (`node[01-16]`, `r[1-2]n[01-04]`). Any input either expands
// within the limit into names without range brackets, or is refused with colossalai::Error.

#include "fuzz_support.hpp"

#include "colossalai/run/host_pattern.hpp"
#include "colossalai/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace colossalai;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    // A small limit keeps each run fast; the arithmetic near the real limit is what matters.
    constexpr std::size_t limit = 5000;
    try {
        for (std::string_view item : run::split_host_list(text)) {
            std::vector<std::string> names = run::expand_host_pattern(item, "--host", limit);
            fuzz::require(names.size() <= limit, "a range expanded past its limit");
            bool ranged = item.find('[') != std::string_view::npos;
            for (const std::string& name : names) {
                // Brackets left in a name are an IPv6 address's, which hold a ':'.
                bool bracket = name.find_first_of("[]") != std::string::npos;
                fuzz::require(!bracket || name.find(':') != std::string::npos,
                              "a range bracket survived expansion");
                fuzz::require(ranged || name == item, "text without brackets was changed");
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
