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
        write_file(m_dir / "work/hosts", "node1 # the first\nalice@node2\n\n# a comment\n");
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
                     "--hostfile", "--allocation", "--ssh-port", "--ssh-timeout"}));
}

TEST_P(Completion, OffersRunOptionsInBothSpellings) {
    EXPECT_EQ(complete({"run", "--nproc"}), (Words{"--nproc_per_node", "--nproc-per-node"}));
    EXPECT_EQ(complete({"run", "--ssh"}),
              (Words{"--ssh-port", "--ssh_port", "--ssh-timeout", "--ssh_timeout"}));
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
    Words hosts{"node1", "alice@node2", "gpu-a", "gpu-b", "lower"};
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "--host", ""}), hosts);
    EXPECT_EQ(complete({"run", "--hostfile=hosts", "--include", "node1,gpu"}),
              (Words{"node1,gpu-a", "node1,gpu-b"}));
    // bash completes only what follows the '=' (a word break); zsh and fish the whole word.
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "--exclude=a"}),
              (Words{GetParam().name == "bash" ? "alice@node2" : "--exclude=alice@node2"}));
    // A host already in the list is not offered again.
    EXPECT_EQ(complete({"run", "--hostfile", "hosts", "-H", "node1,gpu-a,"}),
              (Words{"node1,gpu-a,alice@node2", "node1,gpu-a,gpu-b", "node1,gpu-a,lower"}));
    // Without a hostfile: ~/.ssh/config alone.
    EXPECT_EQ(complete({"run", "-H", ""}), (Words{"gpu-a", "gpu-b", "lower"}));
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
