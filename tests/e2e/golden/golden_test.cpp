// The golden tests (issue #27): each case of tests/golden/cases.txt runs the real binary in a
// fixed environment and compares what it printed and its exit status, byte for byte, with
// tests/golden/<case>.golden. COLOSSALAI_UPDATE_GOLDEN=1 (tests/golden/update.sh) writes the
// golden files instead (docs/developing.md, "Golden tests").

#include "golden_case.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

const fs::path golden_dir = COLOSSALAI_GOLDEN_DIR;

const GoldenTable& table() {
    static const GoldenTable read = parse_cases(read_file(golden_dir / "cases.txt"), "cases.txt");
    return read;
}

bool updating() {
    const char* value = std::getenv("COLOSSALAI_UPDATE_GOLDEN");
    return value != nullptr && std::string(value) == "1";
}

// A python3 that answers the launcher's sys.path query (python/environment.cpp) with a
// site-packages holding torch/version.py of `version`; no real interpreter runs.
void write_fake_python(const fs::path& dir, const std::string& version) {
    fs::path site = dir / "python/site-packages";
    write_file(site / "torch/version.py", "__version__ = '" + version + "'\ncuda = None\n");
    write_file(dir / "bin/python3",
               "#!/bin/sh\nprintf '3.11.2\\0%s\\0%s' \"$0\" '" + site.string() + "'\n", 0755);
}

class Golden : public testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, OutputAndExitStatusAreTheGoldenOnes) {
    const GoldenCase& golden = GetParam();
    TempDir dir("colossalai-golden");
    // The fixed environment: nothing of the caller's (no CUDA_VISIBLE_DEVICES, SLURM_*, SSH_*,
    // no system python3 or torchrun on PATH), a HOME and a TMPDIR of the case's own.
    fs::create_directories(dir / "bin");
    fs::create_directories(dir / "home");
    fs::create_directories(dir / "tmp");
    std::map<std::string, std::string> env{{"PATH", (dir / "bin").string()},
                                           {"HOME", (dir / "home").string()},
                                           {"TMPDIR", (dir / "tmp").string()},
                                           {"TERM", "dumb"},
                                           {"COLUMNS", "80"},
                                           {"LC_ALL", "C"},
                                           {"NO_COLOR", "1"}};
    for (const auto& [name, value] : golden.env) {
        env[name] = value;
    }
    if (golden.torch) {
        write_fake_python(dir.path(), *golden.torch);
    }
    for (const GoldenFile& file : golden.files) {
        if (file.directory) {
            fs::create_directories(dir / file.path);
        } else if (file.path.rfind("bin/", 0) == 0) {
            write_file(dir / file.path, file.content, 0755); // a program first on PATH
        } else {
            write_file(dir / file.path, file.content);
        }
    }
    RunOptions options;
    options.env = env;
    options.cwd = dir.path();
    options.timeout = std::chrono::milliseconds(20000);
    RunResult result = run_colossalai(golden.args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    // Help, generated files and dry runs exit 0, usage errors 2: anything else means the case
    // launched (or connected to) something, which no golden case may do.
    EXPECT_TRUE(result.signal == 0 && (result.exit_code == 0 || result.exit_code == 2))
        << describe(result);
    std::string actual = render(golden.args_line, result.exit_code, result.signal,
                                normalise(result.out, dir.path().string()),
                                normalise(result.err, dir.path().string()));
    fs::path file = golden_dir / (golden.name + ".golden");
    if (updating()) {
        write_file(file, actual);
        return;
    }
    ASSERT_TRUE(fs::exists(file)) << file << " is missing: run tests/golden/update.sh\n" << actual;
    EXPECT_EQ(read_file(file), actual)
        << file << " differs (tests/golden/update.sh rewrites it if the change is meant)";
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, testing::ValuesIn(table().cases),
                         [](const testing::TestParamInfo<GoldenCase>& info) {
                             return info.param.name;
                         });

// A file the build generates and a package installs, pinned whole as
// tests/golden/installed/<golden>. The man pages are not here: they are what `--generate` prints,
// pinned above.
struct InstalledFile {
    std::string generated; // under the build's share/
    std::string golden;
};

void PrintTo(const InstalledFile& file, std::ostream* out) {
    *out << file.generated;
}

class GoldenInstalled : public testing::TestWithParam<InstalledFile> {};

TEST_P(GoldenInstalled, IsTheGoldenOne) {
    fs::path generated = fs::path(COLOSSALAI_GENERATED_DIR) / GetParam().generated;
    std::string actual = read_file(generated);
    ASSERT_FALSE(actual.empty()) << "no " << generated;
    fs::path file = golden_dir / "installed" / GetParam().golden;
    if (updating()) {
        write_file(file, actual);
        return;
    }
    ASSERT_TRUE(fs::exists(file)) << file << " is missing: run tests/golden/update.sh";
    EXPECT_EQ(read_file(file), actual)
        << file << " differs (tests/golden/update.sh rewrites it if the change is meant)";
}

const std::vector<InstalledFile> installed_files{
    {"bash-completion/completions/colossalai", "colossalai.bash.golden"},
    {"zsh/site-functions/_colossalai", "_colossalai.zsh.golden"},
    {"fish/vendor_completions.d/colossalai.fish", "colossalai.fish.golden"}};

INSTANTIATE_TEST_SUITE_P(Completions, GoldenInstalled, testing::ValuesIn(installed_files),
                         [](const testing::TestParamInfo<InstalledFile>& info) {
                             std::string name =
                                 info.param.golden.substr(0, info.param.golden.find(".golden"));
                             std::replace_if(
                                 name.begin(), name.end(),
                                 [](char c) { return c == '.' || c == '_'; }, '_');
                             return name.front() == '_' ? name.substr(1) : name;
                         });

// Every node command of every golden dry run, parsed by torch's own parser
// (torch.distributed.run.get_args_parser() of this machine's PyTorch) with the values each case
// asked for: nnodes, node_rank, nproc_per_node, the master, the rendezvous, max_restarts, the
// extra launch args, the module flag, the script and its arguments
// (tests/torch/parse_golden_commands.py). The golden files are what the binary prints (above).
TEST(TorchParser, ReadsEveryGoldenDryRunCommandAsAsked) {
    if (!fs::exists(COLOSSALAI_TORCH_PYTHON)) {
        GTEST_SKIP() << COLOSSALAI_TORCH_PYTHON << " is not installed";
    }
    RunOptions options;
    options.timeout = std::chrono::milliseconds(60000);
    RunResult result =
        run({COLOSSALAI_TORCH_PYTHON, "-I", COLOSSALAI_TORCH_PARSER, golden_dir.string()}, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    if (result.exit_code == 77) {
        GTEST_SKIP() << result.out; // that Python has no torch
    }
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find(" node commands of "), std::string::npos) << result.out;
}

TEST(GoldenTable, IsReadWhole) {
    EXPECT_EQ(table().error, "");
    EXPECT_FALSE(table().cases.empty());
}

// A golden file without its case would pin nothing and go stale unnoticed.
TEST(GoldenTable, EveryGoldenFileHasItsCase) {
    std::set<std::string> names;
    for (const GoldenCase& golden : table().cases) {
        names.insert(golden.name + ".golden");
    }
    for (const auto& entry : fs::directory_iterator(golden_dir)) {
        if (entry.path().extension() == ".golden") {
            EXPECT_EQ(names.count(entry.path().filename().string()), 1u)
                << entry.path() << " has no case in cases.txt: remove it";
        }
    }
}

TEST(GoldenTable, EveryInstalledGoldenFileIsCompared) {
    std::set<std::string> names;
    for (const InstalledFile& file : installed_files) {
        names.insert(file.golden);
    }
    for (const auto& entry : fs::directory_iterator(golden_dir / "installed")) {
        EXPECT_EQ(names.count(entry.path().filename().string()), 1u)
            << entry.path() << " is compared with nothing: remove it";
    }
}

TEST(GoldenWords, SplitAtSpacesWithEscapes) {
    EXPECT_EQ(split_words("run -H a\\sb \"\" \\x41\\n\\t\\r\\\\"),
              (std::vector<std::string>{"run", "-H", "a b", "", "A\n\t\r\\"}));
    EXPECT_THROW(split_words("a  b"), std::invalid_argument);
    EXPECT_THROW(split_words("a\\q"), std::invalid_argument);
    EXPECT_THROW(split_words("a\\x4"), std::invalid_argument);
    EXPECT_THROW(split_words("a\\"), std::invalid_argument);
}

TEST(GoldenCases, ReadEveryKeywordAndNameTheBadLine) {
    GoldenTable read = parse_cases("# c\ncase one\nargs run t.py\nfile h\na\\r\nend\n"
                                   "directory d\nenv A=b\\sc\ntorch 2.1.0\n\ncase two\nargs\n",
                                   "t");
    ASSERT_EQ(read.error, "");
    ASSERT_EQ(read.cases.size(), 2u);
    const GoldenCase& one = read.cases[0];
    EXPECT_EQ(one.args, (std::vector<std::string>{"run", "t.py"}));
    ASSERT_EQ(one.files.size(), 2u);
    EXPECT_EQ(one.files[0].content, "a\r\n");
    EXPECT_TRUE(one.files[1].directory);
    EXPECT_EQ(one.env.at("A"), "b c");
    EXPECT_EQ(one.torch, "2.1.0");
    EXPECT_TRUE(read.cases[1].has_args);
    EXPECT_TRUE(read.cases[1].args.empty());
    EXPECT_EQ(parse_cases("case a\nargs x\ncase a\nargs y\n", "t").error,
              "t:3: case 'a' is named twice");
    EXPECT_EQ(parse_cases("args x\n", "t").error, "t:1: 'args' before the first case");
    EXPECT_EQ(parse_cases("case a\nargs x\nfile f\nab\n", "t").error,
              "t:4: a file without its 'end' line");
    EXPECT_EQ(parse_cases("case a\n", "t").error, "t: case 'a' has no args line");
    EXPECT_EQ(parse_cases("case A\n", "t").error, "t:1: a case name is a-z, 0-9 and _: 'A'");
}

TEST(GoldenNormalise, ReplacesOnlyWhatDiffersFromRunToRun) {
    EXPECT_EQ(normalise("cwd=/tmp/x1 and /tmp/x1/h\n", "/tmp/x1"), "cwd=$WORKDIR and $WORKDIR/h\n");
    EXPECT_EQ(
        normalise("id colossalai-64033fee34b7f0a8; --rdzv_id=colossalai-0123456789abcdef\n", "/w"),
        "id colossalai-RDZVID; --rdzv_id=colossalai-RDZVID\n");
    // An id the user gave is theirs.
    EXPECT_EQ(normalise("--rdzv_id=colossalai-job7\n", "/w"), "--rdzv_id=colossalai-job7\n");
    EXPECT_EQ(
        normalise("colossalai 0.1.0\ncommit fb1f76befcc1\nlibssh 0.10.6/openssl/zlib\n", "/w"),
        "colossalai 0.1.0\ncommit COMMIT\nlibssh VERSION\n");
    EXPECT_EQ(normalise("colossalai 0.1.0\ncommit x\nlibssh none: why\n", "/w"),
              "colossalai 0.1.0\ncommit x\nlibssh none: why\n");
    EXPECT_EQ(normalise("help\ncommit this\n", "/w"), "help\ncommit this\n");
}

TEST(GoldenRender, MarksAStreamWithoutItsLastNewline) {
    EXPECT_EQ(render("--help", 0, 0, "a\n", ""),
              "$ colossalai --help\n--- exit 0\n--- stdout\na\n--- stderr\n");
    EXPECT_EQ(render("x", 2, 0, "", "e"),
              "$ colossalai x\n--- exit 2\n--- stdout\n--- stderr\ne\n\\ No newline at end\n");
    EXPECT_EQ(render("", 2, 0, "", ""), "$ colossalai\n--- exit 2\n--- stdout\n--- stderr\n");
    EXPECT_EQ(render("x", -1, 9, "", ""), "$ colossalai x\n--- signal 9\n--- stdout\n--- stderr\n");
}

} // namespace
} // namespace colossalai::test
