#pragma once

// Shared by the unit tests: the message of the error (a usage error, say) a call throws.

#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {

// Calls `call` and returns the message of the colossalai::Error it throws, failing the test when
// it throws nothing or an error of another kind.
template <typename Call>
std::string error_message(Error::Kind kind, Call call) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error thrown";
    return "";
}

// error_message() of a usage error.
template <typename Call>
std::string usage_message(Call call) {
    return error_message(Error::Kind::usage, call);
}

} // namespace colossalai::test
