// The pre-scan is private to the cli module: its header lives beside the sources.
#include "../../../src/cli/commands.hpp"
#include "../../../src/cli/run_arguments.hpp"
#include "usage_message.hpp"

#include "colossalai/engines/engines.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace colossalai::cli {
namespace {

using Words = std::vector<std::string>;

// The launcher part as words, in order: `--name=value` for each value, `--name` for each flag,
// then --help.
Words launcher(const RunWords& words) {
    Words result;
    for (const GivenOption& given : words.options) {
        std::string name(given.option->display_name());
        result.push_back(given.option->takes_value() ? name + "=" + given.value : name);
    }
    if (words.help) {
        result.emplace_back("--help");
    }
    return result;
}

struct SplitCase {
    Words input;
    Words launcher;
    std::optional<std::string> module;
    std::optional<std::string> script;
    Words script_args;
};

TEST(SplitRunArguments, StopsAtTheScriptOrTheModule) {
    const std::vector<SplitCase> cases = {
        {{}, {}, std::nullopt, std::nullopt, {}},
        {{"train.py"}, {}, std::nullopt, "train.py", {}},
        {{"--nproc_per_node", "2", "train.py", "--master_port", "1", "-H", "x", "--help"},
         {"--nproc_per_node=2"},
         std::nullopt,
         "train.py",
         {"--master_port", "1", "-H", "x", "--help"}},
        {{"--master_port=1", "--", "train.py", "--", "-m", "x"},
         {"--master_port=1"},
         std::nullopt,
         "train.py",
         {"--", "-m", "x"}},
        {{"--", "-odd.py"}, {}, std::nullopt, "-odd.py", {}},
        {{"--"}, {}, std::nullopt, std::nullopt, {}},
        {{"-m", "pkg.mod", "train.py", "--dry-run"},
         {},
         "pkg.mod",
         std::nullopt,
         {"train.py", "--dry-run"}},
        {{"--dry-run", "-mpkg.mod", "-x"}, {"--dry-run"}, "pkg.mod", std::nullopt, {"-x"}},
        {{"-m", "--", "a"}, {}, "--", std::nullopt, {"a"}},
        {{"-", "a"}, {}, std::nullopt, "-", {"a"}},
    };
    for (const SplitCase& c : cases) {
        RunWords words = split_run_arguments(c.input);
        EXPECT_EQ(launcher(words), c.launcher);
        EXPECT_EQ(words.module, c.module);
        EXPECT_EQ(words.script, c.script);
        EXPECT_EQ(words.script_args, c.script_args);
    }
}

struct RewriteCase {
    Words input;
    Words launcher;
};

TEST(SplitRunArguments, ReadsEveryOptionForm) {
    const std::vector<RewriteCase> cases = {
        {{"-H", "a,b"}, {"--host=a,b"}},
        {{"-Ha,b"}, {"--host=a,b"}},
        {{"-host", "a"}, {"--host=a"}},
        {{"-host=a"}, {"--host=a"}},
        {{"--host", "a"}, {"--host=a"}},
        {{"--host=a=b"}, {"--host=a=b"}},
        {{"--master_addr", "-weird"}, {"--master_addr=-weird"}},
        {{"--master_port", "-1"}, {"--master_port=-1"}},
        {{"--extra_launch_args", "--tee=1"}, {"--extra_launch_args=--tee=1"}},
        {{"--nproc-per-node", "8"}, {"--nproc_per_node=8"}},
        {{"--master-addr=x", "--master-port=1"}, {"--master_addr=x", "--master_port=1"}},
        {{"--dry_run", "--ssh_port", "22", "--ssh_timeout=5", "--kill_grace", "0"},
         {"--dry-run", "--ssh-port=22", "--ssh-timeout=5", "--kill-grace=0"}},
        {{"--host", "", "--host", "a", "-h"}, {"--host=", "--host=a", "--help"}},
        {{"--hostfile", "", "--include="}, {"--hostfile=", "--include="}},
        {{"-h"}, {"--help"}},
        {{"--help"}, {"--help"}},
        {{"--num_nodes", "2", "--exclude", "a", "--host", "x"},
         {"--num_nodes=2", "--exclude=a", "--host=x"}},
        {{"-x", "A=1", "-xB", "-x", "-weird", "--env-file", "e", "--env_exclude=N*", "--log-dir",
          "d"},
         {"-x=A=1", "-x=B", "-x=-weird", "--env-file=e", "--env-exclude=N*", "--log-dir=d"}},
    };
    for (const RewriteCase& c : cases) {
        RunWords words = split_run_arguments(c.input);
        EXPECT_EQ(launcher(words), c.launcher);
        EXPECT_EQ(words.script, std::nullopt);
    }
}

struct ArgumentsErrorCase {
    Words input;
    std::string message;
};

TEST(SplitRunArguments, RejectsUnknownOptionsAndMissingValues) {
    const std::vector<ArgumentsErrorCase> cases = {
        {{"--lr", "0.1", "train.py"},
         "unknown option '--lr' (options for the script go after the script)"},
        {{"--hostt=x"}, "unknown option '--hostt' (options for the script go after the script)"},
        {{"-x"}, "option '-x' needs a value"},
        {{"-y"}, "unknown option '-y'"},
        {{"-hostfile", "h"}, "unknown option '-hostfile' (did you mean '--hostfile'?)"},
        {{"-nproc_per_node=2"},
         "unknown option '-nproc_per_node=2' (did you mean "
         "'--nproc_per_node'?)"},
        {{"--hostfile"}, "option '--hostfile' needs a value"},
        {{"-H"}, "option '-H' needs a value"},
        {{"-host"}, "option '-host' needs a value"},
        {{"--nproc-per-node"}, "option '--nproc-per-node' needs a value"},
        {{"-m"}, "-m needs a module name"},
        {{"--dry-run=yes"}, "option '--dry-run' takes no value"},
        {{"--help=1"}, "option '--help' takes no value"},
    };
    for (const ArgumentsErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { split_run_arguments(c.input); }), c.message);
    }
}

// The launcher: ssh or slurm, with --srun-args read as given.
RunArguments launcher_arguments(const Words& words) {
    RunArguments arguments;
    arguments.words = split_run_arguments(words);
    return arguments;
}

TEST(FinishRunCommand, ReadsTheLauncherAndItsSrunArgs) {
    run::Options options = finish_run_command(
        launcher_arguments({"--launcher", "slurm", "--srun-args=-p gpu", "t.py"}));
    EXPECT_EQ(options.engine, engines::find("slurm"));
    EXPECT_EQ(std::get<run::SrunLaunch::Given>(options.engine_options).srun_args,
              (std::vector<std::string>{"-p", "gpu"}));
    EXPECT_EQ(finish_run_command(launcher_arguments({"t.py"})).engine, nullptr); // the default
}

// The ssh engine's client of the options that finish_run_command read.
std::optional<run::SshClient> ssh_client(const Words& words) {
    run::Options options = finish_run_command(launcher_arguments(words));
    return std::get<run::SshLaunch::Given>(options.engine_options).ssh_client;
}

// --ssh-client: a typed choice, unset unless given (the planner's default is libssh).
TEST(FinishRunCommand, ReadsTheSshClient) {
    EXPECT_EQ(ssh_client({"--ssh-client", "openssh", "t.py"}), run::SshClient::openssh);
    EXPECT_EQ(ssh_client({"--ssh-client=libssh", "t.py"}), run::SshClient::libssh);
    EXPECT_EQ(ssh_client({"t.py"}), std::nullopt);
}

TEST(FinishRunCommand, KeepsEveryEnvironmentFlagInOrder) {
    run::Options options = finish_run_command(
        launcher_arguments({"-x", "A=1", "--env-file", "a", "-xB", "--env-exclude", "N*,M",
                            "--env-file=b", "--env-exclude", "O", "--log-dir", "logs", "t.py"}));
    EXPECT_EQ(options.exports, (std::vector<run::EnvExport>{{"A", "1"}, {"B", std::nullopt}}));
    EXPECT_EQ(options.env_files, (Words{"a", "b"}));
    EXPECT_EQ(options.env_exclude,
              (std::vector<run::EnvPattern>{{"N*", true}, {"M", false}, {"O", false}}));
    EXPECT_EQ(options.log_dir, "logs");
}

TEST(FinishRunCommand, RefusesABadLauncher) {
    EXPECT_EQ(test::usage_message([] {
                  finish_run_command(launcher_arguments({"--launcher", "mpi", "t.py"}));
              }),
              "--launcher 'mpi': expected ssh or slurm or mpirun");
}

// -x, --env-exclude, --master_addr and --extra_launch_args' master are typed where they are read:
// a bad one is refused by its option, before any check across options (here: no script).
TEST(FinishRunCommand, ParsesEachValueWhereItIsRead) {
    const std::vector<std::pair<Words, std::string>> cases = {
        {{"-x", "PPID=1"},
         "-x: 'PPID' is a read-only shell variable; it cannot be passed to a node"},
        {{"--env-exclude", "A,"}, "--env-exclude 'A,': an empty pattern"},
        {{"--master_addr", "u@h"}, "--master_addr 'u@h': an address has no user part"},
        {{"--master_port", "0"}, "--master_port '0': not a port number (1..65535)"},
        {{"--extra_launch_args", "master_port=x"},
         "--extra_launch_args: master_port 'x': not a port number (1..65535)"},
    };
    for (const auto& [words, message] : cases) {
        EXPECT_EQ(test::usage_message(
                      [&, &words = words] { finish_run_command(launcher_arguments(words)); }),
                  message)
            << words.front();
    }
    run::Options options = finish_run_command(
        launcher_arguments({"--extra_launch_args", "master_port=7,tee=1,master_addr=h", "t.py"}));
    EXPECT_EQ(options.extra_master, (run::ExtraMaster{run::MasterAddress{"h"}, run::Port{7}}));
    ASSERT_TRUE(options.extra_launch_args);
    EXPECT_EQ(options.extra_launch_args->size(), 1u);
    // The last --extra_launch_args wins, its master included.
    options = finish_run_command(launcher_arguments(
        {"--extra_launch_args", "master_port=7", "--extra_launch_args", "tee=1", "t.py"}));
    EXPECT_EQ(options.extra_master, run::ExtraMaster{});
}

} // namespace
} // namespace colossalai::cli
