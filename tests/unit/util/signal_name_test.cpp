#include "colossalai/util/signal_name.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::util {
namespace {

TEST(SignalName, NamesWithAndWithoutThePrefix) {
    EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
    EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
    EXPECT_EQ(signal_name(SIGXCPU), "SIGXCPU");
    EXPECT_EQ(signal_name(42), "signal 42");
    EXPECT_EQ(short_signal_name(SIGHUP), "HUP");
    EXPECT_EQ(short_signal_name(42), std::nullopt);
}

// SSH's exit-signal message names a signal without "SIG" (RFC 4254 6.10).
TEST(SignalName, NumbersOfExitSignalMessages) {
    EXPECT_EQ(signal_number("TERM"), SIGTERM);
    EXPECT_EQ(signal_number("INT"), SIGINT);
    EXPECT_EQ(signal_number("SEGV"), SIGSEGV);
    EXPECT_EQ(signal_number("KILL"), SIGKILL);
    EXPECT_EQ(signal_number("SIGTERM"), SIGTERM);
    EXPECT_EQ(signal_number(""), std::nullopt);
    EXPECT_EQ(signal_number("SIG"), std::nullopt);
    EXPECT_EQ(signal_number("term"), std::nullopt);
}

TEST(SignalName, EveryNameReadsBackAsItsNumber) {
    for (int signo = 1; signo < 65; ++signo) {
        if (std::optional<std::string_view> name = short_signal_name(signo)) {
            EXPECT_EQ(signal_number(*name), signo) << *name;
            EXPECT_EQ(signal_number(signal_name(signo)), signo) << signo;
        }
    }
}

} // namespace
} // namespace colossalai::util
