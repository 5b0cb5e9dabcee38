// The node wrapper's preflight answer as its bytes arrive, without a channel: its line in any
// split, what comes before it, what comes after it, and the ways the wait for it ends.

#include "preflight_answer.hpp"

#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;

const std::string ready_text = "\036colossalai-ready\n";
const job::Clock::time_point asked_at{std::chrono::seconds(1000)};

job::NodeCommand command() {
    job::NodeCommand node;
    node.host = "node1";
    node.working_directory = "/work/x";
    node.argv = {"torchrun", "train.py"};
    return node;
}

PreflightAnswer answer() {
    return PreflightAnswer(command(), 7000ms, asked_at);
}

// Feeds `packets` in turn, as they would arrive; the verdict of the packet that gave one, and
// how many bytes of it were consumed. No packet after the verdict is fed.
struct Fed {
    std::optional<PreflightVerdict> verdict;
    std::size_t consumed_of_last = 0;
    std::size_t packets_fed = 0;
};
Fed feed(PreflightAnswer& reader, std::initializer_list<std::string_view> packets) {
    Fed fed;
    for (std::string_view packet : packets) {
        PreflightAnswer::Step step = reader.take(packet);
        ++fed.packets_fed;
        fed.consumed_of_last = step.consumed;
        if (step.verdict) {
            fed.verdict = step.verdict;
            break;
        }
        EXPECT_EQ(step.consumed, packet.size()) << "all of a packet without the answer is taken";
    }
    return fed;
}

TEST(PreflightAnswerLine, ReadyInOnePacket) {
    PreflightAnswer reader = answer();
    Fed fed = feed(reader, {ready_text});
    ASSERT_TRUE(fed.verdict);
    EXPECT_FALSE(fed.verdict->failure);
    EXPECT_EQ(fed.consumed_of_last, ready_text.size());
}

TEST(PreflightAnswerLine, ReadySplitAcrossPacketsAtEveryByte) {
    for (std::size_t cut = 1; cut < ready_text.size(); ++cut) {
        PreflightAnswer reader = answer();
        std::string_view line = ready_text;
        Fed fed = feed(reader, {line.substr(0, cut), line.substr(cut)});
        ASSERT_TRUE(fed.verdict) << cut;
        EXPECT_FALSE(fed.verdict->failure) << cut;
        EXPECT_EQ(fed.packets_fed, 2u) << cut;
        EXPECT_EQ(fed.consumed_of_last, ready_text.size() - cut) << cut;
    }
}

TEST(PreflightAnswerLine, ReadyOneByteAtATime) {
    PreflightAnswer reader = answer();
    for (std::size_t i = 0; i + 1 < ready_text.size(); ++i) {
        PreflightAnswer::Step step = reader.take(std::string_view(ready_text).substr(i, 1));
        EXPECT_EQ(step.consumed, 1u);
        ASSERT_FALSE(step.verdict) << "no verdict before the newline, byte " << i;
    }
    PreflightAnswer::Step last = reader.take("\n");
    ASSERT_TRUE(last.verdict);
    EXPECT_FALSE(last.verdict->failure);
}

TEST(PreflightAnswerLine, NoNewlineYetGivesNoVerdict) {
    PreflightAnswer reader = answer();
    std::string_view without_newline =
        std::string_view(ready_text).substr(0, ready_text.size() - 1);
    PreflightAnswer::Step step = reader.take(without_newline);
    EXPECT_FALSE(step.verdict);
    EXPECT_EQ(step.consumed, without_newline.size()); // kept for the next call
    EXPECT_TRUE(reader.take("\n").verdict);
}

TEST(PreflightAnswerLine, NothingAfterTheAnswersNewlineIsConsumed) {
    // The job's output follows the answer on the same stream.
    PreflightAnswer reader = answer();
    PreflightAnswer::Step step = reader.take(ready_text + "job output\n");
    ASSERT_TRUE(step.verdict);
    EXPECT_EQ(step.consumed, ready_text.size());
}

TEST(PreflightAnswerLine, BannerAndGarbageLinesBeforeTheAnswerAreSkipped) {
    PreflightAnswer reader = answer();
    Fed fed = feed(reader, {"Welcome to node1\n\n", "\036colossalai-failed other\nbinary \x01\x02",
                            "\xff junk\n", ready_text});
    ASSERT_TRUE(fed.verdict);
    EXPECT_FALSE(fed.verdict->failure);
    EXPECT_EQ(fed.packets_fed, 4u);
}

// Issue #40: the wrapper's notice before its answer names the node, for a node that was asked to
// read its pair; any other notice line is skipped.
TEST(PreflightAnswerLine, ANoticeBeforeTheAnswerIsKeptNamingTheNode) {
    job::NodeCommand node = command();
    node.preflight.torch_pair =
        job::TorchPairCheck{job::TorchInterpreter::shebang,
                            "torchrun",
                            {{1, 9, std::nullopt}, {2, 0, std::nullopt}, {3, 11, std::nullopt}}};
    PreflightAnswer reader(node, 7000ms, asked_at);
    Fed fed = feed(reader, {"\036colossalai-notice pair 1.1",
                            "3 3.11\n\036colossalai-notice other\n", ready_text});
    ASSERT_TRUE(fed.verdict);
    EXPECT_FALSE(fed.verdict->failure);
    std::vector<std::string> notices = reader.take_notices();
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_TRUE(notices[0].starts_with("node1: PyTorch 1.13 on Python 3.11: torchrun stops before "
                                       "any worker starts"))
        << notices[0];
    EXPECT_TRUE(reader.take_notices().empty()); // taken once
    PreflightAnswer unasked = answer();
    feed(unasked, {"\036colossalai-notice pair 1.13 3.11\n", ready_text});
    EXPECT_TRUE(unasked.take_notices().empty());
}

TEST(PreflightAnswerLine, GarbageAloneGivesNoVerdict) {
    PreflightAnswer reader = answer();
    Fed fed = feed(reader, {"no such\n", "\036colossalai-readyish\n", "\036colossalai-ready \n"});
    EXPECT_FALSE(fed.verdict);
    EXPECT_EQ(fed.packets_fed, 3u);
}

TEST(PreflightAnswerLine, AFailedCheckIsTheNodesOneLineNotStarted) {
    // Split across packets; the subject comes from the command, an interface's from the line.
    auto failure_of = [](std::string_view head,
                         std::string_view tail) -> std::optional<job::Outcome> {
        PreflightAnswer reader = answer();
        std::optional<PreflightVerdict> verdict = feed(reader, {head, tail}).verdict;
        return verdict ? verdict->failure : std::nullopt;
    };
    auto not_started = [](job::PreflightCheck check, std::string subject) {
        return job::Outcome::cannot_run(job::describe(job::PreflightFailure{check, subject}),
                                        job::preflight_exit_status);
    };
    EXPECT_EQ(failure_of("\036colossalai-fail", "ed cwd\n"),
              not_started(job::PreflightCheck::working_directory, "/work/x"));
    EXPECT_EQ(failure_of("\036colossalai-failed inter", "face ib0\n"),
              not_started(job::PreflightCheck::network_interface, "ib0"));
}

TEST(PreflightAnswerLine, ALineBeyond64KiBEndsTheWait) {
    PreflightAnswer reader = answer();
    std::string endless(64 * 1024, 'x');
    PreflightAnswer::Step step = reader.take(endless);
    EXPECT_FALSE(step.verdict); // exactly 64 KiB is still held
    step = reader.take("xx");
    ASSERT_TRUE(step.verdict && step.verdict->failure);
    EXPECT_EQ(step.consumed, 1u);
    EXPECT_EQ(*step.verdict->failure,
              job::Outcome::connect_failed(
                  "no preflight answer from the node wrapper in its first 64 KiB of output"));
}

TEST(PreflightAnswerLine, ManyShortLinesAreNoLongLine) {
    PreflightAnswer reader = answer();
    std::string banner;
    for (int i = 0; i < 2000; ++i) {
        banner += "a banner line of the node's start-up file\n";
    }
    EXPECT_FALSE(reader.take(banner).verdict);
    EXPECT_TRUE(reader.take(ready_text).verdict);
}

TEST(PreflightAnswerWait, DueTheTimeoutAfterTheWrapperStarted) {
    PreflightAnswer reader = answer();
    EXPECT_EQ(reader.deadline(), asked_at + 7000ms);
    EXPECT_FALSE(reader.expired(asked_at + 6999ms));
    EXPECT_EQ(reader.expired(asked_at + 7000ms),
              job::Outcome::connect_failed("no answer from the node's preflight checks in 7 s"));
    PreflightAnswer fractional(command(), 1500ms, asked_at);
    EXPECT_EQ(fractional.expired(asked_at + 2s),
              job::Outcome::connect_failed("no answer from the node's preflight checks in 1.5 s"));
}

TEST(PreflightAnswerWait, TheChannelsEndAndALostConnectionAreConnectFailures) {
    PreflightAnswer wrapper = answer();
    EXPECT_FALSE(wrapper.take("\036colossalai-started\n").verdict);
    job::Outcome ended = wrapper.ended("alice", "", 125);
    EXPECT_EQ(ended.kind(), job::Outcome::Kind::connect_failed);
    EXPECT_EQ(ended, job::Outcome::connect_failed("the node wrapper ended before its preflight "
                                                  "checks (exit status 125) (is /bin/sh a POSIX "
                                                  "shell there?)"));
    EXPECT_EQ(PreflightAnswer::lost("Socket error: reset"),
              job::Outcome::connect_failed(
                  "connection lost during the preflight checks: Socket error: reset"));
}

// No started line: the login shell ran nothing of the launcher's. What it printed before its end
// (banner lines on stdout, a last line without newline, stderr) is named by its first line.
TEST(PreflightAnswerWait, WithoutTheStartedLineTheLoginShellRanNothing) {
    PreflightAnswer nologin = answer();
    EXPECT_FALSE(nologin.take("\nThis account is currently not available.\n").verdict);
    EXPECT_EQ(nologin.ended("sh-nologin", "", 1),
              job::Outcome::connect_failed("the login shell of sh-nologin did not run the "
                                           "launcher's command (exit status 1; it printed: This "
                                           "account is currently not available.)"));
    PreflightAnswer unfinished = answer();
    EXPECT_FALSE(unfinished.take("no newline").verdict);
    EXPECT_EQ(unfinished.ended("u", "", std::nullopt),
              job::Outcome::connect_failed("the login shell of u did not run the launcher's "
                                           "command (no exit status; it printed: no newline)"));
    PreflightAnswer on_stderr = answer();
    EXPECT_EQ(on_stderr.ended("u", "  \n\tcsh: /bin/sh: Command not found.\n", 1),
              job::Outcome::connect_failed("the login shell of u did not run the launcher's "
                                           "command (exit status 1; it printed: csh: /bin/sh: "
                                           "Command not found.)"));
    EXPECT_EQ(answer().ended("sh-false", "", 1),
              job::Outcome::connect_failed(
                  "the login shell of sh-false did not run the launcher's command (exit status 1, "
                  "nothing printed: a login shell such as /usr/sbin/nologin or /bin/false runs no "
                  "command)"));
}

} // namespace
} // namespace colossalai::ssh
