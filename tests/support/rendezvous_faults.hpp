#pragma once

// The faults of the rendezvous check's end-to-end tests (tests/e2e/run_ssh/rendezvous_test.cpp,
// tests/e2e/run_slurm/launch_test.cpp), as commands a test runs on one of its cluster's hosts.

#include <filesystem>
#include <string>
#include <vector>

namespace colossalai::test {

// A process that listens on `port` (0.0.0.0), creates `ready` once it does, and sleeps 120 s.
inline std::vector<std::string> port_holder(const std::string& port,
                                            const std::filesystem::path& ready) {
    return {"python3", "-c",
            "import socket, sys, time\n"
            "s = socket.socket()\n"
            "s.bind(('0.0.0.0', " +
                port +
                "))\n"
                "s.listen()\n"
                "open(sys.argv[1], 'w').close()\n"
                "time.sleep(120)\n",
            ready.string()};
}

// An nftables table (cai_rdzv) in the host's network namespace that drops TCP to `port`, and
// the command that removes it.
inline std::vector<std::string> drop_port(const std::string& port) {
    return {"/bin/sh", "-c",
            "nft add table inet cai_rdzv && nft add chain inet cai_rdzv in '{ type filter hook "
            "input priority 0; }' && nft add rule inet cai_rdzv in tcp dport " +
                port + " drop"};
}
inline std::vector<std::string> undo_drop_port() {
    return {"nft", "delete", "table", "inet", "cai_rdzv"};
}

} // namespace colossalai::test
