// --srun-args, parsed once where the option is read (the cli, for run and check): the words srun
// gets, and the options srun's command sets itself refused.

#include "usage_message.hpp"

#include "colossalai/slurm/srun_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::slurm {
namespace {

using Words = std::vector<std::string>;

TEST(ParseSrunArgs, SplitsLikeAShellWithoutExpanding) {
    EXPECT_EQ(parse_srun_args("  --partition gpu\t--time=1:00:00 "),
              (Words{"--partition", "gpu", "--time=1:00:00"}));
    EXPECT_EQ(parse_srun_args(R"(--job-name 'a b' --comment "x \"y\" $HOME" -A\ z)"),
              (Words{"--job-name", "a b", "--comment", "x \"y\" $HOME", "-A z"}));
    EXPECT_EQ(parse_srun_args(""), Words{});
}

TEST(ParseSrunArgs, RefusesUnterminatedQuotesAndTheLaunchersOwnOptions) {
    EXPECT_EQ(test::usage_message([] { parse_srun_args("--comment 'x"); }),
              "--srun-args: unterminated ' quote");
    EXPECT_EQ(test::usage_message([] { parse_srun_args("--comment \"x"); }),
              "--srun-args: unterminated \" quote");
    for (const char* word : {"--nodes=3", "-N", "--ntasks", "-n4", "--nodelist=x", "-w", "--label",
                             "-u", "--kill-on-bad-exit", "--output=f", "--pty"}) {
        EXPECT_EQ(test::usage_message([&] { parse_srun_args(word); }),
                  std::string("--srun-args: '") + word + "' is set by the launcher itself");
    }
}

} // namespace
} // namespace colossalai::slurm
