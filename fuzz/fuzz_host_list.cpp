// libFuzzer target: comma-separated host lists (--host, --include, --exclude).

#include "fuzz_support.hpp"

#include "colossalai/run/hosts.hpp"
#include "colossalai/util/error.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const colossalai::run::Host& host : colossalai::run::parse_host_list(text, "--host")) {
            colossalai::fuzz::require_valid_host(host);
        }
    } catch (const colossalai::Error&) {
    }
    return 0;
}
