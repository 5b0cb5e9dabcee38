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
    std::array<std::string, 2> bytes; // what each node's job wrote
    std::string output;               // what the launcher's stdout carries
};

// Each node's job writes lines over 64 KiB, `\r` bars, RS, NUL, invalid UTF-8 and no final
// newline; its relay's lines are prefixed with `labels[rank]` (srun's `N: `, or nothing as from
// mpirun) and the two nodes' lines interleaved one by one.
inline TwoNodesRelayed two_nodes_relayed(const std::array<std::string, 2>& labels) {
    TwoNodesRelayed relayed;
    std::array<std::vector<std::string>, 2> lines;
    for (std::size_t rank = 0; rank < 2; ++rank) {
        std::string& bytes = relayed.bytes[rank];
        bytes = "rank " + std::to_string(rank) + " bar 1%\r bar 2%\r\n";
        bytes.append(70000 + rank * 1000, static_cast<char>('a' + rank)).append("\n");
        bytes.append(std::string("\x1e\0\xff", 3)).append(66000, 'z');
        bytes += "\r\nno final newline";
        TempDir dir;
        dir.write("bytes", bytes);
        RunOptions options;
        options.cwd = dir.path();
        RunResult result = run({"perl", "-e", std::string(step::relay_program()),
                                std::to_string(rank), "cat", "bytes"},
                               options);
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        std::size_t begin = 0;
        for (std::size_t end; (end = result.out.find('\n', begin)) != std::string::npos;
             begin = end + 1) {
            lines[rank].push_back(labels[rank] + result.out.substr(begin, end + 1 - begin));
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
