#include "colossalai/job/shared_vector.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace colossalai::job {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// The planner gives 100,000 nodes one environment: the copies hold the same elements.
TEST(SharedVector, CopiesShareTheElements) {
    SharedVector<std::pair<std::string, std::string>> one = Pairs{{"PATH", "/bin"}, {"A", "1"}};
    const SharedVector<std::pair<std::string, std::string>> two = one;
    EXPECT_TRUE(two.shares_with(one));
    EXPECT_EQ(two, one);
    EXPECT_EQ(two, (Pairs{{"PATH", "/bin"}, {"A", "1"}}));
    // Reading (through a const object, as the transports do) keeps sharing.
    EXPECT_EQ(two.size(), 2u);
    EXPECT_EQ(two.front().first, "PATH");
    EXPECT_EQ(two[1].second, "1");
    EXPECT_EQ(&two.get(), &std::as_const(one).get());
    EXPECT_TRUE(two.shares_with(one));
}

// A change through one copy copies its elements first: the others never see it.
TEST(SharedVector, AChangeCopiesFirst) {
    SharedVector<std::string> one = {"a", "b"};
    SharedVector<std::string> two = one;
    two.back() = "changed";
    EXPECT_FALSE(two.shares_with(one));
    EXPECT_EQ(one, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(two, (std::vector<std::string>{"a", "changed"}));
    // Alone, it changes in place.
    const std::string* before = &two.get().front();
    two.front() = "x";
    two[1] = "y";
    EXPECT_EQ(&two.get().front(), before);
    EXPECT_EQ(two, (std::vector<std::string>{"x", "y"}));

    SharedVector<std::string> three = one;
    three.push_back("c");
    *three.begin() = "z";
    EXPECT_EQ(one, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(three, (std::vector<std::string>{"z", "b", "c"}));
}

TEST(SharedVector, EmptyUntilSomethingGoesIn) {
    SharedVector<int> none;
    EXPECT_TRUE(none.empty());
    const auto& view = none;
    EXPECT_EQ(view.begin(), view.end());
    EXPECT_EQ(none, std::vector<int>{});
    SharedVector<int> copy = none;
    EXPECT_FALSE(copy.shares_with(none)); // nothing to share
    copy.push_back(7);
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(copy, std::vector<int>{7});
}

} // namespace
} // namespace colossalai::job
