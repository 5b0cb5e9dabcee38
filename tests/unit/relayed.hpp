#pragma once

// Two nodes' jobs as one launcher process (srun, mpirun) carries them: each job run under the
// real relay (perl, step/relay.hpp), so that the demultiplexer's tests read real frames.

#include "files.hpp"
#include "process.hpp"

#include "colossalai/step/relay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace colossalai::test {

struct TwoNodesRelayed {
    std::array<std::string, 2> bytes; // what each node's job wrote on stdout
    std::array<std::string, 2> err;   // and on stderr (packets only)
    std::string output; // what the launcher's stdout (own_streams) or stderr (packets) carries
};

// Each node's job writes lines over 64 KiB, `\r` bars, RS, NUL, invalid UTF-8 and no final
// newline; its relay's lines are prefixed with `labels[rank]` (srun's `N: `, or nothing as from
// mpirun) and the two nodes' lines interleaved one by one. With `packets` (mpirun's channel) the
// job also writes other bytes on stderr, and every frame of both comes on the relay's stderr, one
// packet each: the lines interleaved one by one are the daemons' reads as mpirun writes them.
inline TwoNodesRelayed
two_nodes_relayed(const std::array<std::string, 2>& labels,
                  step::RelayChannel channel = step::RelayChannel::own_streams) {
    bool packets = channel == step::RelayChannel::stderr_packets;
    TwoNodesRelayed relayed;
    std::array<std::vector<std::string>, 2> lines;
    for (std::size_t rank = 0; rank < 2; ++rank) {
        std::string& bytes = relayed.bytes[rank];
        bytes = "rank " + std::to_string(rank) + " bar 1%\r bar 2%\r\n";
        bytes.append(70000 + rank * 1000, static_cast<char>('a' + rank)).append("\n");
        bytes.append(std::string("\x1e\0\xff", 3)).append(66000, 'z');
        bytes += "\r\nno final newline";
        if (packets) {
            relayed.err[rank] = "warning: " + bytes.substr(0, 70000) + "\r";
        }
        TempDir dir;
        dir.write("bytes", bytes);
        dir.write("err", relayed.err[rank]);
        RunOptions options;
        options.cwd = dir.path();
        RunResult result =
            run({"perl", "-e", std::string(step::relay_program()), std::to_string(rank),
                 std::string(step::relay_argument(channel)), "sh", "-c", "cat bytes; cat err >&2"},
                options);
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        EXPECT_EQ(packets ? result.out : result.err, "");
        const std::string& carried = packets ? result.err : result.out;
        std::size_t begin = 0;
        for (std::size_t end; (end = carried.find('\n', begin)) != std::string::npos;
             begin = end + 1) {
            lines[rank].push_back(labels[rank] + carried.substr(begin, end + 1 - begin));
        }
    }
    for (std::size_t i = 0; i < std::max(lines[0].size(), lines[1].size()); ++i) {
        for (const std::vector<std::string>& node : lines) {
            relayed.output += i < node.size() ? node[i] : "";
        }
    }
    return relayed;
}

// The sizes of the reads a test cuts `total` bytes of the launcher's output into: one byte at a
// time, a few, across frames, more than 64 KiB, all at once.
inline std::vector<std::size_t> read_sizes(std::size_t total) {
    return {1, 7, 1000, 65536 + 13, total};
}

} // namespace colossalai::test
