#pragma once

// Shared by the flood tests of local and SSH launches: the lines each node prints, and a checksum
// to verify them while streaming the launcher's output back.

#include <cstdint>
#include <cstdio>
#include <string>

namespace colossalai::test {

// Line `i` (from 1) of node `rank`, without its newline: what `seq -f` prints. Node 0 floods
// (100 bytes with the newline), the others trickle.
inline std::string flood_line(int rank, long i) {
    char text[128];
    if (rank == 0) {
        std::snprintf(text, sizeof text, "%09ld %s", i,
                      "flood-flood-flood-flood-flood-flood-flood-flood-flood-flood-flood-flood-"
                      "flood-flood-flood");
    } else {
        std::snprintf(text, sizeof text, "%06ld trickle", i);
    }
    return text;
}

// FNV-1a over the bytes of the lines (each with its newline), in order.
struct Checksum {
    std::uint64_t value = 14695981039346656037ull;
    void add(const std::string& line) {
        for (unsigned char c : line) {
            value = (value ^ c) * 1099511628211ull;
        }
        value = (value ^ '\n') * 1099511628211ull;
    }
};

} // namespace colossalai::test
