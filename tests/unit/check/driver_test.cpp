#include "colossalai/check/driver.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

struct VersionCase {
    int number;
    std::optional<std::string> text;
};

class FormatDriverVersion : public ::testing::TestWithParam<VersionCase> {};

TEST_P(FormatDriverVersion, IsMajorDotMinor) {
    EXPECT_EQ(format_driver_version(GetParam().number), GetParam().text) << GetParam().number;
}

INSTANTIATE_TEST_SUITE_P(Table, FormatDriverVersion,
                         ::testing::Values(VersionCase{12040, "12.4"}, VersionCase{11080, "11.8"},
                                           VersionCase{12000, "12.0"}, VersionCase{13000, "13.0"},
                                           VersionCase{10020, "10.2"}, VersionCase{12100, "12.10"},
                                           VersionCase{0, std::nullopt},
                                           VersionCase{-1, std::nullopt}),
                         [](const auto& info) {
                             return "n" + std::to_string(info.index) + "_" +
                                    std::to_string(info.param.number < 0 ? 0 : info.param.number);
                         });

TEST(IsStubLibrary, LooksForAStubsDirectory) {
    EXPECT_TRUE(is_stub_library("/usr/local/cuda/lib64/stubs/libcuda.so.1"));
    EXPECT_TRUE(is_stub_library("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so"));
    EXPECT_TRUE(is_stub_library("stubs/libcuda.so.1"));
    EXPECT_TRUE(is_stub_library("/opt/stubs/x/libcuda.so.1"));
    EXPECT_FALSE(is_stub_library("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
    EXPECT_FALSE(is_stub_library("/opt/mystubs/libcuda.so.1"));
    EXPECT_FALSE(is_stub_library("/opt/stubs.d/libcuda.so.1"));
    EXPECT_FALSE(is_stub_library("libcuda.so.1"));
    EXPECT_FALSE(is_stub_library("/usr/lib/stubs"));
}

TEST(ParseDriverAnswer, FullAnswer) {
    DriverFacts facts = parse_driver_answer("library /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
                                            "version 12040\n"
                                            "count 2\n"
                                            "gpu 9.0 NVIDIA H100 80GB HBM3\n"
                                            "gpu - NVIDIA A100-SXM4-40GB\n"
                                            "end\n");
    EXPECT_EQ(facts.library, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    EXPECT_EQ(facts.cuda_version, "12.4");
    ASSERT_TRUE(facts.gpus.has_value());
    ASSERT_EQ(facts.gpus->size(), 2u);
    EXPECT_EQ((*facts.gpus)[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ((*facts.gpus)[0].compute_capability, "9.0");
    EXPECT_EQ((*facts.gpus)[1].name, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ((*facts.gpus)[1].compute_capability, std::nullopt);
    EXPECT_TRUE(facts.warnings.empty());
}

TEST(ParseDriverAnswer, NoDevicesIsAnEmptyList) {
    DriverFacts facts =
        parse_driver_answer("library /l/libcuda.so.1\nversion 11080\ncount 0\nend\n");
    EXPECT_EQ(facts.cuda_version, "11.8");
    ASSERT_TRUE(facts.gpus.has_value());
    EXPECT_TRUE(facts.gpus->empty());
}

TEST(ParseDriverAnswer, GpusWithoutEndAreUnknown) {
    // The child died while listing: the list it gave may be incomplete.
    DriverFacts facts = parse_driver_answer("library /l\nversion 12040\ncount 2\ngpu 8.0 A100\n");
    EXPECT_EQ(facts.cuda_version, "12.4");
    EXPECT_EQ(facts.gpus, std::nullopt);
}

TEST(ParseDriverAnswer, ErrorsBecomeWarnings) {
    DriverFacts facts = parse_driver_answer(
        "library /l\nversion 12040\nerror cuInit failed: CUDA_ERROR_UNKNOWN (999)\n");
    EXPECT_EQ(facts.cuda_version, "12.4");
    EXPECT_EQ(facts.gpus, std::nullopt);
    ASSERT_EQ(facts.warnings.size(), 1u);
    EXPECT_EQ(facts.warnings[0], "CUDA driver: cuInit failed: CUDA_ERROR_UNKNOWN (999)");
}

TEST(ParseDriverAnswer, StubDiscardsEverything) {
    DriverFacts facts =
        parse_driver_answer("library /usr/local/cuda/lib64/stubs/libcuda.so.1\nstub\n");
    EXPECT_EQ(facts.library, std::nullopt);
    EXPECT_EQ(facts.cuda_version, std::nullopt);
    EXPECT_EQ(facts.gpus, std::nullopt);
    ASSERT_EQ(facts.warnings.size(), 1u);
    EXPECT_EQ(facts.warnings[0],
              "/usr/local/cuda/lib64/stubs/libcuda.so.1 is the CUDA stub library, not a driver "
              "(is a 'stubs' directory in LD_LIBRARY_PATH?); driver values are N/A");
}

TEST(ParseDriverAnswer, NothingAndGarbage) {
    DriverFacts none = parse_driver_answer("");
    EXPECT_EQ(none.library, std::nullopt);
    EXPECT_EQ(none.cuda_version, std::nullopt);
    EXPECT_EQ(none.gpus, std::nullopt);
    EXPECT_TRUE(none.warnings.empty());

    DriverFacts garbage = parse_driver_answer("version abc\nversion 0\ngpu\nbogus line\n");
    EXPECT_EQ(garbage.cuda_version, std::nullopt);
    EXPECT_EQ(garbage.gpus, std::nullopt);
}

} // namespace
} // namespace colossalai::check
