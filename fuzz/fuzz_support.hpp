#pragma once

// Properties shared by the fuzz targets. A violated property aborts, which libFuzzer reports as
// a crash with the input that caused it.

#include "colossalai/run/hosts.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace colossalai::fuzz {

inline void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

// What can reach ssh or a shell from a host: letters, digits and `._:%-`, never a leading '-'.
inline bool is_safe_address(std::string_view address) {
    if (address.empty() || address.front() == '-') {
        return false;
    }
    for (char c : address) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == ':' || c == '%' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

inline void require_valid_host(const run::Host& host) {
    require(is_safe_address(host.address), "an accepted host has an unsafe address");
    if (host.user) {
        require(is_safe_address(*host.user), "an accepted host has an unsafe user");
    }
    for (char c : host.name) {
        require(c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ';' && c != '$' &&
                    c != '`' && c != '\'' && c != '"' && c != '\\' && c != '|' && c != '&',
                "an accepted host name holds a shell metacharacter or whitespace");
    }
}

} // namespace colossalai::fuzz
