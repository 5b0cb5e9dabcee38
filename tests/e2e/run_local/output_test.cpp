// The output of local nodes: one node's bytes pass unchanged; with several nodes every line is
// whole and carries its host's prefix, however the nodes' writes interleave.

#include "launch_fixture.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

std::string one_mib(size_t n, char c) {
    return std::string(n << 20, c);
}

TEST_F(RunLaunch, OneNodesOutputPassesByteForByte) {
    const std::string out_1 = "first line\n" + one_mib(1, 'x') + "\n\xff\xfe\x80 not UTF-8\r\n";
    const std::string out_2 = one_mib(1, 'y') + "\n\tno newline at the end";
    const std::string err_1 = "a warning\n\xc3\x28 invalid\n";
    const std::string err_2 = one_mib(1, 'z') + "\n";
    state_file("out1", out_1);
    state_file("out2", out_2);
    state_file("err1", err_1);
    state_file("err2", err_2);
    behave("all", "out out1\nerr err1\nout out2\nerr err2\n");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_TRUE(result.out == out_1 + out_2) << result.out.size() << " bytes on stdout";
    EXPECT_TRUE(result.err == err_1 + err_2 + summary_block({"127.0.0.1: success"}))
        << result.err.size() << " bytes on stderr";
}

// The summary is found by its header at the start of a line, even after a progress bar (`\r`,
// no newline) on the node's stderr; stdout is left exactly as the node wrote it.
TEST_F(RunLaunch, TheSummaryStartsOnALineOfItsOwn) {
    behave("all", "printf 'no newline on stdout'\nprintf '\\r 50%%|#####     |' >&2\n");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out, "no newline on stdout");
    EXPECT_EQ(result.err, "\r 50%|#####     |\n" + summary_block({"127.0.0.1: success"}));
}

// What node `rank` prints as line `i` of `stream`: mostly short, sometimes far longer than the
// launcher's 32 KiB line buffer, with bytes that are not UTF-8.
std::string line_content(int rank, const std::string& stream, int i) {
    size_t length = i % 250 == 7 ? 100000 : static_cast<size_t>(i * 7919 % 3000);
    return stream + " of rank " + std::to_string(rank) + " line " + std::to_string(i) + " \xff " +
           std::string(length, static_cast<char>('a' + i % 26));
}

// Checks that `text` is made of lines `HOST: CONTENT`, each host's lines in order and complete
// (`expected` per host), the last one ended by a newline. A line longer than the launcher's
// 32 KiB line buffer comes in pieces, the later ones prefixed `HOST (cont.): `.
void expect_whole_prefixed_lines(const std::string& text,
                                 const std::map<std::string, Words>& expected) {
    std::map<std::string, Words> got;
    std::map<std::string, bool> open; // a line of the host that a `(cont.)` piece may continue
    size_t bad = 0;
    for (const std::string& line : lines_of(text)) {
        size_t colon = line.find(": ");
        if (colon == std::string::npos) {
            ++bad;
            continue;
        }
        std::string host = line.substr(0, colon);
        std::string content = line.substr(colon + 2);
        const std::string cont = " (cont.)";
        if (host.size() > cont.size() && host.ends_with(cont)) {
            host.resize(host.size() - cont.size());
            if (!open[host]) {
                ++bad;
                continue;
            }
            got[host].back() += content;
            continue;
        }
        got[host].push_back(content);
        open[host] = true;
    }
    EXPECT_EQ(bad, 0u) << "lines without a host, or continuing nothing";
    for (const auto& [host, lines] : expected) {
        const Words& lines_got = got[host];
        EXPECT_EQ(lines_got.size(), lines.size()) << host;
        size_t mismatches = 0;
        for (size_t i = 0; i < std::min(lines.size(), lines_got.size()); ++i) {
            mismatches += lines_got[i] != lines[i] ? 1 : 0;
        }
        EXPECT_EQ(mismatches, 0u) << host << ": lines that differ from what the node printed";
    }
    EXPECT_EQ(got.size(), expected.size()) << "lines of unknown hosts";
    EXPECT_TRUE(text.empty() || text.back() == '\n');
}

TEST_F(RunLaunch, SeveralNodesLinesAreWholeAndNeverMixed) {
    two_local_nodes();
    const int count = 3000;
    std::map<std::string, Words> out_lines;
    std::map<std::string, Words> err_lines;
    for (int rank : {0, 1}) {
        std::string host = rank == 0 ? "localhost" : "127.0.0.1";
        std::string out, err;
        for (int i = 0; i < count; ++i) {
            out_lines[host].push_back(line_content(rank, "out", i));
            err_lines[host].push_back(line_content(rank, "err", i));
            out += out_lines[host].back() + "\n";
            err += err_lines[host].back() + "\n";
        }
        state_file("out" + std::to_string(rank), out);
        state_file("err" + std::to_string(rank), err);
    }
    // Both streams of both nodes at once: `cat` writes 128 KiB at a time, whatever the lines.
    behave("all", "out out$rank &\nerr err$rank\nwait\n");
    RunResult result = run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0);
    expect_whole_prefixed_lines(result.out, out_lines);
    const std::string end = summary_block({"localhost: success", "127.0.0.1: success"});
    ASSERT_GE(result.err.size(), end.size());
    EXPECT_EQ(result.err.substr(result.err.size() - end.size()), end);
    expect_whole_prefixed_lines(result.err.substr(0, result.err.size() - end.size()), err_lines);
}

// A line far past the line buffer never holds the other node's lines: it comes in prefixed
// pieces, marked as continued, and nothing of it is lost.
TEST_F(RunLaunch, ALongLineWithoutNewlineComesInPiecesAndHoldsNoOtherNode) {
    two_local_nodes();
    state_file("long", "\xfe" + one_mib(1, 'L'));
    Words lines;
    std::string text;
    for (int i = 0; i < 20000; ++i) {
        lines.push_back("short line " + std::to_string(i));
        text += lines.back() + "\n";
    }
    state_file("short", text);
    // Node 0's line stays open until node 1 has printed everything (a barrier in between).
    behave("0", "out long\nwhile [ ! -e \"$record/1.ready\" ]; do sleep 0.01; done\n");
    behave("1", "out short\nready\n");
    RunResult result = run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0);
    expect_whole_prefixed_lines(result.out,
                                {{"localhost", {"\xfe" + one_mib(1, 'L')}}, {"127.0.0.1", lines}});
    EXPECT_NE(result.out.find("\nlocalhost (cont.): LLL"), std::string::npos);
}

TEST_F(RunLaunch, ANodeThatClosesItsOutputIsStillWaitedFor) {
    // Closing both streams is not the end: the exit status is.
    behave("all", "printf 'before closing'\nexec >&- 2>&-\nsleep 0.2\nexit 4\n");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 4);
    EXPECT_EQ(result.out, "before closing");
    EXPECT_EQ(result.err, summary_block({"127.0.0.1: failure (exit code 4)"}));
}

TEST_F(RunLaunch, ANodeThatClosesItsStdoutKeepsItsStderr) {
    two_local_nodes();
    behave("0", "printf 'before closing'\nexec >&-\n: >\"$record/0.closed\"\n"
                "while [ ! -e \"$record/1.ready\" ]; do sleep 0.01; done\n"
                "echo 'still running' >&2\n");
    behave("1", "while [ ! -e \"$record/0.closed\" ]; do sleep 0.01; done\n"
                "echo 'after the close'\nready\n");
    RunResult result = run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    Words out = lines_of(result.out);
    std::sort(out.begin(), out.end()); // the two nodes' order is not fixed
    EXPECT_EQ(out, Words({"127.0.0.1: after the close", "localhost: before closing"}));
    EXPECT_EQ(result.err, "localhost: still running\n" +
                              summary_block({"localhost: success", "127.0.0.1: success"}));
}

} // namespace
} // namespace colossalai::test
