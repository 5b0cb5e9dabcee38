#include "colossalai/output/line_assembler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::output {
namespace {

// The pieces as `[+]text|` (+: continued, | : ends its line, ~ : a bar's last state).
std::string show(const std::vector<Piece>& pieces) {
    std::string text;
    for (const Piece& piece : pieces) {
        text += piece.continued ? "[+]" : "[]";
        text += piece.bar ? "~" : "";
        text += piece.text;
        text += piece.ends_line ? "|" : ".";
    }
    return text;
}

std::string feed(LineAssembler& lines, std::string_view bytes) {
    std::vector<Piece> pieces;
    lines.feed(bytes, pieces);
    return show(pieces);
}

TEST(LastSegment, IsWhatATerminalShowsLastOfALineWithCarriageReturns) {
    EXPECT_EQ(last_segment("plain"), "plain");
    EXPECT_EQ(last_segment("\r 10%\r 20%"), " 20%"); // tqdm: `\r` before each state
    EXPECT_EQ(last_segment("10%\r20%\r"), "20%");    // others: `\r` after each state
    EXPECT_EQ(last_segment("10%\r20%\r\r"), "20%");
    EXPECT_EQ(last_segment("\r\r"), "");
    EXPECT_EQ(last_segment(""), "");
}

TEST(LineAssembler, GivesOutWholeLinesWithTheirTerminator) {
    LineAssembler lines(1024);
    EXPECT_EQ(feed(lines, "one\ntw"), "[]one\n|");
    EXPECT_EQ(lines.held(), 2u);
    EXPECT_EQ(feed(lines, "o\r\nthree\n"), "[]two\r\n|[]three\n|");
    EXPECT_EQ(lines.held(), 0u);
    EXPECT_EQ(feed(lines, "\n"), "[]\n|");
}

TEST(LineAssembler, KeepsEveryByteOfALineWithoutCarriageReturns) {
    LineAssembler lines(1024);
    std::string bytes("\x00\x01\xc3\x28\xff\t", 6);
    EXPECT_EQ(feed(lines, bytes + "\n"), "[]" + bytes + "\n|");
}

TEST(LineAssembler, AProgressBarIsItsLatestStateAndEndsAsItsLastState) {
    LineAssembler lines(1024);
    EXPECT_EQ(feed(lines, "\r  0%|"), "");
    EXPECT_EQ(lines.bar(), "  0%|");
    EXPECT_EQ(feed(lines, "\r 50%|###"), "");
    EXPECT_EQ(lines.bar(), " 50%|###");
    EXPECT_EQ(feed(lines, "\r100%|######|\n"), "[]~100%|######|\n|");
    EXPECT_EQ(lines.bar(), "");
}

TEST(LineAssembler, APartialLineWithoutCarriageReturnIsNoBar) {
    LineAssembler lines(1024);
    feed(lines, "loading...");
    EXPECT_EQ(lines.bar(), "");
    feed(lines, "\r");
    EXPECT_EQ(lines.bar(), "loading...");
}

TEST(LineAssembler, AnOverlongLineIsGivenOutInPiecesThatSayTheyContinue) {
    LineAssembler lines(8);
    EXPECT_EQ(feed(lines, "0123456"), "");
    EXPECT_EQ(feed(lines, "789ab"), "[]0123456789ab.");
    EXPECT_EQ(lines.held(), 0u);
    EXPECT_EQ(feed(lines, "cdefghij"), "[+]cdefghij.");
    EXPECT_EQ(feed(lines, "k\nnext\n"), "[+]k\n|[]next\n|");
}

TEST(LineAssembler, AnOverlongBarKeepsOnlyItsLatestState) {
    LineAssembler lines(16);
    EXPECT_EQ(feed(lines, "\r 10%|#\r 20%|##\r 30%|###"), "");
    EXPECT_LT(lines.held(), 16u); // the states replaced are dropped
    EXPECT_EQ(lines.bar(), " 30%|###");
    EXPECT_EQ(feed(lines, "\r" + std::string(20, '#')), "[]" + std::string(20, '#') + ".");
    EXPECT_EQ(lines.bar(), "");
}

TEST(LineAssembler, ClosingEndsTheLastLine) {
    LineAssembler lines(1024);
    std::vector<Piece> pieces;
    lines.close(pieces);
    EXPECT_EQ(show(pieces), ""); // nothing held: nothing given out
    feed(lines, "no newline");
    lines.close(pieces);
    EXPECT_EQ(show(pieces), "[]no newline\n|");
    pieces.clear();
    feed(lines, "\r 99%");
    lines.close(pieces);
    EXPECT_EQ(show(pieces), "[]~ 99%\n|");
}

TEST(LineAssembler, ClosingAfterAPieceEndsNothingMore) {
    LineAssembler lines(4);
    EXPECT_EQ(feed(lines, "abcdef"), "[]abcdef.");
    std::vector<Piece> pieces;
    lines.close(pieces);
    EXPECT_EQ(show(pieces), "");             // the piece had its newline from the writer
    EXPECT_EQ(feed(lines, "x\n"), "[]x\n|"); // not continued after a close
}

} // namespace
} // namespace colossalai::output
