#pragma once

// Readable names for table-driven tests: `Table/Suite.Test/cpu_only_pytorch` instead of a dump of
// the parameter's bytes. The parameter needs a `name` member (a string).

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {

struct CaseName {
    template <typename Case>
    std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
        std::string name;
        for (char c : std::string(info.param.name)) {
            bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (keep) {
                name += c;
            } else if (!name.empty() && name.back() != '_') {
                name += '_';
            }
        }
        // gtest needs unique names; the index keeps two similar descriptions apart.
        return name + "_" + std::to_string(info.index);
    }
};

} // namespace colossalai::test
