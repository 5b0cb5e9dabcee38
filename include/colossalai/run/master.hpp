#pragma once

// The rendezvous master of `colossalai run` as typed values: its address and its port, each
// parsed once where the cli reads it (--master_addr, --master_port, --ssh-port, and
// master_addr / master_port in --extra_launch_args) and rendered once into the node's argv.

#include "colossalai/run/extra_args.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// A TCP port: 1..65535.
struct Port {
    int number = 0;
    bool operator==(const Port&) const = default;
};

// --master_port's default, torchrun's.
inline constexpr Port default_master_port{29500};

// `number` as a port given to `option`. Throws the usage error "OPTION 'NUMBER': not a port
// number (1..65535)" outside 1..65535.
Port checked_port(int number, std::string_view option);

// `text`, given to `option`, as a port in decimal (026 is 26): the one reading of --master_port
// and of both commands' --ssh-port. Throws the usage error "OPTION 'TEXT': not a port number
// (1..65535)" for a text that is not a number, checked_port's for one outside 1..65535.
Port parse_port(const std::string& text, std::string_view option);

// A master address as every node reaches it: a host name or an address (an IPv6 one without its
// brackets), never with a user part.
struct MasterAddress {
    std::string host; // "node0", "10.0.0.1", "::1"
    bool operator==(const MasterAddress&) const = default;
};

// --master_addr's default: node 0 on this machine.
MasterAddress default_master_address();

// Parses a master address given to `option` (a host as in a hostfile, without `user@`; IPv6 in
// brackets or bare). Throws a usage error naming `option`: the hostfile's host errors, or
// "OPTION 'TEXT': an address has no user part".
MasterAddress parse_master_address(std::string_view text, std::string_view option);

// master_addr and master_port of --extra_launch_args, typed.
struct ExtraMaster {
    std::optional<MasterAddress> address; // master_addr=ADDR
    std::optional<Port> port;             // master_port=PORT
    bool operator==(const ExtraMaster&) const = default;
};

// Takes master_addr and master_port out of `args` (parse_extra_launch_args's items, where each
// appears once at most) and parses them. Throws a usage error for a bad address
// ("--extra_launch_args master_addr ...") or a port outside 1..65535 ("--extra_launch_args:
// master_port 'TEXT': not a port number (1..65535)").
ExtraMaster take_extra_master(std::vector<LaunchArg>& args);

} // namespace colossalai::run
