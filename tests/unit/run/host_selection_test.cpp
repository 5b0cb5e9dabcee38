#include "usage_message.hpp"

#include "colossalai/run/host_selection.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Gpus = std::optional<std::vector<int>>;

// A selection's readings as text, one per reading: `'w0' (GPUs 0,1), 'w1'`.
std::vector<std::string> readings(std::string_view text) {
    std::vector<std::string> shown;
    for (const std::vector<NodeSpec>& reading : parse_host_selection(text, "--include").readings) {
        shown.push_back(describe_reading(reading));
    }
    return shown;
}

struct ReadingCase {
    std::string text;
    std::vector<std::string> expected;
};

TEST(ParseHostSelection, ReadsTheHostListAndDeepSpeedsForm) {
    const std::vector<ReadingCase> cases = {
        // The host list, as before.
        {"n1", {"'n1'"}},
        {"n1,n2", {"'n1', 'n2'"}},
        {" n1 , n2 ", {"'n1', 'n2'"}},
        {"n[1-3]", {"'n1', 'n2', 'n3'"}},
        {"alice@n1,n2", {"'alice@n1', 'n2'"}},
        {"[::1],n2", {"'[::1]', 'n2'"}},
        // DeepSpeed's: '@' joins nodes, ':' starts a node's GPU indices, kept as written.
        {"worker-0:0,1@worker-1:2,3", {"'worker-0' (GPUs 0,1), 'worker-1' (GPUs 2,3)"}},
        {"worker-1:0", {"'worker-1' (GPU 0)"}},
        {"w0@w1:3,1", {"'w0', 'w1' (GPUs 3,1)"}},
        {"w0:7", {"'w0' (GPU 7)"}},
        {" w0:1 @ w1 ", {"'w0' (GPU 1), 'w1'"}},
        {"10.0.0.1:0@10.0.0.2", {"'10.0.0.1' (GPU 0), '10.0.0.2'"}},
        // An IPv6 address: bare where its last group cannot be GPU indices, else in brackets.
        {"[::1]:0,1", {"'[::1]' (GPUs 0,1)"}},
        {"[fe80::1%eth0]:2", {"'[fe80::1%eth0]' (GPU 2)"}},
        {"fe80::1%eth0:2", {"'fe80::1%eth0' (GPU 2)"}},
        {"fe80::a", {"'fe80::a'"}},
        {"::1", {"'::1'"}},
        {"2001:db8::ff@[::1]:0", {"'2001:db8::ff', '[::1]' (GPU 0)"}},
        // `a@b` reads two ways; the pool decides (select_hosts), the host list's reading first.
        {"alice@n1", {"'alice@n1'", "'alice', 'n1'"}},
        {"w0@w1", {"'w0@w1'", "'w0', 'w1'"}},
    };
    for (const ReadingCase& c : cases) {
        EXPECT_EQ(readings(c.text), c.expected) << c.text;
    }
}

TEST(ParseHostSelection, KeepsTheHostsAndTheIndicesTyped) {
    HostSelection selection = parse_host_selection("w0:2,0@W1.", "--include");
    ASSERT_EQ(selection.readings.size(), 1u);
    const std::vector<NodeSpec>& nodes = selection.readings[0];
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0].host, parse_host("w0", "test"));
    EXPECT_EQ(nodes[0].gpus, (Gpus{{2, 0}}));
    EXPECT_EQ(nodes[1].host.machine, "w1");
    EXPECT_EQ(nodes[1].gpus, std::nullopt);
    EXPECT_TRUE(selection.names_gpus());
    EXPECT_EQ(selection.text, "w0:2,0@W1.");
    EXPECT_FALSE(parse_host_selection("w0,w1", "--include").names_gpus());
    EXPECT_FALSE(parse_host_selection("w0@w1", "--include").names_gpus());
    // The host list of the unit tests and of --host is the same value.
    EXPECT_EQ(parse_host_selection("a,b", "--include"),
              HostSelection(parse_host_list("a,b", "--include")));
}

struct HostSelectionErrorCase {
    std::string text;
    std::string message;
};

TEST(ParseHostSelection, RefusesBadSelectionsInOneLine) {
    const std::vector<HostSelectionErrorCase> cases = {
        // The host list's messages stand where neither ':' nor '@' is in the text.
        {"", "--include: empty host list"},
        {"a,,b", "--include 'a,,b': empty host name in the list"},
        {"-x", "--include: invalid host '-x': starts with '-'"},
        {"n1,N1", "--include: duplicate host 'N1' (the same machine as 'n1')"},
        // DeepSpeed's form.
        {"w0@@w1", "--include 'w0@@w1': empty node between '@'s (write 'w0@w1:0,1')"},
        {"@w1:0", "--include '@w1:0': empty node between '@'s (write 'w0@w1:0,1')"},
        {"w1:",
         "--include 'w1:': no GPU index after ':' (write 'w1:0,1', or 'w1' for all its GPUs)"},
        {"w1:0,,1", "--include 'w1:0,,1': '' is not a GPU index (0-65535)"},
        {"w1:0,1,", "--include 'w1:0,1,': '' is not a GPU index (0-65535)"},
        {"w1:65536", "--include 'w1:65536': '65536' is not a GPU index (0-65535)"},
        {"w1:99999999999",
         "--include 'w1:99999999999': '99999999999' is not a GPU index (0-65535)"},
        {"w1:a", "--include: invalid host 'w1:a': not an IPv6 address (an SSH port goes in "
                 "--ssh-port or ~/.ssh/config)"},
        {"w1:-1", "--include: invalid host 'w1:-1': not an IPv6 address (an SSH port goes in "
                  "--ssh-port or ~/.ssh/config)"},
        {"w1:1,1", "--include 'w1:1,1': GPU 1 is named twice"},
        {"w1:0@w1:1", "--include: duplicate host 'w1'"},
        {"w1:0@W1.", "--include: duplicate host 'W1.' (the same machine as 'w1')"},
        {"bad!:0", "--include: invalid host 'bad!': contains '!'"},
        {"[::1]x", "--include: invalid node '[::1]x': only ':' and GPU indices may follow ']'"},
        {"[::1:0",
         "--include: invalid host '[::1:0': an IPv6 address in brackets must end with ']'"},
        // ':' reads two ways: an error with both readings and how to write each.
        {"::1:0",
         "--include '::1:0' reads two ways: the IPv6 address '::1:0' (write '[::1:0]'), or the "
         "host '::1' with GPUs 0 (write '[::1]:0')"},
        {"2001:db8::1:2@w1",
         "--include '2001:db8::1:2' reads two ways: the IPv6 address '2001:db8::1:2' (write "
         "'[2001:db8::1:2]'), or the host '2001:db8::1' with GPUs 2 (write '[2001:db8::1]:2')"},
    };
    for (const HostSelectionErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { parse_host_selection(c.text, "--include"); }),
                  c.message)
            << c.text;
    }
    // A ',' that splits bare IPv6 addresses in the host list and GPU indices in DeepSpeed's.
    EXPECT_EQ(test::usage_message([&] { parse_host_selection("::1:0,1", "--exclude"); }),
              "--exclude '::1:0,1' reads two ways: the hosts '::1:0', '1', or '::1' (GPUs 0,1) "
              "(DeepSpeed's HOST:GPUS); write an IPv6 address in brackets ('[::1]:0,1')");
    // Where only the host list reads it (`fe80:` is no host), it stands.
    EXPECT_EQ(readings("fe80::1,2"), (std::vector<std::string>{"'fe80::1', '2'"}));
}

TEST(RenderGpus, JoinsWithCommas) {
    EXPECT_EQ(render_gpus({0}), "0");
    EXPECT_EQ(render_gpus({3, 1, 2}), "3,1,2");
}

} // namespace
} // namespace colossalai::run
