#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::test {

// A Context::find_local that asks `is_local` about each address: the tests' fake machine.
inline std::function<std::vector<bool>(const std::vector<std::string>&)>
find_local_by(std::function<bool(std::string_view)> is_local) {
    return [is_local](const std::vector<std::string>& addresses) {
        std::vector<bool> local;
        for (const std::string& address : addresses) {
            local.push_back(is_local(address));
        }
        return local;
    };
}

} // namespace colossalai::test
