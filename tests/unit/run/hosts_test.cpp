#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/hosts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using test::names;

using test::usage_message;

struct HostCase {
    std::string text;
    std::string address;
    std::optional<std::string> user;
};

TEST(ParseHost, AcceptsNamesAddressesAndUsers) {
    const std::vector<HostCase> cases = {
        {"node1", "node1", std::nullopt},
        {"node-1.cluster.example.com", "node-1.cluster.example.com", std::nullopt},
        {"gpu_07", "gpu_07", std::nullopt},
        {"10.0.0.1", "10.0.0.1", std::nullopt},
        {"::1", "::1", std::nullopt},
        {"[::1]", "::1", std::nullopt},
        {"fe80::1%eth0", "fe80::1%eth0", std::nullopt},
        {"alice@node1", "node1", "alice"},
        {"bob.smith@[2001:db8::7]", "2001:db8::7", "bob.smith"},
    };
    for (const HostCase& c : cases) {
        Host host = parse_host(c.text, "here");
        EXPECT_EQ(host.name, c.text);
        EXPECT_EQ(host.address, c.address) << c.text;
        EXPECT_EQ(host.user, c.user) << c.text;
    }
}

struct BadHostCase {
    std::string text;
    std::string message;
};

TEST(ParseHost, RejectsWhatASshCommandLineCouldMisread) {
    const std::vector<BadHostCase> cases = {
        {"", "here: invalid host '': empty name"},
        {"-oProxyCommand=x", "here: invalid host '-oProxyCommand=x': starts with '-'"},
        {"a b", "here: invalid host 'a b': contains whitespace (one host per line or per "
                "comma-separated item)"},
        {"a\tb", "here: invalid host 'a\\x09b': contains whitespace (one host per line or per "
                 "comma-separated item)"},
        {"a\x01", "here: invalid host 'a\\x01': contains a control character"},
        {"h\xc3\xa9", "here: invalid host 'h\\xc3\\xa9': contains a non-ASCII byte"},
        {"a;b", "here: invalid host 'a;b': contains ';'"},
        {"$(id)", "here: invalid host '$(id)': contains '$'"},
        {"a`b`", "here: invalid host 'a`b`': contains '`'"},
        {"a'b", "here: invalid host 'a'b': contains '''"},
        {"a|b", "here: invalid host 'a|b': contains '|'"},
        {"a/b", "here: invalid host 'a/b': contains '/'"},
        {"host:22", "here: invalid host 'host:22': not an IPv6 address (an SSH port goes in "
                    "--ssh-port or ~/.ssh/config)"},
        {"1.2.3.4:22", "here: invalid host '1.2.3.4:22': not an IPv6 address (an SSH port goes "
                       "in --ssh-port or ~/.ssh/config)"},
        {"fe80::1%", "here: invalid host 'fe80::1%': not an IPv6 address (an SSH port goes in "
                     "--ssh-port or ~/.ssh/config)"},
        {"fe80::1%a;b", "here: invalid host 'fe80::1%a;b': not an IPv6 address (an SSH port "
                        "goes in --ssh-port or ~/.ssh/config)"},
        {"a%b", "here: invalid host 'a%b': contains '%'"},
        {"@node", "here: invalid host '@node': empty user name before '@'"},
        {"a@", "here: invalid host 'a@': empty host after '@'"},
        {"a@-x", "here: invalid host 'a@-x': host starts with '-'"},
        {"a$@node", "here: invalid host 'a$@node': user name contains '$'"},
        {"a@b@c", "here: invalid host 'a@b@c': contains '@'"},
        {"[::1", "here: invalid host '[::1': an IPv6 address in brackets must end with ']'"},
        {"[node]", "here: invalid host '[node]': brackets are only for IPv6 addresses"},
    };
    for (const BadHostCase& c : cases) {
        EXPECT_EQ(usage_message([&] { parse_host(c.text, "here"); }), c.message);
    }
}

TEST(ParseHostfile, IgnoresBlanksCommentsWhitespaceAndCrlf) {
    std::string text = "\xEF\xBB\xBF# cluster A\n"
                       "node1\n"
                       "\n"
                       "   node2   \t\n"
                       "node3 # the big one\r\n"
                       "\t# indented comment\n"
                       "alice@node4#no space before the comment\r\n"
                       "   \r\n"
                       "[::1]";
    EXPECT_EQ(names(parse_hostfile(text, "hosts")),
              (std::vector<std::string>{"node1", "node2", "node3", "alice@node4", "[::1]"}));
}

TEST(ParseHostfile, ReportsFileAndLine) {
    const std::vector<BadHostCase> cases = {
        {"a\nb\n\na\n", "hosts:4: duplicate host 'a' (first at line 1)"},
        {"a\r\nb # x\r\nb\r\n", "hosts:3: duplicate host 'b' (first at line 2)"},
        // One machine is one node, whoever logs in: both spellings are named.
        {"alice@node2\nb\nbob@node2\n",
         "hosts:3: duplicate host 'bob@node2' (the same machine as 'alice@node2' at line 1)"},
        {"node2\nalice@NODE2\n",
         "hosts:2: duplicate host 'alice@NODE2' (the same machine as 'node2' at line 1)"},
        {"n[1-3]\nalice@n2\n",
         "hosts:2: duplicate host 'alice@n2' (the same machine as 'n2' at line 1)"},
        {"a\nb c\n", "hosts:2: 'c' after the host: expected slots=N or max_slots=N (one host "
                     "per line)"},
        {"a\n\n-oProxyCommand=touch /tmp/x\n",
         "hosts:3: invalid host '-oProxyCommand=touch': starts with '-'"},
        {"a\n\n-oProxyCommand=x\n", "hosts:3: invalid host '-oProxyCommand=x': starts with '-'"},
        {"a\nb;reboot\n", "hosts:2: invalid host 'b;reboot': contains ';'"},
        {"a\nb\x01\n", "hosts:2: invalid host 'b\\x01': contains a control character"},
        {std::string("a\nb\n\x7f"
                     "ELF\0\0",
                     9),
         "hosts:3: NUL byte: not a text file"},
        {"", "hosts: no hosts in the hostfile"},
        {"\n  \n# only comments\r\n", "hosts: no hosts in the hostfile"},
    };
    for (const BadHostCase& c : cases) {
        EXPECT_EQ(usage_message([&] { parse_hostfile(c.text, "hosts"); }), c.message);
    }
}

// A file name with a newline or bytes that are not UTF-8 must not break the one-line message.
TEST(ParseHostfile, EscapesTheFileNameInMessages) {
    EXPECT_EQ(usage_message([] { parse_hostfile("a\nb;c\n", "my\nhosts"); }),
              "my\\x0ahosts:2: invalid host 'b;c': contains ';'");
    EXPECT_EQ(usage_message([] { parse_hostfile("# none\n", "h\xff"); }),
              "h\\xff: no hosts in the hostfile");
    EXPECT_EQ(usage_message([] { parse_hostfile(std::string("\0", 1), "a\rb"); }),
              "a\\x0db:1: NUL byte: not a text file");
}

TEST(ParseHostList, SplitsAtCommasAndTrims) {
    EXPECT_EQ(names(parse_host_list("a,b,c", "--host")), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(names(parse_host_list(" a , b@c ", "--host")),
              (std::vector<std::string>{"a", "b@c"}));
    EXPECT_EQ(names(parse_host_list("::1", "--host")), (std::vector<std::string>{"::1"}));
}

TEST(ParseHostList, RejectsEmptyItemsDuplicatesAndBadNames) {
    const std::vector<BadHostCase> cases = {
        {"", "--host: empty host list"},
        {"  ", "--host: empty host list"},
        {"a,,b", "--host 'a,,b': empty host name in the list"},
        {"a,", "--host 'a,': empty host name in the list"},
        {",a", "--host ',a': empty host name in the list"},
        {"a,b,a", "--host: duplicate host 'a'"},
        {"a,b c", "--host: invalid host 'b c': contains whitespace (one host per line or per "
                  "comma-separated item)"},
        {"a,-x", "--host: invalid host '-x': starts with '-'"},
        // Two spellings of one machine would be two nodes sharing its GPUs: both are named.
        {"node1,NODE1", "--host: duplicate host 'NODE1' (the same machine as 'node1')"},
        {"node1,node1.", "--host: duplicate host 'node1.' (the same machine as 'node1')"},
        {"[::1],::1", "--host: duplicate host '::1' (the same machine as '[::1]')"},
        {"::1,0:0::1", "--host: duplicate host '0:0::1' (the same machine as '::1')"},
        {"2001:DB8::7,2001:db8:0::7",
         "--host: duplicate host '2001:db8:0::7' (the same machine as '2001:DB8::7')"},
        {"a@node1,a@Node1", "--host: duplicate host 'a@Node1' (the same machine as 'a@node1')"},
        // So are two logins on one machine.
        {"alice@node2,bob@node2",
         "--host: duplicate host 'bob@node2' (the same machine as 'alice@node2')"},
        {"node2,alice@node2", "--host: duplicate host 'alice@node2' (the same machine as 'node2')"},
        {"alice@n[1-3],bob@n3", "--host: duplicate host 'bob@n3' (the same machine as 'alice@n3')"},
    };
    for (const BadHostCase& c : cases) {
        EXPECT_EQ(usage_message([&] { parse_host_list(c.text, "--host"); }), c.message);
    }
}

TEST(ParseHost, TheMachineANameStandsFor) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"node1", "node1"},
        {"NODE1", "node1"},
        {"Node1.Cluster.", "node1.cluster"},
        {"10.0.0.1", "10.0.0.1"},
        {"[::1]", "::1"},
        {"0:0:0::1", "::1"},
        {"FE80::1%eth0", "fe80::1%eth0"},
        // One machine, whoever logs in.
        {"Alice@NODE1", "node1"},
        {"bob@[::1]", "::1"},
    };
    for (const auto& [text, machine] : cases) {
        EXPECT_EQ(parse_host(text, "here").machine, machine) << text;
    }
}

TEST(ParseHost, NamesNoLongerThanDnsAllows) {
    std::string longest(max_host_name, 'a');
    EXPECT_EQ(parse_host(longest, "here").address, longest);
    EXPECT_EQ(usage_message([&] { parse_host(longest + "a", "here"); }),
              "here: invalid host '" + longest +
                  "a': longer than 253 characters (the longest "
                  "DNS name)");
    std::string user(max_user_name + 1, 'u');
    EXPECT_EQ(usage_message([&] { parse_host(user + "@node1", "here"); }),
              "here: invalid host '" + user + "@node1': user name longer than 255 characters");
    // 300,000 characters: one line of error, not a node.
    EXPECT_NE(usage_message([&] {
                  parse_host(std::string(300000, 'x'), "here");
              }).find("longer than 253 characters"),
              std::string::npos);
}

} // namespace
} // namespace colossalai::run
