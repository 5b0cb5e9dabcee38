#pragma once

#include "colossalai/check/facts.hpp"
#include "colossalai/util/fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::check {

// What the CUDA driver library said.
struct DriverFacts {
    std::optional<std::string> library;      // the file that was loaded
    std::optional<std::string> cuda_version; // "12.4"
    std::optional<std::vector<Gpu>> gpus;    // nullopt when they could not be listed
    std::vector<std::string> warnings;
};

// cuDriverGetVersion's number as MAJOR.MINOR: 12040 -> "12.4", 11080 -> "11.8",
// 12100 -> "12.10". nullopt for values that are no version (<= 0).
std::optional<std::string> format_driver_version(int version);

// True when `path` (or a directory above it) is a `stubs` directory: the CUDA toolkit's link-time
// stub of libcuda, which has no driver behind it and must never be used.
bool is_stub_library(std::string_view path);

// The probe child writes one fact per line:
//   library PATH | stub | version N | error MESSAGE | count N | gpu CC NAME | end
// (CC is MAJOR.MINOR or "-"). GPUs count only once `end` arrived; `error` lines become warnings.
// A `stub` line discards everything and warns.
DriverFacts parse_driver_answer(std::string_view answer);

// Loads the driver (`library`, normally "libcuda.so.1") in a forked child, so that a driver that
// hangs or crashes in cuInit costs at most `timeout` and never the report. The library is never
// linked, only dlopen()ed; a stub library is unloaded at once. Start it before any thread exists.
class DriverProbe {
public:
    explicit DriverProbe(const std::string& library);
    ~DriverProbe(); // kills and reaps the child if finish() was not called
    DriverProbe(const DriverProbe&) = delete;
    DriverProbe& operator=(const DriverProbe&) = delete;

    // Waits for the child's answer until `timeout` from now; a child that does not finish in time
    // is killed. No driver at all is no warning: that is an ordinary CPU-only machine.
    DriverFacts finish(std::chrono::milliseconds timeout);

private:
    pid_t m_pid = -1;
    util::Fd m_fd; // the read end of the child's answer
    std::string m_library;
};

} // namespace colossalai::check
