#include "case_name.hpp"
#include "files.hpp"

#include "colossalai/python/package_info.hpp"

#include <gtest/gtest.h>

namespace colossalai::python {
namespace {

using test::TempDir;

struct AssignmentCase {
    const char* name;
    const char* source;
    const char* variable;
    bool found;
    std::optional<std::string> value;
    bool none;
};

class FindAssignment : public ::testing::TestWithParam<AssignmentCase> {};

TEST_P(FindAssignment, ReadsTopLevelStringAssignments) {
    const AssignmentCase& c = GetParam();
    Assignment assignment = find_assignment(c.source, c.variable);
    EXPECT_EQ(assignment.found, c.found) << c.name;
    EXPECT_EQ(assignment.value, c.value) << c.name;
    EXPECT_EQ(assignment.none, c.none) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, FindAssignment,
    ::testing::Values(
        AssignmentCase{"single quotes", "__version__ = '2.1.0+cu121'\n", "__version__", true,
                       "2.1.0+cu121", false},
        AssignmentCase{"double quotes", "__version__ = \"0.3.6\"\n", "__version__", true, "0.3.6",
                       false},
        AssignmentCase{"plain", "cuda = '12.1'\n", "cuda", true, "12.1", false},
        AssignmentCase{"annotated", "cuda: Optional[str] = '12.1'\n", "cuda", true, "12.1", false},
        AssignmentCase{"None", "cuda = None\n", "cuda", true, std::nullopt, true},
        AssignmentCase{"annotated None", "hip: Optional[str] = None\n", "hip", true, std::nullopt,
                       true},
        AssignmentCase{"None with comment", "cuda = None  # CPU\n", "cuda", true, std::nullopt,
                       true},
        AssignmentCase{"trailing comment", "cuda = '12.1'  # from setup.py\n", "cuda", true, "12.1",
                       false},
        AssignmentCase{"no spaces", "cuda='11.8'\n", "cuda", true, "11.8", false},
        AssignmentCase{"commented out", "# cuda = '11.0'\n", "cuda", false, std::nullopt, false},
        AssignmentCase{"indented is not top level", "if x:\n    cuda = '11.0'\n", "cuda", false,
                       std::nullopt, false},
        AssignmentCase{"tab indented", "\tcuda = '11.0'\n", "cuda", false, std::nullopt, false},
        AssignmentCase{"last one wins", "cuda = '11.0'\ncuda = '12.1'\n", "cuda", true, "12.1",
                       false},
        AssignmentCase{"indented one does not override", "cuda = '12.1'\nif x:\n    cuda = None\n",
                       "cuda", true, "12.1", false},
        AssignmentCase{"longer name", "cuda_version = '11.0'\ncudart = '1'\n", "cuda", false,
                       std::nullopt, false},
        AssignmentCase{"comparison", "cuda == '12.1'\n", "cuda", false, std::nullopt, false},
        AssignmentCase{"expression", "cuda = get_cuda()\n", "cuda", true, std::nullopt, false},
        AssignmentCase{"name starting with None", "cuda = Nonesuch\n", "cuda", true, std::nullopt,
                       false},
        AssignmentCase{"CRLF", "cuda = '12.1'\r\n", "cuda", true, "12.1", false},
        AssignmentCase{"unterminated string", "cuda = '12.1\n", "cuda", true, std::nullopt, false},
        AssignmentCase{"empty right side", "cuda =\n", "cuda", false, std::nullopt, false},
        AssignmentCase{"garbage", "\x7f\x45LF\x02\x01\x01\0\0\0", "cuda", false, std::nullopt,
                       false},
        AssignmentCase{"empty", "", "cuda", false, std::nullopt, false}),
    test::CaseName());

// torch/version.py as real releases write it.
struct TorchCase {
    const char* name;
    const char* source;
    std::optional<std::string> version;
    std::optional<std::string> cuda;
    bool cpu_only;
};

class ParseTorchVersionPy : public ::testing::TestWithParam<TorchCase> {};

TEST_P(ParseTorchVersionPy, ReadsVersionAndCuda) {
    const TorchCase& c = GetParam();
    TorchInfo info = parse_torch_version_py(c.source);
    EXPECT_EQ(info.version, c.version) << c.name;
    EXPECT_EQ(info.cuda, c.cuda) << c.name;
    EXPECT_EQ(info.cpu_only, c.cpu_only) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseTorchVersionPy,
    ::testing::Values(
        TorchCase{"pytorch 2.1 wheel",
                  "from typing import Optional\n\n"
                  "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                  "__version__ = '2.1.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n"
                  "git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\n"
                  "hip: Optional[str] = None\n",
                  "2.1.0+cu121", "12.1", false},
        TorchCase{"pytorch 1.11 wheel",
                  "__version__ = '1.11.0+cu113'\ndebug = False\ncuda = '11.3'\n"
                  "git_version = 'bc2c6edaf163b1a1330e37a6e34caf8c553e4755'\nhip = None\n",
                  "1.11.0+cu113", "11.3", false},
        TorchCase{"Debian python3-torch",
                  "__version__ = '1.13.0a0'\ndebug = False\ncuda = None\n"
                  "git_version = 'Unknown'\nhip = None\n",
                  "1.13.0a0", std::nullopt, true},
        TorchCase{"CPU wheel, annotated", "__version__ = '2.2.1+cpu'\ncuda: Optional[str] = None\n",
                  "2.2.1+cpu", std::nullopt, true},
        TorchCase{"no cuda line", "__version__ = '2.0.0'\n", "2.0.0", std::nullopt, false},
        TorchCase{"garbage", "this is not python {{{", std::nullopt, std::nullopt, false}),
    test::CaseName());

// colossalai/version.py in every shape released so far.
struct ColossalaiCase {
    const char* name;
    const char* source;
    std::optional<std::string> version;
    std::optional<std::string> aot_torch;
    std::optional<std::string> aot_cuda;
};

class ParseColossalaiVersionPy : public ::testing::TestWithParam<ColossalaiCase> {};

TEST_P(ParseColossalaiVersionPy, ReadsBothAotShapes) {
    const ColossalaiCase& c = GetParam();
    ColossalaiInfo info = parse_colossalai_version_py(c.source);
    EXPECT_EQ(info.version, c.version) << c.name;
    EXPECT_EQ(info.aot_torch, c.aot_torch) << c.name;
    EXPECT_EQ(info.aot_cuda, c.aot_cuda) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseColossalaiVersionPy,
    ::testing::Values(
        ColossalaiCase{"local label", "__version__ = '0.1.5+torch1.11cu11.3'\n",
                       "0.1.5+torch1.11cu11.3", "1.11", "11.3"},
        ColossalaiCase{"local label, cu without dot", "__version__ = '0.1.0+torch1.10cu113'\n",
                       "0.1.0+torch1.10cu113", "1.10", "11.3"},
        ColossalaiCase{"separate assignments",
                       "__version__ = '0.2.5'\ntorch = \"1.13\"\ncuda = \"11.7\"\n", "0.2.5",
                       "1.13", "11.7"},
        ColossalaiCase{"separate assignments, None",
                       "__version__ = '0.2.5'\ntorch = None\ncuda = None\n", "0.2.5", std::nullopt,
                       std::nullopt},
        ColossalaiCase{"current release", "__version__ = \"0.4.2\"\n", "0.4.2", std::nullopt,
                       std::nullopt},
        ColossalaiCase{"label wins over assignments",
                       "__version__ = '0.1.5+torch1.11cu11.3'\ntorch = '1.12'\ncuda = '11.6'\n",
                       "0.1.5+torch1.11cu11.3", "1.11", "11.3"},
        ColossalaiCase{"label without torch", "__version__ = '0.3.0+cu121'\n", "0.3.0+cu121",
                       std::nullopt, std::nullopt},
        ColossalaiCase{"garbage", "\x01\x02 nothing", std::nullopt, std::nullopt, std::nullopt}),
    test::CaseName());

struct MetadataCase {
    const char* name;
    const char* metadata;
    std::optional<std::string> version;
};

class ParseMetadataVersion : public ::testing::TestWithParam<MetadataCase> {};

TEST_P(ParseMetadataVersion, ReadsTheHeaderOnly) {
    EXPECT_EQ(parse_metadata_version(GetParam().metadata), GetParam().version) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseMetadataVersion,
    ::testing::Values(
        MetadataCase{"wheel", "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.3.6\n", "0.3.6"},
        MetadataCase{"CRLF", "Metadata-Version: 2.1\r\nVersion: 0.4.0\r\n", "0.4.0"},
        MetadataCase{"not in the body", "Name: colossalai\n\nVersion: 9.9\n", std::nullopt},
        MetadataCase{"empty value", "Version:   \n", std::nullopt},
        MetadataCase{"none", "Name: x\n", std::nullopt}),
    test::CaseName());

TEST(ReadColossalaiInfo, FallsBackToDistInfoMetadata) {
    TempDir site;
    site.write("colossalai/__init__.py", "");
    site.write("colossalai-0.1.5+torch1.11cu11.3.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.1.5+torch1.11cu11.3\n");
    site.write("colossalai_other-9.9.dist-info/METADATA", "Version: 9.9\n");
    ColossalaiInfo info = read_colossalai_info(site.path() / "colossalai");
    EXPECT_EQ(info.version, "0.1.5+torch1.11cu11.3");
    EXPECT_EQ(info.aot_torch, "1.11");
    EXPECT_EQ(info.aot_cuda, "11.3");
}

TEST(ReadColossalaiInfo, PrefersVersionPy) {
    TempDir site;
    site.write("colossalai/version.py", "__version__ = '0.2.5'\ntorch = '1.13'\ncuda = '11.7'\n");
    site.write("colossalai-0.9.dist-info/METADATA", "Version: 0.9\n");
    ColossalaiInfo info = read_colossalai_info(site.path() / "colossalai");
    EXPECT_EQ(info.version, "0.2.5");
    EXPECT_EQ(info.aot_torch, "1.13");
    EXPECT_EQ(info.aot_cuda, "11.7");
}

TEST(ReadTorchInfo, ReadsVersionPyThenMetadata) {
    TempDir site;
    site.write("torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
    TorchInfo info = read_torch_info(site.path() / "torch");
    EXPECT_EQ(info.version, "2.1.0+cu121");
    EXPECT_EQ(info.cuda, "12.1");

    TempDir other;
    other.write("torch/__init__.py", "");
    other.write("torch-2.3.1.dist-info/METADATA", "Name: torch\nVersion: 2.3.1\n");
    TorchInfo fallback = read_torch_info(other.path() / "torch");
    EXPECT_EQ(fallback.version, "2.3.1");
    EXPECT_EQ(fallback.cuda, std::nullopt);
    EXPECT_FALSE(fallback.cpu_only);
}

TEST(ReadTorchInfo, NothingReadableGivesNothing) {
    TempDir site;
    site.write("torch/__init__.py", "");
    TorchInfo info = read_torch_info(site.path() / "torch");
    EXPECT_EQ(info.version, std::nullopt);
    EXPECT_EQ(info.cuda, std::nullopt);
}

} // namespace
} // namespace colossalai::python
