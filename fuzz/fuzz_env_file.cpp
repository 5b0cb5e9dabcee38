// libFuzzer target: the env file parser (--env-file, .colossalai_env). Any input is either
// refused with colossalai::Error or gives settings that can be passed to a node as they are:
// each name an identifier that check_env_name accepts, each value one line without NUL that
// appears in the input after `NAME=`, one setting per name, sorted, with a `env:LINE` source.

#include "fuzz_support.hpp"

#include "colossalai/run/env_control.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using colossalai::fuzz::require;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        std::vector<colossalai::run::EnvSetting> settings =
            colossalai::run::parse_env_file(text, "env");
        for (size_t i = 0; i < settings.size(); ++i) {
            const colossalai::run::EnvSetting& setting = settings[i];
            require(colossalai::util::is_identifier(setting.name), "a name is no identifier");
            colossalai::run::check_env_name(setting.name, "");
            require(setting.value.find_first_of(std::string_view("\0\r\n", 3)) == std::string::npos,
                    "a value holds NUL or a line break");
            require(text.find(setting.name + "=" + setting.value) != std::string_view::npos,
                    "a setting is not in the input");
            require(colossalai::util::starts_with(setting.source, "env:"), "a source is not env:N");
            require(i == 0 || settings[i - 1].name < setting.name, "names not sorted and unique");
        }
    } catch (const colossalai::Error&) {
    }
    return 0;
}
