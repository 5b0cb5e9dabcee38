// libFuzzer target: the hostfile parser. Any input either parses into valid hosts or is refused
// with colossalai::Error; anything else (a crash, another exception, a sanitizer report) is a bug.

#include "fuzz_support.hpp"

#include "colossalai/run/hosts.hpp"
#include "colossalai/util/error.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const colossalai::run::Host& host : colossalai::run::parse_hostfile(text, "hosts")) {
            colossalai::fuzz::require_valid_host(host);
        }
    } catch (const colossalai::Error&) {
    }
    return 0;
}
