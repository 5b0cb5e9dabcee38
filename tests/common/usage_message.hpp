#pragma once

// Shared by the unit tests: the message of the usage error a call throws.

#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {

// Calls `call` and returns the message of the colossalai::Error it throws, failing the test when
// it throws nothing or an error that is not a usage error.
template <typename Call>
std::string usage_message(Call call) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::usage) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error thrown";
    return "";
}

} // namespace colossalai::test
