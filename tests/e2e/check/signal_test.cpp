// A check interrupted while a probe hangs leaves no probe process behind.

#include "fixture.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <thread>

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

class CheckSignal : public CheckTest, public ::testing::WithParamInterface<int> {
protected:
    // Starts the check, waits until `hung()` says the probe hangs, sends the signal, and expects
    // the check to die of it and no process naming `marker` (the probe) to be left.
    template <typename Hung>
    void interrupt_while_hung(const std::vector<std::string>& args, const std::string& marker,
                              Hung hung) {
        m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "60000";
        RunOptions options;
        options.env = m_env;
        std::vector<std::string> argv{binary().string(), "check"};
        argv.insert(argv.end(), args.begin(), args.end());
        Background check(argv, options, scratch() / "out", scratch() / "err");

        ASSERT_TRUE(eventually(hung, std::chrono::seconds(20))) << "the hung probe never started";
        check.signal(GetParam());
        std::optional<int> status = check.wait(std::chrono::seconds(10));
        ASSERT_TRUE(status.has_value()) << "the check did not end on signal " << GetParam();
        EXPECT_TRUE(WIFSIGNALED(*status));
        EXPECT_EQ(WTERMSIG(*status), GetParam());
        EXPECT_TRUE(eventually([&] { return processes_with_marker(marker).empty(); },
                               std::chrono::seconds(5)))
            << "a probe outlived the check";
    }
};

TEST_P(CheckSignal, HungNvccIsKilled) {
    m_env["CUDA_HOME"] = cuda_home("cuda-hang", "#!/bin/sh\n" + hang_command()).string();
    std::string marker = (scratch() / "hang").string();
    interrupt_while_hung({"-i"}, marker, [&] { return !processes_with_marker(marker).empty(); });
}

TEST_P(CheckSignal, HungPythonIsKilled) {
    write_file(scratch() / "bin" / "python3", "#!/bin/sh\n" + hang_command(), 0755);
    m_env["PATH"] = (scratch() / "bin").string();
    std::string marker = (scratch() / "hang").string();
    interrupt_while_hung({"-i"}, marker, [&] { return !processes_with_marker(marker).empty(); });
}

TEST_P(CheckSignal, HungDriverIsKilled) {
    m_env["COLOSSALAI_CUDA_DRIVER_LIBRARY"] = fake_driver("driver/libcuda.so.1").string();
    m_env["FAKE_CUDA_HANG"] = "1";
    m_env["FAKE_CUDA_READY_FILE"] = (scratch() / "in-cuInit").string();
    // The forked driver probe keeps the check's command line: make it name the scratch dir.
    fs::path python = scratch() / "python3";
    fs::create_symlink(venv().python, python);
    interrupt_while_hung({"-i", "--python", python.string()}, python.string(),
                         [&] { return fs::exists(scratch() / "in-cuInit"); });
}

// `nohup colossalai check -i`: SIGHUP, ignored at start, stays ignored while a probe hangs
// (it was once received by the signal thread and ended the check); SIGTERM still ends it.
TEST_F(CheckTest, ASignalIgnoredAtStartStaysIgnored) {
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "60000";
    m_env["CUDA_HOME"] = cuda_home("cuda-hang", "#!/bin/sh\n" + hang_command()).string();
    std::string marker = (scratch() / "hang").string();
    RunOptions options;
    options.env = m_env;
    Background check(
        {"/bin/sh", "-c", "trap '' HUP; exec \"$0\" \"$@\"", binary().string(), "check", "-i"},
        options, scratch() / "out", scratch() / "err");
    ASSERT_TRUE(eventually([&] { return !processes_with_marker(marker).empty(); },
                           std::chrono::seconds(20)))
        << "the hung probe never started";
    EXPECT_TRUE(signal_ignored(check.pid(), SIGHUP));
    check.signal(SIGHUP);
    // The check is still there (and its probe) after the signal had time to arrive.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_FALSE(check.wait(std::chrono::milliseconds(0)).has_value());
    EXPECT_FALSE(processes_with_marker(marker).empty());
    check.signal(SIGTERM);
    std::optional<int> status = check.wait(std::chrono::seconds(10));
    ASSERT_TRUE(status.has_value()) << "the check did not end on SIGTERM";
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM);
    EXPECT_TRUE(
        eventually([&] { return processes_with_marker(marker).empty(); }, std::chrono::seconds(5)))
        << "a probe outlived the check";
}

INSTANTIATE_TEST_SUITE_P(Signals, CheckSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& info) { return std::string(sigabbrev_np(info.param)); });

} // namespace
} // namespace colossalai::test
