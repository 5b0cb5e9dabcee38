#include "case_name.hpp"
#include "files.hpp"

#include "colossalai/python/environment.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

namespace colossalai::python {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(ProbeCommand, RunsTheInterpreterOnceWithoutImportingTorch) {
    std::vector<std::string> argv = probe_command("/venv/bin/python3");
    ASSERT_EQ(argv.size(), 3u);
    EXPECT_EQ(argv[0], "/venv/bin/python3");
    EXPECT_EQ(argv[1], "-c");
    EXPECT_EQ(argv[2].find("torch"), std::string::npos) << argv[2];
    EXPECT_NE(argv[2].find("sys.path"), std::string::npos) << argv[2];
}

struct ProbeCase {
    const char* name;
    std::string output;
    bool ok;
    std::string version;
    std::string executable;
    std::vector<std::string> search_path;
};

class ParseProbeOutput : public ::testing::TestWithParam<ProbeCase> {};

TEST_P(ParseProbeOutput, SplitsAtNul) {
    const ProbeCase& c = GetParam();
    std::optional<Environment> environment = parse_probe_output("/x/python3", c.output);
    ASSERT_EQ(environment.has_value(), c.ok) << c.name;
    if (!c.ok) {
        return;
    }
    EXPECT_EQ(environment->interpreter, "/x/python3");
    EXPECT_EQ(environment->version, c.version) << c.name;
    EXPECT_EQ(environment->executable, c.executable) << c.name;
    std::vector<std::string> paths;
    for (const fs::path& p : environment->search_path) {
        paths.push_back(p.string());
    }
    EXPECT_EQ(paths, c.search_path) << c.name;
}

using namespace std::string_literals;

INSTANTIATE_TEST_SUITE_P(
    Table, ParseProbeOutput,
    ::testing::Values(
        ProbeCase{
            "venv",
            "3.11.2\0/v/bin/python3\0\0/usr/lib/python311.zip\0/usr/lib/python3.11\0"
            "/v/lib/python3.11/site-packages"s,
            true,
            "3.11.2",
            "/v/bin/python3",
            {"/usr/lib/python311.zip", "/usr/lib/python3.11", "/v/lib/python3.11/site-packages"}},
        ProbeCase{
            "duplicates dropped", "3.8.10\0/p\0/a\0/b\0/a"s, true, "3.8.10", "/p", {"/a", "/b"}},
        ProbeCase{"path with spaces and newline",
                  "3.12.1\0/p\0/my dir\n2"s,
                  true,
                  "3.12.1",
                  "/p",
                  {"/my dir\n2"}},
        ProbeCase{"no search path", "3.11.2\0/p"s, true, "3.11.2", "/p", {}},
        ProbeCase{"no separator", "3.11.2", false, "", "", {}},
        ProbeCase{"empty", "", false, "", "", {}},
        ProbeCase{"not a version", "Python\0/p\0/a"s, false, "", "", {}},
        ProbeCase{"banner instead", "pyenv: python3: command not found\n", false, "", "", {}}),
    test::CaseName());

TEST(FindPackage, TakesTheFirstSearchPathEntryWithAPackage) {
    TempDir root;
    root.write("a/torch/README", ""); // a directory, but no package
    root.write("b/torch/version.py", "__version__ = '2.1.0'\n");
    root.write("c/torch/__init__.py", "");
    root.write("d/colossalai/__init__.py", "");
    root.write("e/torch", "a file, not a package\n");
    Environment environment;
    environment.search_path = {root.path() / "missing", root.path() / "e", root.path() / "a",
                               root.path() / "b",       root.path() / "c", root.path() / "d"};
    EXPECT_EQ(find_package(environment, "torch"), root.path() / "b" / "torch");
    EXPECT_EQ(find_package(environment, "colossalai"), root.path() / "d" / "colossalai");
    EXPECT_EQ(find_package(environment, "numpy"), std::nullopt);
}

TEST(ResolveInterpreter, PrefersPython3ThenPython) {
    TempDir root;
    root.write("one/python", "#!/bin/sh\n", 0755);
    root.write("two/python3", "#!/bin/sh\n", 0755);
    root.write("three/python3", "not executable\n", 0644);
    std::string path = (root.path() / "three").string() + ":" + (root.path() / "one").string() +
                       ":" + (root.path() / "two").string();
    EXPECT_EQ(resolve_interpreter(std::nullopt, path), root.path() / "two" / "python3");
    EXPECT_EQ(resolve_interpreter(std::nullopt, (root.path() / "one").string()),
              root.path() / "one" / "python");
    EXPECT_EQ(resolve_interpreter(std::nullopt, (root.path() / "three").string()), std::nullopt);
    EXPECT_EQ(resolve_interpreter(std::nullopt, ""), std::nullopt);
}

TEST(ResolveInterpreter, ExplicitPathMustBeExecutable) {
    TempDir root;
    fs::path good = root.write("bin/python3.11", "#!/bin/sh\n", 0755);
    fs::path plain = root.write("bin/plain", "", 0644);
    EXPECT_EQ(resolve_interpreter(good.string(), ""), good);
    EXPECT_EQ(resolve_interpreter("python3.11", (root.path() / "bin").string()), good);
    for (const std::string& bad : {plain.string(), (root.path() / "bin").string(),
                                   (root.path() / "none").string(), std::string()}) {
        try {
            resolve_interpreter(bad, "");
            ADD_FAILURE() << "accepted " << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::usage);
            EXPECT_EQ(std::string(e.what()), "--python '" + bad + "': not an executable file");
        }
    }
    try {
        resolve_interpreter("python9", (root.path() / "bin").string());
        ADD_FAILURE() << "accepted python9";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::usage);
        EXPECT_STREQ(e.what(), "--python 'python9': not found in PATH");
    }
}

// A name with a newline or bytes that are not UTF-8 is escaped: the error stays one line.
TEST(ResolveInterpreter, EscapesTheNameInMessages) {
    TempDir root;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"python\n3", "--python 'python\\x0a3': not found in PATH"},
        {(root.path() / "py\xff").string(),
         "--python '" + (root.path() / "py\\xff").string() + "': not an executable file"},
    };
    for (const auto& [given, message] : cases) {
        try {
            resolve_interpreter(given, (root.path() / "bin").string());
            ADD_FAILURE() << "accepted " << given;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), Error::Kind::usage);
            EXPECT_EQ(std::string(e.what()), message);
        }
    }
}

TEST(Discover, NoInterpreterMeansNoEnvironmentAndNoProcess) {
    TempDir empty;
    Discovery discovery = discover(std::nullopt, Lookup{empty.path().string(), empty.path(), {}});
    EXPECT_EQ(discovery.interpreter, std::nullopt);
    EXPECT_EQ(discovery.environment, std::nullopt);
    EXPECT_EQ(discovery.warning, std::nullopt);
}

} // namespace
} // namespace colossalai::python
