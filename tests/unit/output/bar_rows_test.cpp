#include "bar_rows.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::output {
namespace {

using namespace std::chrono_literals;
using Clock = BarRows::Clock;

// Two bars' identities: any distinct addresses.
const int bar_a = 1;
const int bar_b = 2;

// Two bars, `a: 10%` over `b: 20%`, drawn.
struct TwoDrawnRows {
    TwoDrawnRows() {
        rows.update(&bar_a, a, "10%");
        rows.update(&bar_b, b, "20%");
        first = rows.redraw(80, Clock::time_point{});
    }
    std::string a = "a: ";
    std::string b = "b: ";
    BarRows rows{200ms};
    std::string first; // the bytes of the first drawing
};

TEST(BarRows, NothingToDrawLeavesLinesAsTheyAre) {
    BarRows rows(200ms);
    EXPECT_TRUE(rows.idle());
    EXPECT_FALSE(rows.due());
    EXPECT_EQ(rows.clear(), "");
}

TEST(BarRows, DrawsOneRowPerBarInOrderOfAppearance) {
    TwoDrawnRows f;
    EXPECT_FALSE(f.rows.idle());
    EXPECT_EQ(f.first, "a: 10%\nb: 20%");
    f.rows.update(&bar_a, f.a, "30%");
    // The cursor goes back up to the first row, which is cleared with all below it.
    EXPECT_EQ(f.rows.redraw(80, Clock::time_point{1s}), "\r\x1b[A\x1b[Ja: 30%\nb: 20%");
}

TEST(BarRows, LinesGoAboveTheRows) {
    BarRows rows(200ms);
    std::string a = "a: ";
    rows.update(&bar_a, a, "10%");
    EXPECT_EQ(rows.around("line\n", 80, Clock::time_point{}), "line\na: 10%");
    EXPECT_EQ(rows.around("next\n", 80, Clock::time_point{}), "\r\x1b[Jnext\na: 10%");
}

TEST(BarRows, AChangedRowIsDueOneIntervalAfterTheLastDrawing) {
    BarRows rows(200ms);
    std::string a = "a: ";
    rows.update(&bar_a, a, "10%");
    ASSERT_TRUE(rows.due());
    rows.redraw(80, Clock::time_point{5s});
    EXPECT_FALSE(rows.due());
    rows.update(&bar_a, a, "10%"); // the same state: nothing to draw
    EXPECT_FALSE(rows.due());
    rows.update(&bar_a, a, "11%");
    EXPECT_EQ(rows.due(), Clock::time_point{5s} + 200ms);
}

TEST(BarRows, AnEmptyStateTakesTheRowAway) {
    TwoDrawnRows f;
    f.rows.update(&bar_a, f.a, "");
    EXPECT_TRUE(f.rows.due());
    EXPECT_EQ(f.rows.redraw(80, Clock::time_point{}), "\r\x1b[A\x1b[Jb: 20%");
    f.rows.update(&bar_b, f.b, "");
    EXPECT_EQ(f.rows.redraw(80, Clock::time_point{}), "\r\x1b[J");
    EXPECT_TRUE(f.rows.idle());
}

TEST(BarRows, ThePrefixIsReadAtEveryDrawing) {
    BarRows rows(200ms);
    std::string prefix = "placeholder: ";
    rows.update(&bar_a, prefix, "1/9");
    prefix = "node7: ";
    EXPECT_EQ(rows.redraw(80, Clock::time_point{}), "node7: 1/9");
}

TEST(BarRows, ARowKeepsTheLastColumnFree) {
    BarRows rows(200ms);
    std::string a = "a: ";
    rows.update(&bar_a, a, std::string(40, '#'));
    EXPECT_EQ(rows.redraw(20, Clock::time_point{}), "a: " + std::string(16, '#'));
}

TEST(BarRows, ClearErasesTheDrawnRowsAndForgetsThem) {
    TwoDrawnRows f;
    EXPECT_EQ(f.rows.clear(), "\r\x1b[A\x1b[J");
    EXPECT_TRUE(f.rows.idle());
    EXPECT_EQ(f.rows.clear(), "");
}

TEST(FitColumns, CountsCharactersNotBytesAndKeepsEscapes) {
    EXPECT_EQ(fit_columns("abcdef", 4), "abcd");
    EXPECT_EQ(fit_columns("ab", 4), "ab");
    EXPECT_EQ(fit_columns("\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88", 2), "\xe2\x96\x88\xe2\x96\x88");
    EXPECT_EQ(fit_columns("\x1b[32mgreen\x1b[0m", 3), "\x1b[32mgre\x1b[0m");
    EXPECT_EQ(fit_columns("\x1b[32mab\x1b[0m", 3), "\x1b[32mab\x1b[0m");
}

} // namespace
} // namespace colossalai::output
