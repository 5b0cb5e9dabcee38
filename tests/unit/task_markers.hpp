#pragma once

// A task's lines as the tests write them (src/step/task_lines.hpp): `RANK RS BODY`.

#include "colossalai/step/task_lines.hpp"

#include <string>

namespace colossalai::test {

// ASCII RS, which follows the rank of every line of a task's, starts every marker and ends every
// frame of the relay's.
inline const std::string rs = "\x1e";

// A line of node `rank`'s task: `body` is a frame or a marker.
inline std::string task_line(std::size_t rank, const std::string& body) {
    return std::to_string(rank) + rs + body;
}
// The body of a frame of the relay's: `text` (its RS already doubled) and how it ended (`n`
// newline, `p` none; `N`, `P` for the job's stderr).
inline std::string frame(std::size_t rank, const std::string& text, char end = 'n') {
    return task_line(rank, text + rs + end);
}
// The wrapper's start marker's body: `rest` is `JOB.STEP NODE`.
inline std::string start_marker(const std::string& rest) {
    return std::string(step::task_start_marker) + rest;
}
// Its exit marker's body: `rest` is the job's status.
inline std::string exit_marker(const std::string& rest) {
    return std::string(step::task_exit_marker) + rest;
}

} // namespace colossalai::test
