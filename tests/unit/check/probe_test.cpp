#include "colossalai/check/probe.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <map>

namespace colossalai::check {
namespace {

GetEnv from(std::map<std::string, std::string> variables) {
    return [variables](const std::string& name) -> std::optional<std::string> {
        auto it = variables.find(name);
        if (it == variables.end()) {
            return std::nullopt;
        }
        return it->second;
    };
}

Options options_with(bool json, std::optional<std::string> python) {
    Options options;
    options.installation = true;
    options.json = json;
    options.python = std::move(python);
    return options;
}

TEST(ReadSettings, Defaults) {
    ProbeSettings settings = read_settings(options_with(false, std::nullopt), from({}));
    EXPECT_EQ(settings.python, std::nullopt);
    EXPECT_EQ(settings.cuda.cuda_home_env, std::nullopt);
    EXPECT_EQ(settings.cuda.cuda_path_env, std::nullopt);
    EXPECT_EQ(settings.cuda.path_env, "/bin:/usr/bin");
    EXPECT_EQ(settings.cuda.default_home, "/usr/local/cuda");
    EXPECT_EQ(settings.driver_library, "libcuda.so.1");
    EXPECT_EQ(settings.timeout, std::chrono::milliseconds(10000));
}

TEST(ReadSettings, FromOptionsAndEnvironment) {
    ProbeSettings settings =
        read_settings(options_with(true, "/venv/bin/python"),
                      from({{"CUDA_HOME", "/opt/cuda"},
                            {"CUDA_PATH", "/opt/cuda-path"},
                            {"PATH", "/a:/b"},
                            {"COLOSSALAI_CUDA_DEFAULT_HOME", "/nonexistent"},
                            {"COLOSSALAI_CUDA_DRIVER_LIBRARY", "/tmp/libcuda.so.1"},
                            {"COLOSSALAI_PROBE_TIMEOUT_MS", "250"}}));
    EXPECT_EQ(settings.python, "/venv/bin/python");
    EXPECT_EQ(settings.cuda.cuda_home_env, "/opt/cuda");
    EXPECT_EQ(settings.cuda.cuda_path_env, "/opt/cuda-path");
    EXPECT_EQ(settings.cuda.path_env, "/a:/b");
    EXPECT_EQ(settings.cuda.default_home, "/nonexistent");
    EXPECT_EQ(settings.driver_library, "/tmp/libcuda.so.1");
    EXPECT_EQ(settings.timeout, std::chrono::milliseconds(250));
}

TEST(ReadSettings, EmptyDriverLibraryMeansTheDefault) {
    ProbeSettings settings =
        read_settings(Options{}, from({{"COLOSSALAI_CUDA_DRIVER_LIBRARY", ""}}));
    EXPECT_EQ(settings.driver_library, "libcuda.so.1");
}

class BadTimeout : public ::testing::TestWithParam<const char*> {};

TEST_P(BadTimeout, IsAUsageError) {
    try {
        read_settings(Options{}, from({{"COLOSSALAI_PROBE_TIMEOUT_MS", GetParam()}}));
        ADD_FAILURE() << "accepted " << GetParam();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::usage);
        EXPECT_EQ(std::string(e.what()),
                  std::string("COLOSSALAI_PROBE_TIMEOUT_MS='") + GetParam() +
                      "': expected a whole number of milliseconds between 1 and 86400000");
    }
}

TEST(ReadSettings, ABadTimeoutIsEscapedInTheMessage) {
    try {
        read_settings(Options{}, from({{"COLOSSALAI_PROBE_TIMEOUT_MS", "10\n20"}}));
        ADD_FAILURE() << "accepted a value with a newline";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::usage);
        EXPECT_STREQ(e.what(), "COLOSSALAI_PROBE_TIMEOUT_MS='10\\x0a20': expected a whole number "
                               "of milliseconds between 1 and 86400000");
    }
}

INSTANTIATE_TEST_SUITE_P(Table, BadTimeout,
                         ::testing::Values("", "abc", "0", "-5", "1.5", "100ms", " 100", "86400001",
                                           "99999999999999999999"),
                         [](const auto& info) { return "value" + std::to_string(info.index); });

} // namespace
} // namespace colossalai::check
