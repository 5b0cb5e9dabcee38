#include "lines.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

// The generated bash, zsh and fish completions, each driven by its shell (install/complete.sh),
// in a directory of known files and with a HOME of known ~/.ssh/config.
namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

const fs::path generated = COLOSSALAI_GENERATED_DIR;

struct Shell {
    std::string name;
    fs::path file;
};

class Completion : public testing::TestWithParam<Shell> {
protected:
    void SetUp() override {
        // Saved on Windows (a byte-order mark, CRLF), with DeepSpeed's slots and a range: the
        // completions offer what `run` reads.
        write_file(m_dir / "work/hosts", "\xEF\xBB\xBFnode1 slots=2 # the first\r\nalice@node2\r\n"
                                         "\r\n# a comment\r\nn[1-2] max_slots=2\r\n");
        // A file `run` refuses: no host of it is offered.
        write_file(m_dir / "work/bad", "node7\nnode;8\n");
        write_file(m_dir / "work/train.py", "");
        write_file(m_dir / "work/notes.txt", "");
        fs::create_directories(m_dir / "work/logs");
        write_file(m_dir / "home/.ssh/config",
                   "Host gpu-a gpu-b\n    HostName 10.0.0.1\nHost *.cluster gpu-?\n"
                   "host=lower\nMatch all\n");
    }

    // The candidates for the last word of `words` (the command line up to the cursor).
    std::set<std::string> complete(const std::vector<std::string>& words) {
        std::vector<std::string> argv{COLOSSALAI_COMPLETE_SCRIPT, GetParam().name,
                                      GetParam().file.string(), "colossalai"};
        argv.insert(argv.end(), words.begin(), words.end());
        std::map<std::string, std::string> env = current_environment();
        env["HOME"] = (m_dir / "home").string();
        // The completions ask the program itself for a hostfile's hosts: the one under test.
        env["PATH"] = binary().parent_path().string() + ":" + env["PATH"];
        env.erase("XDG_CONFIG_HOME");
        env.erase("XDG_DATA_HOME");
        RunOptions options;
        options.env = env;
        options.cwd = m_dir / "work";
        RunResult result = run(argv, options);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.err, "");
        std::set<std::string> candidates;
        std::istringstream in(result.out);
        for (std::string line; std::getline(in, line);) {
            line = line.substr(0, line.find('\t')); // fish: the description follows a tab
            if (!line.empty()) {
                candidates.insert(line);
            }
        }
        return candidates;
    }

    TempDir m_dir{"colossalai-completion"};
};

using Words = std::set<std::string>;

TEST_P(Completion, OffersTheSubcommands) {
    EXPECT_EQ(complete({""}), (Words{"check", "run"}));
    EXPECT_EQ(complete({"r"}), (Words{"run"}));
}

TEST_P(Completion, OffersEveryOptionOfCheck) {
    EXPECT_EQ(complete({"check", "-"}),
              (Words{"-h", "--help", "-i", "--installation", "--json", "--python", "-H", "--host",
                     "--hostfile", "--allocation", "--launcher", "--srun-args", "--ssh-port",
                     "--ssh-timeout", "--mpirun", "--mpirun-args"}));
}

TEST_P(Completion, OffersRunOptionsInBothSpellings) {
    EXPECT_EQ(complete({"run", "--nproc"}), (Words{"--nproc_per_node", "--nproc-per-node"}));
    EXPECT_EQ(complete({"run", "--ssh"}), (Words{"--ssh-port", "--ssh_port", "--ssh-timeout",
                                                 "--ssh_timeout", "--ssh-client", "--ssh_client"}));
    Words all = complete({"run", "-"});
    for (const char* option :
         {"-H", "--host", "--hostfile", "--include", "--exclude", "--num_nodes", "--master-addr",
          "--extra_launch_args", "--kill-grace", "--dry-run", "--dry_run", "-m", "--help"}) {
        EXPECT_EQ(all.count(option), 1u) << option;
    }
}

TEST_P(Completion, OffersFileNamesForFileOptions) {
    EXPECT_EQ(complete({"run", "--hostfile", "h"}), (Words{"hosts"}));
    EXPECT_EQ(complete({"check", "--python", "n"}), (Words{"notes.txt"}));
}

TEST_P(Completion, OffersTheHostsOfTheHostfileAndOfSshConfig) {
    Words hosts{"node1", "alice@node2", "n1", "n2", "gpu-a", "gpu-b", "lower"};
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "--host", ""}), hosts);
    EXPECT_EQ(complete({"run", "--hostfile=hosts", "--include", "node1,gpu"}),
              (Words{"node1,gpu-a", "node1,gpu-b"}));
    // bash completes only what follows the '=' (a word break); zsh and fish the whole word.
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "--exclude=a"}),
              (Words{GetParam().name == "bash" ? "alice@node2" : "--exclude=alice@node2"}));
    // A host already in the list is not offered again.
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "-H", "node1,gpu-a,"}),
              (Words{"node1,gpu-a,alice@node2", "node1,gpu-a,n1", "node1,gpu-a,n2",
                     "node1,gpu-a,gpu-b", "node1,gpu-a,lower"}));
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "--include", "n"}),
              (Words{"node1", "n1", "n2"}));
    // Without a hostfile, or with one `run` refuses: ~/.ssh/config alone.
    EXPECT_EQ(complete({"run", "-H", ""}), (Words{"gpu-a", "gpu-b", "lower"}));
    EXPECT_EQ(complete({"run", "--hostfile", "bad", "-H", ""}), (Words{"gpu-a", "gpu-b", "lower"}));
    EXPECT_EQ(complete({"run", "--hostfile", "missing", "-H", ""}),
              (Words{"gpu-a", "gpu-b", "lower"}));
}

TEST_P(Completion, OffersPythonScriptsAndNothingAfterTheScript) {
    Words script = complete({"run", "--nproc_per_node", "2", ""});
    EXPECT_EQ(script.count("train.py"), 1u);
    EXPECT_EQ(script.count("notes.txt"), 0u);
    EXPECT_EQ(complete({"run", "train.py", ""}), Words{});
    EXPECT_EQ(complete({"run", "train.py", "--"}), Words{});
    EXPECT_EQ(complete({"run", "-m", "pkg.train", "--h"}), Words{});
    EXPECT_EQ(complete({"run", "-mpkg.train", ""}), Words{});
    EXPECT_EQ(complete({"run", "--", "t"}), Words{"train.py"});
}

TEST_P(Completion, OffersNothingForAFreeValue) {
    EXPECT_EQ(complete({"run", "--master_port", ""}), Words{});
}

// What the completions ask for: a hostfile's hosts as `run --hostfile` reads them, or run's
// error (exit 2) for a file it refuses.
TEST(ListHosts, PrintsTheHostsRunReadsOnePerLine) {
    TempDir dir{"colossalai-list-hosts"};
    write_file(dir / "hosts",
               "\xEF\xBB\xBF# nodes\r\nnode1 slots=8\r\nalice@gpu[01-03] # a range\r\n[::1]\r\n");
    RunResult listed = run({binary().string(), "--list-hosts", (dir / "hosts").string()});
    EXPECT_EQ(listed.exit_code, 0) << describe(listed);
    EXPECT_EQ(listed.out, "node1\nalice@gpu01\nalice@gpu02\nalice@gpu03\n[::1]\n");
    EXPECT_EQ(listed.err, "");
    write_file(dir / "twice", "alice@node2\nbob@node2\n");
    RunResult refused = run({binary().string(), "--list-hosts", (dir / "twice").string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.out, "");
    EXPECT_EQ(lines_of(refused.err).at(0),
              "Error: " + (dir / "twice").string() +
                  ":2: duplicate host 'bob@node2' (the same machine as 'alice@node2' at line 1)");
}

std::string shell_name(const testing::TestParamInfo<Shell>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(
    Shells, Completion,
    testing::Values(Shell{"bash", generated / "bash-completion/completions/colossalai"},
                    Shell{"zsh", generated / "zsh/site-functions/_colossalai"},
                    Shell{"fish", generated / "fish/vendor_completions.d/colossalai.fish"}),
    shell_name);

} // namespace
} // namespace colossalai::test
