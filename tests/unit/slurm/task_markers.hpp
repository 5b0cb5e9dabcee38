#pragma once

// The wrapper's lines as the slurm tests write them (src/slurm/task_lines.hpp).

#include "task_lines.hpp"

#include <string>

namespace colossalai::test {

// ASCII RS, which starts every line of the wrapper's own and ends every frame of the relay's.
inline const std::string rs = "\x1e";

// The wrapper's start line without srun's label: `rest` is `RANK JOB.STEP NODE`.
inline std::string start_marker(const std::string& rest) {
    return std::string(slurm::task_start_marker) + rest;
}
// Its exit line without the label: `rest` is the job's status.
inline std::string exit_marker(const std::string& rest) {
    return std::string(slurm::task_exit_marker) + rest;
}

} // namespace colossalai::test
