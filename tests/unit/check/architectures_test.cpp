#include "colossalai/check/architectures.hpp"
#include "colossalai/util/version.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

struct ArchCase {
    const char* cuda;
    const char* cc;
    std::optional<bool> supported;
};

TEST(CudaSupportsArchitecture, FirstReleaseUpToTheOneThatDroppedIt) {
    for (const ArchCase& c : std::initializer_list<ArchCase>{
             {"12.1", "9.0", true},         // H100 on cu121
             {"11.7", "9.0", false},        // H100 needs 11.8
             {"11.8", "9.0", true},         //
             {"12.1", "8.0", true},         // A100
             {"11.0", "8.6", false},        // RTX 30xx needs 11.1
             {"12.6", "12.0", false},       // RTX 50xx needs 12.8 ("sm_120 is not compatible")
             {"12.8", "12.0", true},        //
             {"12.8", "10.0", true},        // B200
             {"12.4", "10.0", false},       //
             {"12.8", "3.5", false},        // Kepler dropped in 12.0
             {"11.8", "3.5", true},         //
             {"13.0", "7.0", false},        // Volta dropped in 13.0
             {"12.9", "7.0", true},         //
             {"12.10", "7.0", true},        // 12.10 < 13.0, not 12.1
             {"13.0", "11.0", true},        // Thor as 11.0
             {"12.9", "11.0", false},       //
             {"12.1", "9.9", std::nullopt}, // not in the table
             {"abc", "9.0", std::nullopt},  {"12.1", "", std::nullopt},
         }) {
        EXPECT_EQ(cuda_supports_architecture(c.cuda, c.cc), c.supported)
            << "CUDA " << c.cuda << ", compute capability " << c.cc;
    }
}

TEST(ArchitectureTable, OrderedAndEveryReleaseParses) {
    std::pair<int, int> previous{0, 0};
    for (const ArchitectureSupport& row : architecture_table()) {
        std::pair<int, int> cc{row.major, row.minor};
        EXPECT_LT(previous, cc);
        previous = cc;
        auto first = util::parse_version(row.first_cuda);
        ASSERT_TRUE(first) << row.first_cuda;
        if (row.removed_cuda != nullptr) {
            auto removed = util::parse_version(row.removed_cuda);
            ASSERT_TRUE(removed);
            EXPECT_LT(*first, *removed) << row.major << "." << row.minor;
        }
    }
    EXPECT_EQ(find_architecture("9.0")->first_cuda, std::string("11.8"));
    EXPECT_EQ(find_architecture("9.1"), nullptr);
}

} // namespace
} // namespace colossalai::check
