#include "../run/typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/cli/app.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace colossalai::cli {
namespace {

using Words = std::vector<std::string>;

run::Options parse_run(Words words) {
    words.insert(words.begin(), {"colossalai", "run"});
    std::ostringstream out;
    Command command = parse(words, out);
    EXPECT_TRUE(std::holds_alternative<run::Options>(command)) << out.str();
    return std::holds_alternative<run::Options>(command) ? std::get<run::Options>(command)
                                                         : run::Options{};
}

std::string usage_message(Words words) {
    words.insert(words.begin(), {"colossalai", "run"});
    std::ostringstream out;
    return test::usage_message([&] { parse(words, out); });
}

TEST(RunCommand, Defaults) {
    run::Options options = parse_run({"--nproc_per_node", "2", "train.py"});
    EXPECT_EQ(options.host, std::nullopt);
    EXPECT_EQ(options.hostfile, std::nullopt);
    EXPECT_EQ(options.include, std::nullopt);
    EXPECT_EQ(options.exclude, std::nullopt);
    EXPECT_EQ(options.num_nodes, std::nullopt);
    EXPECT_EQ(options.nproc_per_node, test::nproc("2"));
    EXPECT_EQ(options.master_port, std::nullopt);
    EXPECT_EQ(options.master_addr, std::nullopt);
    EXPECT_EQ(options.extra_launch_args, std::nullopt);
    EXPECT_EQ(options.extra_master, run::ExtraMaster{});
    EXPECT_EQ(options.engine_options, run::EngineOptions{});
    EXPECT_EQ(options.ssh_timeout, std::chrono::seconds(30));
    EXPECT_EQ(options.kill_grace, std::chrono::seconds(10));
    EXPECT_FALSE(options.dry_run);
    EXPECT_EQ(options.module, std::nullopt);
    EXPECT_EQ(options.script, "train.py");
    EXPECT_TRUE(options.script_args.empty());
}

TEST(RunCommand, EveryOption) {
    run::Options options = parse_run({"--hostfile",
                                      "hosts",
                                      "--include=a,b",
                                      "--num_nodes",
                                      "2",
                                      "--nproc_per_node=8",
                                      "--master_port",
                                      "1234",
                                      "--master_addr",
                                      "10.0.0.1",
                                      "--extra_launch_args",
                                      "rdzv_conf=timeout=900,tee=1",
                                      "--ssh-port",
                                      "2222",
                                      "--ssh-timeout",
                                      "2.5",
                                      "--kill-grace",
                                      "0",
                                      "--dry-run",
                                      "train.py",
                                      "x"});
    EXPECT_EQ(options.hostfile, "hosts");
    EXPECT_EQ(options.include, test::hosts("a,b"));
    EXPECT_EQ(options.num_nodes, 2);
    EXPECT_EQ(options.nproc_per_node, test::nproc("8"));
    EXPECT_EQ(options.master_port, run::Port{1234});
    EXPECT_EQ(options.master_addr, run::MasterAddress{"10.0.0.1"});
    EXPECT_EQ(options.extra_launch_args, test::launch_args("rdzv_conf=timeout=900,tee=1"));
    EXPECT_EQ(std::get<run::SshLaunch::Given>(options.engine_options).ssh_port, run::Port{2222});
    EXPECT_EQ(options.ssh_timeout, std::chrono::milliseconds(2500));
    EXPECT_EQ(options.kill_grace, std::chrono::milliseconds(0));
    EXPECT_TRUE(options.dry_run);
    EXPECT_EQ(options.script, "train.py");
    EXPECT_EQ(options.script_args, Words{"x"});

    EXPECT_EQ(parse_run({"--hostfile=h", "--exclude", "c", "--nproc_per_node=1", "t.py"}).exclude,
              test::hosts("c"));
    EXPECT_EQ(parse_run({"-H", "a", "--nproc_per_node=1", "--strict_host_key_checking=accept-new",
                         "t.py"})
                  .strict_host_key_checking,
              job::HostKeyPolicy::accept_new);
}

TEST(RunCommand, EveryHostSpelling) {
    for (const Words& words : {Words{"-H", "a,b"}, Words{"-Ha,b"}, Words{"--host", "a,b"},
                               Words{"--host=a,b"}, Words{"-host", "a,b"}, Words{"-host=a,b"}}) {
        Words all = words;
        all.insert(all.end(), {"--nproc_per_node", "1", "t.py"});
        EXPECT_EQ(parse_run(all).host, test::hosts("a,b")) << words[0];
    }
}

TEST(RunCommand, TheLastOfARepeatedOptionWins) {
    run::Options options = parse_run(
        {"--nproc_per_node", "1", "--nproc_per_node", "4", "-H", "a", "--host=b", "t.py"});
    EXPECT_EQ(options.nproc_per_node, test::nproc("4"));
    EXPECT_EQ(options.host, test::hosts("b"));
}

TEST(RunCommand, EverythingAfterTheScriptBelongsToIt) {
    Words script_args = {"--master_port",      "1",  "-H", "x",   "--help",
                         "--nproc_per_node=9", "--", "-m", "a b", "$(id)",
                         "--dry-run",          ""};
    Words words = {"--nproc_per_node", "2", "train.py"};
    words.insert(words.end(), script_args.begin(), script_args.end());
    run::Options options = parse_run(words);
    EXPECT_EQ(options.script, "train.py");
    EXPECT_EQ(options.script_args, script_args);
    EXPECT_EQ(options.master_port, std::nullopt);
    EXPECT_EQ(options.nproc_per_node, test::nproc("2"));
    EXPECT_FALSE(options.dry_run);
}

TEST(RunCommand, ALiteralDoubleDashMayPrecedeTheScript) {
    run::Options options = parse_run({"--nproc_per_node", "2", "--", "train.py", "--", "-v"});
    EXPECT_EQ(options.script, "train.py");
    EXPECT_EQ(options.script_args, (Words{"--", "-v"}));
}

TEST(RunCommand, MinusMTakesAModuleAndEndsParsing) {
    run::Options options = parse_run({"--nproc_per_node", "2", "-m", "pkg.train", "--lr", "1"});
    EXPECT_EQ(options.module, "pkg.train");
    EXPECT_EQ(options.script, std::nullopt);
    EXPECT_EQ(options.script_args, (Words{"--lr", "1"}));

    options = parse_run({"--nproc_per_node", "2", "-mpkg.train", "train.py"});
    EXPECT_EQ(options.module, "pkg.train");
    EXPECT_EQ(options.script_args, Words{"train.py"});
}

TEST(RunCommand, NumNodesMinusOneMeansAll) {
    EXPECT_EQ(
        parse_run({"--hostfile", "h", "--num_nodes", "-1", "--nproc_per_node=1", "t.py"}).num_nodes,
        -1);
}

struct CommandErrorCase {
    Words words;
    std::string message;
};

TEST(RunCommand, BadValuesAreUsageErrors) {
    const std::vector<CommandErrorCase> cases = {
        {{"--nproc_per_node", "x", "t.py"},
         "--nproc_per_node 'x': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "2"}, "no script given (expected SCRIPT.py or -m MODULE)"},
        {{"--nproc_per_node", "2", "--"}, "no script given (expected SCRIPT.py or -m MODULE)"},
        {{"--nproc_per_node", "2", "train"},
         "script 'train' does not end in .py (use -m MODULE to run a module)"},
        {{"--nproc_per_node", "2", "-m", "x.py"},
         "-m 'x.py': expected a module name, not a .py file (drop -m to run a script)"},
        {{"--nproc_per_node", "2", "--master_port", "http", "t.py"},
         "--master_port 'http': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--master_port", "99999999999", "t.py"},
         "--master_port '99999999999': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--master_port", "0", "t.py"},
         "--master_port '0': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--ssh-port", "65536", "t.py"},
         "--ssh-port '65536': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--ssh-port=", "t.py"},
         "--ssh-port '': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--kill-grace", "soon", "t.py"},
         "--kill-grace 'soon': not a number of seconds"},
        {{"--nproc_per_node", "2", "--kill-grace", "inf", "t.py"},
         "--kill-grace 'inf': not a number of seconds"},
        {{"--nproc_per_node", "2", "--kill-grace", "-1", "t.py"},
         "--kill-grace '-1': must be from 0 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--strict-host-key-checking", "maybe", "t.py"},
         "--strict-host-key-checking 'maybe': use yes, accept-new, no or ask"},
        {{"--nproc_per_node", "2", "--ssh-timeout", "0", "t.py"},
         "--ssh-timeout '0': must be from 0.1 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--ssh-timeout", "nan", "t.py"},
         "--ssh-timeout 'nan': not a number of seconds"},
        // Past the documented limits: no timer overflows, no value rounds to 0.
        {{"--nproc_per_node", "2", "--kill-grace", "1e18", "t.py"},
         "--kill-grace '1e18': must be from 0 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--kill-grace", "3600.1", "t.py"},
         "--kill-grace '3600.1': must be from 0 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--ssh-timeout", "1e12", "t.py"},
         "--ssh-timeout '1e12': must be from 0.1 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--ssh-timeout", "0.0001", "t.py"},
         "--ssh-timeout '0.0001': must be from 0.1 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--hostfile", "h", "--num_nodes", "all", "t.py"},
         "--num_nodes 'all': not a positive number of nodes (or -1 for all)"},
        {{"--nproc_per_node", "2", "-H", "a", "--hostfile", "h", "t.py"},
         "--host and --hostfile cannot be used together"},
        {{"--nproc_per_node", "2", "-H", "a,b", "--include", "a", "t.py"},
         "--include cannot be used with --host (list the hosts you want)"},
        {{"--nproc_per_node", "2", "--host", "", "t.py"}, "--host: empty host list"},
        {{"--nproc_per_node", "2", "-H", "a,,b", "t.py"},
         "--host 'a,,b': empty host name in the list"},
        {{"--nproc_per_node", "2", "-H", "a;b", "t.py"},
         "--host: invalid host 'a;b': contains ';'"},
        {{"--nproc_per_node", "2", "--hostfile", "h", "--include", "-x", "t.py"},
         "--include: invalid host '-x': starts with '-'"},
        {{"--nproc_per_node", "2", "--hostfile", "h", "--exclude", "a,a", "t.py"},
         "--exclude: duplicate host 'a'"},
        {{"--nproc_per_node", "2", "--extra_launch_args", "a,,b", "t.py"},
         "--extra_launch_args 'a,,b': item 2 has an empty name"},
        {{"--nproc_per_node", "2", "--network-interface", "eth0,,ib0", "t.py"},
         "--network-interface 'eth0,,ib0': an empty name"},
        {{"--nproc_per_node", "GPU", "t.py"},
         "--nproc_per_node 'GPU': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "0", "t.py"},
         "--nproc_per_node '0': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "-2", "t.py"},
         "--nproc_per_node '-2': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "2.5", "t.py"},
         "--nproc_per_node '2.5': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node=", "t.py"},
         "--nproc_per_node '': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "99999999999", "t.py"},
         "--nproc_per_node '99999999999': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "2", "--launcher", "slurm", "--srun-args", "--comment 'x", "t.py"},
         "--srun-args: unterminated ' quote"},
        {{"--nproc_per_node", "2", "--ssh-client", "OpenSSH", "t.py"},
         "--ssh-client 'OpenSSH': expected libssh or openssh"},
        // Each value is read as it comes: a bad one fails even when a later one replaces it.
        {{"--nproc_per_node", "2", "-H", "a;b", "-H", "a", "t.py"},
         "--host: invalid host 'a;b': contains ';'"},
        {{"--nproc_per_node", "2", "--hostfile=", "t.py"}, "--hostfile '': empty file name"},
        {{"--nproc_per_node", "2", "--bogus", "t.py"},
         "unknown option '--bogus' (options for the script go after the script)"},
        {{"--nproc_per_node"}, "option '--nproc_per_node' needs a value"},
    };
    for (const CommandErrorCase& c : cases) {
        EXPECT_EQ(usage_message(c.words), c.message);
    }
}

TEST(RunCommand, HelpListsTheOptionsAndExitsZero) {
    std::ostringstream out;
    Command command = parse({"colossalai", "run", "--help"}, out);
    ASSERT_TRUE(std::holds_alternative<Done>(command));
    EXPECT_EQ(std::get<Done>(command).exit_code, 0);
    for (const char* option :
         {"-H,--host HOSTS", "--hostfile FILE", "--include HOSTS", "--exclude HOSTS",
          "--num_nodes N=-1", "--nproc_per_node N", "--master_port PORT=29500",
          "--master_addr ADDR=127.0.0.1", "--extra_launch_args ARGS", "--ssh-port PORT",
          "--ssh-timeout SECONDS=30", "--kill-grace SECONDS=10", "--dry-run", "-m MODULE"}) {
        EXPECT_NE(out.str().find(option), std::string::npos) << option << "\n" << out.str();
    }
}

TEST(RunCommand, MainPrintsOneErrorLineAndTheHint) {
    std::ostringstream out;
    std::ostringstream err;
    int status = main({"colossalai", "run", "--nproc_per_node", "0", "t.py"}, out, err);
    EXPECT_EQ(status, 2);
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), "Error: --nproc_per_node '0': not a positive integer (or auto, cpu, gpu)\n"
                         "Run 'colossalai run --help' for more information.\n");
}

// CLI11 quotes what it rejects as given; the message is escaped so that it stays one line.
TEST(RunCommand, MainEscapesTheWordsTheParserRejects) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"colossalai", "ch\neck"},
         "Error: The following argument was not expected: ch\\x0aeck\n"
         "Run 'colossalai --help' for more information.\n"},
        {{"colossalai", "check", "-i", "\xff"},
         "Error: The following argument was not expected: \\xff\n"
         "Run 'colossalai check --help' for more information.\n"},
    };
    for (const auto& [args, message] : cases) {
        std::ostringstream out;
        std::ostringstream err;
        EXPECT_EQ(main(args, out, err), 2);
        EXPECT_EQ(out.str(), "");
        EXPECT_EQ(err.str(), message);
    }
}

} // namespace
} // namespace colossalai::cli
