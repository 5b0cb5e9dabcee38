#include "usage_message.hpp"

#include "colossalai/run/extra_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

std::vector<std::string> words(std::string_view text) {
    std::vector<std::string> result;
    for (const LaunchArg& arg : parse_extra_launch_args(text)) {
        result.push_back(to_word(arg));
    }
    return result;
}

struct ArgsCase {
    std::string text;
    std::vector<std::string> words;
};

TEST(ParseExtraLaunchArgs, TurnsItemsIntoOptions) {
    const std::vector<ArgsCase> cases = {
        {"a=1,b,c=2", {"--a=1", "--b", "--c=2"}},
        {"rdzv_conf=timeout=900", {"--rdzv_conf=timeout=900"}},
        {"rdzv_conf=a=1=2,x", {"--rdzv_conf=a=1=2", "--x"}},
        {"redirects=1,tee=1", {"--redirects=1", "--tee=1"}},
        {"log-dir=/tmp/a b", {"--log-dir=/tmp/a b"}},
        {"empty=", {"--empty="}},
        {"standalone", {"--standalone"}},
        {"master_addr=10.0.0.1,master_port=1234", {"--master_addr=10.0.0.1", "--master_port=1234"}},
        {"a=1,a=2", {"--a=1", "--a=2"}},
        // A comma inside a value: `\,`; a backslash before a comma: `\\`.
        {"rdzv_conf=join_timeout=900\\,read_timeout=60,tee=1",
         {"--rdzv_conf=join_timeout=900,read_timeout=60", "--tee=1"}},
        {"a=x\\\\,b", {"--a=x\\", "--b"}},
        {"a=x\\\\\\,y", {"--a=x\\,y"}},
        {"log-dir=C:\\logs\\new", {"--log-dir=C:\\logs\\new"}},
        {"a=x\\", {"--a=x\\"}},
    };
    for (const ArgsCase& c : cases) {
        EXPECT_EQ(words(c.text), c.words) << c.text;
    }
}

struct ExtraArgsErrorCase {
    std::string text;
    std::string message;
};

TEST(ParseExtraLaunchArgs, RejectsBadItems) {
    const std::vector<ExtraArgsErrorCase> cases = {
        {"", "--extra_launch_args '': item 1 has an empty name"},
        {"a=1,,b", "--extra_launch_args 'a=1,,b': item 2 has an empty name"},
        {"a=1,", "--extra_launch_args 'a=1,': item 2 has an empty name"},
        {"=5", "--extra_launch_args '=5': item 1 has an empty name"},
        {"--tee=1", "--extra_launch_args '--tee=1': invalid name '--tee' (write names like "
                    "'rdzv_backend', without leading dashes)"},
        {"a b=1", "--extra_launch_args 'a b=1': invalid name 'a b' (write names like "
                  "'rdzv_backend', without leading dashes)"},
        {"x;y", "--extra_launch_args 'x;y': invalid name 'x;y' (write names like "
                "'rdzv_backend', without leading dashes)"},
        {"nnodes=2", "--extra_launch_args: 'nnodes' is set by colossalai run itself"},
        {"nproc-per-node=2", "--extra_launch_args: 'nproc-per-node' is set by colossalai run "
                             "itself"},
        {"node_rank=1", "--extra_launch_args: 'node_rank' is set by colossalai run itself"},
        {"master_addr", "--extra_launch_args: 'master_addr' needs a value"},
        {"master_port=", "--extra_launch_args: 'master_port' needs a value"},
        {"master_port=1,master-port=2", "--extra_launch_args: 'master_port' is given twice"},
    };
    for (const ExtraArgsErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { parse_extra_launch_args(c.text); }), c.message);
    }
}

TEST(SameOption, TreatsDashAndUnderscoreAlike) {
    EXPECT_TRUE(same_option("master_addr", "master_addr"));
    EXPECT_TRUE(same_option("master-addr", "master_addr"));
    EXPECT_FALSE(same_option("master_add", "master_addr"));
    EXPECT_FALSE(same_option("master_addrs", "master_addr"));
}

TEST(TakeValue, RemovesTheItemAndKeepsTheOrderOfTheOthers) {
    std::vector<LaunchArg> args = parse_extra_launch_args("a=1,master-port=7,b");
    EXPECT_EQ(take_value(args, "master_port"), "7");
    EXPECT_EQ(args, (std::vector<LaunchArg>{{"a", "1"}, {"b", std::nullopt}}));
    EXPECT_EQ(take_value(args, "master_addr"), std::nullopt);
    EXPECT_EQ(args.size(), 2u);
}

} // namespace
} // namespace colossalai::run
