#pragma once

// Private to the check module: the code that runs in the driver probe's forked child.

namespace colossalai::check {

// Loads `library` with dlopen, asks the driver for its CUDA version and its GPUs, and writes the
// answer lines (see parse_driver_answer) to `fd`. Runs in the child only; never returns.
[[noreturn]] void run_driver_probe_child(const char* library, int fd);

} // namespace colossalai::check
