#include "colossalai/ssh/client_config.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

// The OpenSSH client settings read besides libssh: first value wins, Host and Match, Include.
namespace colossalai::ssh {
namespace {

ClientConfig parse(const std::string& text, const std::string& original = "node1",
                   const std::string& host = "",
                   const std::map<std::string, std::string>& includes = {}) {
    ClientConfig config;
    IncludeReader include = [&](const std::string& argument) {
        auto it = includes.find(argument);
        return it == includes.end() ? std::vector<std::string>{}
                                    : std::vector<std::string>{it->second};
    };
    apply_client_config(text, "config", {original, host.empty() ? original : host}, include,
                        config);
    return config;
}

TEST(ClientConfig, FirstValueForTheHostWins) {
    ClientConfig config = parse("Host node1\n"
                                "  StrictHostKeyChecking accept-new\n"
                                "  ServerAliveInterval=7\n"
                                "Host *\n"
                                "  StrictHostKeyChecking yes\n"
                                "  ServerAliveInterval 30\n"
                                "  ServerAliveCountMax 2\n"
                                "  HashKnownHosts yes\n");
    EXPECT_EQ(config.strict_host_key_checking, HostKeyPolicy::accept_new);
    EXPECT_EQ(config.server_alive_interval, 7);
    EXPECT_EQ(config.server_alive_count_max, 2);
    EXPECT_EQ(config.hash_known_hosts, true);
}

TEST(ClientConfig, HostPatternsWildcardsAndNegation) {
    const std::string text = "Host node* !node3\n"
                             "  StrictHostKeyChecking no\n";
    EXPECT_EQ(parse(text, "node1").strict_host_key_checking, HostKeyPolicy::no);
    EXPECT_EQ(parse(text, "NODE12").strict_host_key_checking, HostKeyPolicy::no);
    EXPECT_EQ(parse(text, "node3").strict_host_key_checking, std::nullopt);
    EXPECT_EQ(parse(text, "login").strict_host_key_checking, std::nullopt);
    EXPECT_EQ(parse("Host node?\n HashKnownHosts no\n", "node10").hash_known_hosts, std::nullopt);
}

TEST(ClientConfig, MatchHostSeesTheHostNameAndOriginalhostTheAlias) {
    const std::string text = "Match host 10.0.0.*\n"
                             "  ServerAliveInterval 5\n"
                             "Match originalhost a00?,b*\n"
                             "  ServerAliveCountMax 4\n"
                             "Match !host 10.*\n"
                             "  HashKnownHosts yes\n"
                             "Match all\n"
                             "  StrictHostKeyChecking ask\n";
    ClientConfig alias = parse(text, "a001", "10.0.0.1");
    EXPECT_EQ(alias.server_alive_interval, 5);
    EXPECT_EQ(alias.server_alive_count_max, 4);
    EXPECT_EQ(alias.hash_known_hosts, std::nullopt);
    EXPECT_EQ(alias.strict_host_key_checking, HostKeyPolicy::ask);
    ClientConfig other = parse(text, "node1", "node1");
    EXPECT_EQ(other.server_alive_interval, std::nullopt);
    EXPECT_EQ(other.hash_known_hosts, true);
}

TEST(ClientConfig, MatchWithACriterionNotUnderstoodDoesNotApply) {
    ClientConfig config = parse("Match exec \"true\" host node1\n"
                                "  StrictHostKeyChecking no\n"
                                "Match canonical\n"
                                "  HashKnownHosts yes\n");
    EXPECT_EQ(config.strict_host_key_checking, std::nullopt);
    EXPECT_EQ(config.hash_known_hosts, std::nullopt);
}

TEST(ClientConfig, IncludeAppliesWhereItStands) {
    std::map<std::string, std::string> includes = {
        {"cluster.conf", "StrictHostKeyChecking accept-new\nCertificateFile ~/c.pub\n"}};
    ClientConfig inside = parse("Host node1\n  Include cluster.conf\n", "node1", "", includes);
    EXPECT_EQ(inside.strict_host_key_checking, HostKeyPolicy::accept_new);
    EXPECT_EQ(inside.certificate_files, std::vector<std::string>{"~/c.pub"});
    ClientConfig outside = parse("Host other\n  Include cluster.conf\n", "node1", "", includes);
    EXPECT_EQ(outside.strict_host_key_checking, std::nullopt);
}

TEST(ClientConfig, AFileThatIncludesItselfIsAnError) {
    std::map<std::string, std::string> includes = {{"loop.conf", "Include loop.conf\n"}};
    EXPECT_THROW(parse("Include loop.conf\n", "node1", "", includes), Error);
}

TEST(ClientConfig, IdentityAndCertificateFilesAccumulate) {
    ClientConfig config = parse("IdentityFile ~/.ssh/a\n"
                                "CertificateFile \"/x y/a-cert.pub\"\n"
                                "Host node1\n"
                                "  IdentityFile %d/.ssh/b\n"
                                "  # IdentityFile commented\n");
    EXPECT_EQ(config.identity_files, (std::vector<std::string>{"~/.ssh/a", "%d/.ssh/b"}));
    EXPECT_EQ(config.certificate_files, std::vector<std::string>{"/x y/a-cert.pub"});
}

TEST(ClientConfig, ABadValueNamesTheFileAndLine) {
    try {
        parse("\nStrictHostKeyChecking maybe\n");
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "config line 2: StrictHostKeyChecking 'maybe': use yes, "
                                   "accept-new, no or ask");
    }
    EXPECT_THROW(parse("ServerAliveInterval 5s\n"), Error);
    EXPECT_THROW(parse("HashKnownHosts maybe\n"), Error);
    EXPECT_THROW(parse("Match host\n"), Error);
}

TEST(ClientConfig, AKeywordOfAnotherHostIsNotChecked) {
    EXPECT_NO_THROW(parse("Host other\n  StrictHostKeyChecking maybe\n"));
}

TEST(HostNameOf, TheFirstHostNameForTheAliasWithPercentH) {
    const std::string text = "Host gpu1\n  HostName 10.9.9.1\nHost gpu*\n  HostName %h.cluster\n"
                             "Host *\n  HostName ignored\n";
    EXPECT_EQ(host_name_of("gpu1", parse(text, "gpu1")), "10.9.9.1");
    EXPECT_EQ(host_name_of("gpu2", parse(text, "gpu2")), "gpu2.cluster");
    EXPECT_EQ(host_name_of("node1", parse(text, "node1")), "ignored");
    EXPECT_EQ(host_name_of("node1", parse("Host gpu1\n  HostName 10.9.9.1\n")), "node1");
    EXPECT_EQ(host_name_of("n", parse("HostName %h-%%-%x\n", "n")), "n-%-%x");
}

TEST(ExpandPath, TokensAsOpenSsh) {
    PathTokens tokens{"/home/ann", "ann", "node1", "root"};
    EXPECT_EQ(expand_path("~/.ssh/id_ed25519", tokens), "/home/ann/.ssh/id_ed25519");
    EXPECT_EQ(expand_path("%d/.ssh/%r@%h-cert.pub", tokens), "/home/ann/.ssh/root@node1-cert.pub");
    EXPECT_EQ(expand_path("/keys/%u/100%%", tokens), "/keys/ann/100%");
    EXPECT_EQ(expand_path("/a~/b%x", tokens), "/a~/b%x");
}

TEST(MatchPattern, WildcardsAndCase) {
    EXPECT_TRUE(match_pattern("node1", "node*"));
    EXPECT_TRUE(match_pattern("node1", "*"));
    EXPECT_TRUE(match_pattern("Node1", "node?"));
    EXPECT_TRUE(match_pattern("a.b.example.org", "*.example.org"));
    EXPECT_FALSE(match_pattern("example.org", "*.example.org"));
    EXPECT_TRUE(match_pattern("aXbXc", "a*b*c"));
    EXPECT_FALSE(match_pattern("node", "node?"));
}

} // namespace
} // namespace colossalai::ssh
