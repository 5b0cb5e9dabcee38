// libFuzzer target: the reader of the OpenSSH client settings libssh skips. Any input either
// applies or is refused with colossalai::Error; the first Includes read the input again, so
// loops are tried too (not every one: N Include lines per level would make N^16 parses). Anything
// else (a crash, another exception, a sanitizer report) is a bug.

#include "colossalai/ssh/client_config.hpp"
#include "colossalai/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    int includes = 0;
    colossalai::ssh::IncludeReader include = [&](const std::string&) {
        return ++includes <= 32 ? std::vector<std::string>{text} : std::vector<std::string>{};
    };
    colossalai::ssh::ClientConfig config;
    try {
        colossalai::ssh::apply_client_config(text, "config", {"node1", "10.0.0.1"}, include,
                                             config);
    } catch (const colossalai::Error&) {
        return 0;
    }
    if (config.server_alive_interval.value_or(0) < 0 ||
        config.server_alive_count_max.value_or(0) < 0) {
        std::abort(); // numbers are checked when read
    }
    return 0;
}
