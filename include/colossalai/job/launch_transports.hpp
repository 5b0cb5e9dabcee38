#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/process.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace colossalai::job {

// What the loop's side of a launch lends the transports: where a notice goes (the launcher's
// stderr, between the nodes' lines). A node whose name is learnt late (srun's allocation) says
// so through its Process::host().
struct LaunchHooks {
    std::function<void(std::string_view)> notice;
};

// The transports of one launch, made once by the engine its plan's launch intent names
// (engines::make_transports): which of them starts each node, and what the launch reports at
// its end. The loop never asks which engine runs.
class LaunchTransports {
public:
    virtual ~LaunchTransports() = default;
    // The transport that starts `node`, one of the plan's nodes; the same for the launch's life.
    virtual Transport& transport_for(const NodeCommand& node) = 0;
    // COLOSSALAI_TIMING: where the time went (SSH hosts); empty when the engine measures none.
    virtual std::string timing_report() const { return {}; }
    // True while a connection is still being set up on a worker thread (one given up on): the
    // launcher then leaves at once rather than wait for its timeout.
    virtual bool busy() const { return false; }
};

} // namespace colossalai::job
