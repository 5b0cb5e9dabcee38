#include "files.hpp"

#include "colossalai/python/distributions.hpp"

#include <gtest/gtest.h>

namespace colossalai::python {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// What setuptools >= 64 writes for `pip install -e .` (PEP 660, strict mode off).
const char* const finder_source =
    "import sys\n"
    "from importlib.machinery import ModuleSpec, PathFinder\n"
    "MAPPING: dict[str, str] = {'applications': '/src/ColossalAI/applications', "
    "'colossalai': '/src/ColossalAI/colossalai'}\n"
    "NAMESPACES: dict[str, list[str]] = {}\n"
    "PATH_PLACEHOLDER = '__editable__.colossalai-0.3.6.finder' + \".__path_hook__\"\n";

TEST(ParsePthImports, TakesTheImportStatementsOfImportLines) {
    EXPECT_EQ(parse_pth_imports("import __editable___colossalai_0_3_6_finder; "
                                "__editable___colossalai_0_3_6_finder.install()\n"),
              std::vector<std::string>{"__editable___colossalai_0_3_6_finder"});
    EXPECT_EQ(parse_pth_imports("/src/ColossalAI\n# comment\nimport a;import b.c ;x()\n"
                                "  import indented\nimportlib\n"),
              (std::vector<std::string>{"a", "b.c"}));
    EXPECT_EQ(parse_pth_imports("import os, sys\n"), std::vector<std::string>{});
    EXPECT_EQ(parse_pth_imports(""), std::vector<std::string>{});
}

TEST(ParseEditableMapping, FindsThePackageInTheMappingLiteral) {
    EXPECT_EQ(parse_editable_mapping(finder_source, "colossalai"),
              fs::path("/src/ColossalAI/colossalai"));
    EXPECT_EQ(parse_editable_mapping(finder_source, "applications"),
              fs::path("/src/ColossalAI/applications"));
    EXPECT_EQ(parse_editable_mapping(finder_source, "torch"), std::nullopt);
    // Older setuptools: no annotation; repr() escapes and double quotes.
    EXPECT_EQ(
        parse_editable_mapping("MAPPING = {\"colossalai\": \"/it's/x\\\\y\"}\n", "colossalai"),
        fs::path("/it's/x\\y"));
    EXPECT_EQ(parse_editable_mapping("MAPPINGS = {'colossalai': '/x'}\n", "colossalai"),
              std::nullopt);
    EXPECT_EQ(parse_editable_mapping("MAPPING = {'colossalai': \n", "colossalai"), std::nullopt);
}

TEST(FindEditablePackage, FollowsPthToFinderToMappedDirectory) {
    TempDir root;
    fs::path site = root.path() / "site-packages";
    root.write("site-packages/__editable__.colossalai-0.3.6.pth",
               "import __editable___colossalai_0_3_6_finder; "
               "__editable___colossalai_0_3_6_finder.install()\n");
    std::string finder = "MAPPING = {'colossalai': '" + (root.path() / "src/colossalai").string() +
                         "', 'gone': '" + (root.path() / "src/gone").string() + "'}\n";
    root.write("site-packages/__editable___colossalai_0_3_6_finder.py", finder);
    root.write("src/colossalai/__init__.py", "");
    Environment environment;
    environment.search_path = {root.path() / "stdlib", site};

    EXPECT_EQ(find_editable_package(environment, "colossalai"), root.path() / "src/colossalai");
    EXPECT_EQ(find_editable_package(environment, "gone"), std::nullopt); // mapped, but missing
    EXPECT_EQ(find_editable_package(environment, "torch"), std::nullopt);
    // find_package: a regular package on the search path wins over the editable finder, as
    // PathFinder comes before the finders that .pth files append to sys.meta_path.
    EXPECT_EQ(find_package(environment, "colossalai"), root.path() / "src/colossalai");
    root.write("stdlib/colossalai/__init__.py", "");
    EXPECT_EQ(find_package(environment, "colossalai"), root.path() / "stdlib/colossalai");
}

TEST(FindEditablePackage, UsesTheFirstFinderModuleOfThatName) {
    TempDir root;
    root.write("a/x.pth", "import __editable___c_finder; __editable___c_finder.install()\n");
    root.write("a/__editable___c_finder.py", "MAPPING = {'other': '/nowhere'}\n");
    root.write("b/__editable___c_finder.py",
               "MAPPING = {'c': '" + (root.path() / "src/c").string() + "'}\n");
    root.write("src/c/__init__.py", "");
    Environment environment;
    environment.search_path = {root.path() / "a", root.path() / "b"};
    EXPECT_EQ(find_editable_package(environment, "c"), std::nullopt);
}

TEST(NormalizeProjectName, AsDistInfoDirectoriesWriteIt) {
    EXPECT_EQ(normalize_project_name("nvidia-nccl-cu12"), "nvidia_nccl_cu12");
    EXPECT_EQ(normalize_project_name("Colossal.AI__x"), "colossal_ai_x");
    EXPECT_EQ(normalize_project_name("colossalai"), "colossalai");
}

TEST(FindDistribution, FirstMatchingDistInfoOnTheSearchPath) {
    TempDir root;
    root.write("a/torch-2.1.0.dist-info/METADATA", "Name: torch\nVersion: 2.1.0\n");
    root.write("b/nvidia_nccl_cu12-2.18.1.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.18.1\n");
    root.write("c/nvidia_nccl_cu11-2.14.3.dist-info/METADATA", "Version: 2.14.3\n");
    root.write("c/colossalai-0.3.6.dist-info/RECORD", "");
    Environment environment;
    environment.search_path = {root.path() / "missing", root.path() / "a", root.path() / "b",
                               root.path() / "c"};

    auto nccl = find_distribution(
        environment, [](std::string_view name) { return name.starts_with("nvidia_nccl_cu"); });
    ASSERT_TRUE(nccl);
    EXPECT_EQ(nccl->name, "nvidia_nccl_cu12");
    EXPECT_EQ(nccl->version, "2.18.1");
    EXPECT_EQ(nccl->dist_info, root.path() / "b/nvidia_nccl_cu12-2.18.1.dist-info");

    auto colossalai =
        find_distribution(environment, [](std::string_view name) { return name == "colossalai"; });
    ASSERT_TRUE(colossalai);
    EXPECT_EQ(colossalai->version, std::nullopt); // no METADATA
    EXPECT_FALSE(
        find_distribution(environment, [](std::string_view name) { return name == "numpy"; }));
}

} // namespace
} // namespace colossalai::python
