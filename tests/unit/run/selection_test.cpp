#include "usage_message.hpp"

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/selection.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

std::vector<std::string> select(const std::vector<std::string>& pool_names,
                                const Options& options) {
    std::vector<Host> pool;
    for (const std::string& name : pool_names) {
        pool.push_back(parse_host(name, "test"));
    }
    std::vector<std::string> result;
    for (const Host& host : select_hosts(pool, options, "the hostfile hosts")) {
        result.push_back(host.name);
    }
    return result;
}

Options with(std::optional<std::string> include, std::optional<std::string> exclude,
             std::optional<int> num_nodes) {
    Options options;
    options.hostfile = "hosts";
    // The cli parses each list as it reads it (its errors: the cli's and hosts' tests).
    if (include) {
        options.include = parse_host_list(*include, "--include");
    }
    if (exclude) {
        options.exclude = parse_host_list(*exclude, "--exclude");
    }
    options.num_nodes = num_nodes;
    return options;
}

const std::vector<std::string> pool = {"n1", "n2", "n3", "n4", "n5"};

struct SelectCase {
    Options options;
    std::vector<std::string> expected;
};

TEST(SelectHosts, AppliesIncludeExcludeThenNumNodes) {
    const std::vector<SelectCase> cases = {
        {with(std::nullopt, std::nullopt, std::nullopt), pool},
        {with(std::nullopt, std::nullopt, -1), pool},
        {with(std::nullopt, std::nullopt, 2), {"n1", "n2"}},
        {with(std::nullopt, std::nullopt, 5), pool},
        // --include keeps the order given.
        {with("n4,n1,n3", std::nullopt, std::nullopt), {"n4", "n1", "n3"}},
        {with("n4,n1,n3", std::nullopt, 2), {"n4", "n1"}},
        // --exclude keeps the file's order.
        {with(std::nullopt, "n4,n2", std::nullopt), {"n1", "n3", "n5"}},
        {with(std::nullopt, "n4,n2", 1), {"n1"}},
        {with(" n3 ", std::nullopt, std::nullopt), {"n3"}},
        // A host is the machine it names: the hostfile's spelling is kept.
        {with("N2,n5.", std::nullopt, std::nullopt), {"n2", "n5"}},
        {with(std::nullopt, "N1,n2.", std::nullopt), {"n3", "n4", "n5"}},
    };
    for (const SelectCase& c : cases) {
        EXPECT_EQ(select(pool, c.options), c.expected);
    }
}

struct SelectionErrorCase {
    Options options;
    std::string message;
};

// --include names hosts; what the hostfile says of them (slots) comes along.
TEST(SelectHosts, IncludedHostsKeepTheirSlots) {
    std::vector<Host> hosts = parse_hostfile("n1 slots=4\nn2 slots=4\n", "hosts");
    std::vector<Host> selected =
        select_hosts(hosts, with("N2", std::nullopt, std::nullopt), "the hostfile");
    ASSERT_EQ(selected.size(), 1u);
    EXPECT_EQ(selected[0].name, "n2");
    EXPECT_EQ(selected[0].slots, 4);
}

// A host name selects that machine whatever user the hostfile logs in as; a `user@` in the
// selection must be the hostfile's own.
TEST(SelectHosts, AUserBeforeTheHostMatchesOnlyThatUser) {
    const std::vector<std::string> logins = {"alice@n1", "n2", "bob@n3"};
    EXPECT_EQ(select(logins, with("n1,N3", std::nullopt, std::nullopt)),
              (std::vector<std::string>{"alice@n1", "bob@n3"}));
    EXPECT_EQ(select(logins, with(std::nullopt, "n1", std::nullopt)),
              (std::vector<std::string>{"n2", "bob@n3"}));
    EXPECT_EQ(select(logins, with("alice@n1", std::nullopt, std::nullopt)),
              (std::vector<std::string>{"alice@n1"}));
    EXPECT_EQ(select(logins, with(std::nullopt, "bob@N3", std::nullopt)),
              (std::vector<std::string>{"alice@n1", "n2"}));
    const std::vector<SelectionErrorCase> cases = {
        {with("bob@n1", std::nullopt, std::nullopt),
         "--include: host 'bob@n1' is not in the hostfile hosts"},
        {with("alice@n2", std::nullopt, std::nullopt),
         "--include: host 'alice@n2' is not in the hostfile hosts"},
        {with(std::nullopt, "alice@n3", std::nullopt),
         "--exclude: host 'alice@n3' is not in the hostfile hosts"},
    };
    for (const SelectionErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { select(logins, c.options); }), c.message);
    }
}

TEST(SelectHosts, RejectsUnknownNamesEmptyResultsAndTooManyNodes) {
    const std::vector<SelectionErrorCase> cases = {
        {with("n1,n9", std::nullopt, std::nullopt),
         "--include: host 'n9' is not in the hostfile hosts"},
        {with(std::nullopt, "n9", std::nullopt),
         "--exclude: host 'n9' is not in the hostfile hosts"},
        {with(std::nullopt, "n1,n2,n3,n4,n5", std::nullopt),
         "--exclude: no host of the hostfile hosts is left"},
        {with(std::nullopt, std::nullopt, 6), "--num_nodes '6': only 5 hosts available"},
        {with("n2", std::nullopt, 2), "--num_nodes '2': only 1 host available"},
        {with(std::nullopt, "n1,n2", 4), "--num_nodes '4': only 3 hosts available"},
    };
    for (const SelectionErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { select(pool, c.options); }), c.message);
    }
}

// A pool (a scheduler's, or built by hand) may name one machine more than once, as different
// users: a name without a user selects the first entry for the machine, and an entry without a
// user is excluded by any entry for its machine that --exclude named.
TEST(SelectHosts, OneMachineTwiceInThePool) {
    const std::vector<std::string> logins = {"alice@n1", "n2", "bob@n1", "n1"};
    EXPECT_EQ(select(logins, with("N1", std::nullopt, std::nullopt)),
              (std::vector<std::string>{"alice@n1"}));
    EXPECT_EQ(select(logins, with("bob@n1,n2", std::nullopt, std::nullopt)),
              (std::vector<std::string>{"bob@n1", "n2"}));
    EXPECT_EQ(select(logins, with(std::nullopt, "bob@n1", std::nullopt)),
              (std::vector<std::string>{"alice@n1", "n2"}));
    EXPECT_EQ(select(logins, with(std::nullopt, "n1", std::nullopt)),
              (std::vector<std::string>{"n2", "bob@n1"}));
}

// Selection looks each name up rather than scanning the pool (bench/hosts_scale.sh measures
// 100,000): --exclude of all but two ranges, --include in reverse, each keeping its order.
TEST(SelectHosts, SelectsFromTwentyThousandHosts) {
    std::string text;
    for (int i = 1; i <= 20000; ++i) {
        text += fmt::format("n{:05} slots={}\n", i, i % 8 + 1);
    }
    const std::vector<Host> hosts = parse_hostfile(text, "hosts");
    ASSERT_EQ(hosts.size(), 20000u);
    std::vector<Host> left =
        select_hosts(hosts, with(std::nullopt, "n[00002-19999]", std::nullopt), "the hostfile");
    ASSERT_EQ(left.size(), 2u);
    EXPECT_EQ(left[0], hosts.front());
    EXPECT_EQ(left[1], hosts.back());

    std::string reversed;
    for (int i = 20000; i >= 1; --i) {
        reversed += fmt::format("{}N{:05}", i == 20000 ? "" : ",", i);
    }
    std::vector<Host> included =
        select_hosts(hosts, with(reversed, std::nullopt, 3), "the hostfile");
    EXPECT_EQ(included, (std::vector<Host>{hosts[19999], hosts[19998], hosts[19997]}));
    EXPECT_EQ(test::usage_message([&] {
                  select_hosts(hosts, with(std::nullopt, "n[00001-20000]", std::nullopt),
                               "the hostfile");
              }),
              "--exclude: no host of the hostfile is left");
}

TEST(SelectHosts, MessagesNameThePoolAsGiven) {
    std::vector<Host> hosts = {parse_host("n1", "test")};
    Options include = with("n9", std::nullopt, std::nullopt);
    EXPECT_EQ(test::usage_message([&] { select_hosts(hosts, include, "the PBS job (X)"); }),
              "--include: host 'n9' is not in the PBS job (X)");
    Options exclude = with(std::nullopt, "n1", std::nullopt);
    EXPECT_EQ(test::usage_message([&] { select_hosts(hosts, exclude, "the PBS job (X)"); }),
              "--exclude: no host of the PBS job (X) is left");
}

} // namespace
} // namespace colossalai::run
