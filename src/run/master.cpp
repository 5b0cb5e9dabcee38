#include "colossalai/run/master.hpp"

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

namespace colossalai::run {

Port checked_port(int number, std::string_view option) {
    if (number < 1 || number > 65535) {
        throw usage_error("{} '{}': not a port number (1..65535)", option, number);
    }
    return Port{number};
}

Port parse_port(const std::string& text, std::string_view option) {
    std::optional<int> port = util::parse_integer<int>(text);
    if (!port) {
        throw usage_error("{} '{}': not a port number (1..65535)", option,
                          util::escape_for_message(text));
    }
    return checked_port(*port, option);
}

MasterAddress default_master_address() {
    return MasterAddress{"127.0.0.1"};
}

MasterAddress parse_master_address(std::string_view text, std::string_view option) {
    Host host = parse_host(text, option);
    if (host.user) {
        throw usage_error("{} '{}': an address has no user part", option, host.name);
    }
    return MasterAddress{std::move(host.address)};
}

ExtraMaster take_extra_master(std::vector<LaunchArg>& args) {
    ExtraMaster master;
    if (std::optional<std::string> address = take_value(args, "master_addr")) {
        master.address = parse_master_address(*address, "--extra_launch_args master_addr");
    }
    if (std::optional<std::string> port = take_value(args, "master_port")) {
        master.port = Port{util::parse_integer_option<int>(
            *port, "--extra_launch_args: master_port", {.min = 1, .max = 65535},
            "not a port number (1..65535)")};
    }
    return master;
}

} // namespace colossalai::run
