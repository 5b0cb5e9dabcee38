// A node flooding its output over SSH: 200 MB through the channel while another node trickles.
// The launcher stays small (the SSH window is its backpressure) and every line arrives once,
// whole, prefixed with its host, in order per host. Figures in docs/reliability.md ("Faults,
// measured", over SSH).

#include "fault_job.hpp"
#include "flood.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshFlood : public SharedSshCluster<2> {};

// node1 prints 200 MB (2,000,000 lines of 100 bytes) while node2 prints 100,000 short lines; the
// launcher's stdout is a file, read back one line at a time (never held whole).
TEST_F(SshFlood, TwoHundredMegabytesKeepTheLauncherSmallAndEveryLineWhole) {
    const long flood_lines = 2000000;
    const long trickle_lines = 100000;
    ASSERT_EQ(flood_line(0, 1).size() + 1, 100u);
    FaultJob job(cluster(), "flood");
    job.behave("0", "seq -f '%09.0f " + flood_line(0, 1).substr(10) + "' 1 " +
                        std::to_string(flood_lines) + "\n");
    job.behave("1", "seq -f '%06.0f trickle' 1 " + std::to_string(trickle_lines) + "\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2");
    struct rusage usage {};
    EXPECT_EQ(exit_code_of(*launcher, 600s, &usage), 0) << job.err();
    EXPECT_EQ(job.err(), summary_block({"node1: success", "node2: success"}));

    const std::vector<std::string> prefixes = {"node1: ", "node2: "};
    const std::vector<long> expected_counts = {flood_lines, trickle_lines};
    std::vector<long> counts = {0, 0};
    std::vector<Checksum> got(2), expected(2);
    long bad = 0;
    long bytes = 0;
    std::string first_bad;
    std::ifstream out(job.out_file(), std::ios::binary);
    std::string line;
    while (std::getline(out, line)) {
        bytes += static_cast<long>(line.size()) + 1;
        int rank = line.rfind(prefixes[0], 0) == 0 ? 0 : line.rfind(prefixes[1], 0) == 0 ? 1 : -1;
        std::string content = rank < 0 ? "" : line.substr(prefixes[rank].size());
        if (rank >= 0) {
            got[rank].add(content);
        }
        long index = rank < 0 ? 0 : ++counts[rank];
        if (rank < 0 || index > expected_counts[rank] || content != flood_line(rank, index)) {
            if (bad++ == 0) {
                first_bad = line.substr(0, 200);
            }
        }
    }
    for (int rank : {0, 1}) {
        for (long i = 1; i <= expected_counts[rank]; ++i) {
            expected[rank].add(flood_line(rank, i));
        }
        EXPECT_EQ(counts[rank], expected_counts[rank]) << "lines of node " << rank;
        EXPECT_EQ(got[rank].value, expected[rank].value) << "checksum of node " << rank;
    }
    EXPECT_EQ(bad, 0) << "lines that are not the next whole line of their node, first: "
                      << first_bad;
    long max_rss_kib = usage.ru_maxrss;
    std::printf("[ measured ] flood over SSH: %ld bytes on stdout, %ld + %ld lines, launcher peak "
                "RSS %ld KiB\n",
                bytes, counts[0], counts[1], max_rss_kib);
#if !defined(COLOSSALAI_TEST_SANITIZED)
    // Sanitizer runtimes map shadow memory and keep freed blocks in quarantine.
    EXPECT_LT(max_rss_kib, 30 * 1024) << "peak RSS of the launcher (and what it waited for)";
#endif
    job.expect_none_left(10s);
}

} // namespace
} // namespace colossalai::test
