#pragma once

// Private to the run module: the planner's first steps, where the nodes are (planner.cpp makes
// the plan from them). Which hosts a run gets, what each is called on the network and whether it
// is this machine, and node 0's address as the other nodes reach it when nobody named it.

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/options.hpp"
#include "colossalai/run/planner.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

// The hosts to run on and, for messages, where they came from.
struct HostSource {
    std::vector<Host> hosts;
    std::string source;
    std::optional<std::string> notice; // where the hosts came from, when the user did not say
    bool allocated = false;            // srun allocates: the hosts are placeholders
    bool implicit = false;             // no host given: this machine, never reached over SSH
};

// The hosts of --host, the hostfile, the batch job's or srun's allocation (with --include,
// --exclude, --num_nodes; those `engine` finds itself), else this machine (unless the engine
// needs hosts named). Throws a usage error for an option that needs hosts it does not have.
HostSource final_hosts(const Options& options, const Context& context, const EngineRow& engine);

// What each host is called on the network (its ssh-config HostName over SSH) and whether it is
// this machine, by position: only for an engine that reaches the hosts from this machine
// (EngineRow::reaches_hosts); another one's launcher places the nodes: no ssh config, no lookup.
struct Placement {
    std::vector<std::string> addresses;
    std::vector<bool> local;
    bool from_here = false; // the engine reaches the hosts from this machine
};

Placement place_hosts(const Context& context, const HostSource& source, const EngineRow& engine);

// Node 0's address as the other nodes must use it when no master address was given (several
// hosts): its HostName; when that is a loopback name of this machine while another node is on
// another machine reached from here, this machine's address on the route to the first such
// node. Throws a fatal error when there is none, or it is IPv6 link-local.
MasterAddress implicit_master(const Context& context, const std::vector<Host>& hosts,
                              const Placement& placement);

} // namespace colossalai::run
