#include "colossalai/python/cache.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace colossalai::python {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A temporary directory with a PATH holding only a link to the system's python3.
class CacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists("/usr/bin/python3")) {
            GTEST_SKIP() << "needs /usr/bin/python3";
        }
        char pattern[] = "/tmp/colossalai-cache-test-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        m_root = pattern;
        fs::create_directories(m_root / "bin");
        fs::create_directories(m_root / "extra");
        fs::create_symlink("/usr/bin/python3", m_root / "bin" / "python3");
        m_env = {{"HOME", (m_root / "home").string()}, {"PYTHONPATH", (m_root / "extra").string()}};
        for (const auto& [name, value] : m_env) {
            const char* saved = ::getenv(name.c_str());
            m_saved[name] = saved != nullptr ? std::optional<std::string>(saved) : std::nullopt;
        }
    }
    void TearDown() override {
        for (const auto& [name, value] : m_saved) {
            if (value) {
                ::setenv(name.c_str(), value->c_str(), 1);
            } else {
                ::unsetenv(name.c_str());
            }
        }
        std::error_code ec;
        fs::remove_all(m_root, ec);
    }

    // The interpreter runs with this process's environment: keep it equal to m_env.
    Discovery discover() {
        for (const auto& [name, value] : m_env) {
            ::setenv(name.c_str(), value.c_str(), 1);
        }
        return discover_cached(Lookup{(m_root / "bin").string(), m_root, m_env}, m_root / "cache");
    }

    std::vector<fs::path> cache_files() {
        std::vector<fs::path> files;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(m_root / "cache", ec)) {
            files.push_back(entry.path());
        }
        return files;
    }

    // Replaces the cached search path by a sentinel, keeping everything else: a call that
    // returns the sentinel was answered from the cache.
    void plant_sentinel() {
        auto files = cache_files();
        ASSERT_EQ(files.size(), 1u);
        std::ifstream in(files[0]);
        std::stringstream text;
        text << in.rdbuf();
        json entry = json::parse(text.str());
        entry["search_path"] = json::array({"/sentinel"});
        std::ofstream(files[0]) << entry.dump();
    }

    fs::path m_root;
    std::map<std::string, std::string> m_env;
    std::map<std::string, std::optional<std::string>> m_saved;
};

TEST_F(CacheTest, SecondCallIsAnsweredFromTheCache) {
    Discovery first = discover();
    ASSERT_TRUE(first.environment.has_value()) << first.warning.value_or("");
    EXPECT_EQ(first.environment->search_path.front(), m_root / "extra");
    plant_sentinel();
    Discovery second = discover();
    ASSERT_TRUE(second.environment.has_value());
    EXPECT_EQ(second.environment->search_path, std::vector<fs::path>{"/sentinel"});
    EXPECT_EQ(second.environment->version, first.environment->version);
    EXPECT_EQ(second.interpreter, m_root / "bin" / "python3");
}

TEST_F(CacheTest, AChangeInASearchPathDirectoryInvalidatesIt) {
    ASSERT_TRUE(discover().environment.has_value());
    plant_sentinel();
    std::ofstream(m_root / "extra" / "new.pth") << "\n"; // as installing a package does
    Discovery again = discover();
    ASSERT_TRUE(again.environment.has_value());
    EXPECT_EQ(again.environment->search_path.front(), m_root / "extra");
}

TEST_F(CacheTest, ANewUserSiteDirectoryInvalidatesIt) {
    Discovery first = discover();
    ASSERT_TRUE(first.environment.has_value());
    plant_sentinel();
    std::string version = first.environment->version;
    fs::create_directories(m_root / "home" / ".local" / "lib" /
                           ("python" + version.substr(0, version.rfind('.'))) / "site-packages");
    EXPECT_NE(discover().environment->search_path, std::vector<fs::path>{"/sentinel"});
}

TEST_F(CacheTest, OtherVariablesUseAnotherEntry) {
    ASSERT_TRUE(discover().environment.has_value());
    plant_sentinel();
    m_env["PYTHONPATH"] = (m_root / "bin").string();
    Discovery other = discover();
    ASSERT_TRUE(other.environment.has_value());
    EXPECT_EQ(other.environment->search_path.front(), m_root / "bin");
    EXPECT_EQ(cache_files().size(), 2u);
}

TEST_F(CacheTest, AWrapperScriptIsNeverCached) {
    fs::remove(m_root / "bin" / "python3");
    std::ofstream(m_root / "bin" / "python3") << "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n";
    fs::permissions(m_root / "bin" / "python3", fs::perms::owner_all);
    Discovery discovery = discover();
    ASSERT_TRUE(discovery.environment.has_value()) << discovery.warning.value_or("");
    EXPECT_TRUE(cache_files().empty());
}

TEST_F(CacheTest, NoCacheDirectoryMeansNoCache) {
    Discovery discovery =
        discover_cached(Lookup{(m_root / "bin").string(), m_root, m_env}, std::nullopt);
    ASSERT_TRUE(fs::create_directories(m_root / "cache"));
    EXPECT_TRUE(discovery.environment.has_value());
    EXPECT_TRUE(cache_files().empty());
}

TEST(DefaultCacheDir, FollowsXdgThenHome) {
    EXPECT_EQ(default_cache_dir({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}),
              fs::path("/x/colossalai/python"));
    EXPECT_EQ(default_cache_dir({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}),
              fs::path("/h/.cache/colossalai/python"));
    EXPECT_EQ(default_cache_dir({}), std::nullopt);
}

// A pyenv shim first on PATH is resolved, and the entry follows what selects the version.
TEST_F(CacheTest, APyenvSelectionIsPartOfTheKey) {
    fs::path root = m_root / "pyenv";
    fs::create_directories(root / "shims");
    std::ofstream(root / "shims" / "python3")
        << "#!/usr/bin/env bash\nexport PYENV_ROOT=\"" << root.string() << "\"\nexec \""
        << root.string() << "/libexec/pyenv\" exec \"$program\" \"$@\"\n";
    fs::permissions(root / "shims" / "python3", fs::perms::owner_all);
    for (const char* version : {"3.0.1", "3.0.2"}) {
        fs::create_directories(root / "versions" / version / "bin");
        fs::create_symlink("/usr/bin/python3", root / "versions" / version / "bin" / "python3");
    }
    fs::create_directories(m_root / "work" / "sub");
    std::ofstream(m_root / "work" / ".python-version") << "3.0.1\n";
    Lookup lookup{(root / "shims").string(), m_root / "work" / "sub", m_env};
    auto run = [&] {
        for (const auto& [name, value] : m_env) {
            ::setenv(name.c_str(), value.c_str(), 1);
        }
        return discover_cached(lookup, m_root / "cache");
    };

    EXPECT_EQ(run().interpreter, root / "versions/3.0.1/bin/python3");
    EXPECT_EQ(cache_files().size(), 1u);
    std::ofstream(m_root / "work" / ".python-version") << "3.0.2\n"; // edited
    EXPECT_EQ(run().interpreter, root / "versions/3.0.2/bin/python3");
    EXPECT_EQ(cache_files().size(), 2u);
    std::ofstream(m_root / "work" / "sub" / ".python-version") << "3.0.2\n"; // added closer
    Discovery closer = run();
    EXPECT_EQ(closer.interpreter, root / "versions/3.0.2/bin/python3");
    EXPECT_EQ(cache_files().size(), 3u);
    lookup.variables["PYENV_VERSION"] = "3.0.2"; // the variable set
    ASSERT_TRUE(run().environment.has_value());
    EXPECT_EQ(cache_files().size(), 4u);
}

} // namespace
} // namespace colossalai::python
