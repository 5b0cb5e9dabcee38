#pragma once

// Fixture for the end-to-end tests of `colossalai check`: a real venv (created once per test
// process) whose site-packages each test fills by hand, fake CUDA homes with fake `nvcc` scripts,
// a fake driver library, and a hermetic environment for the binary.

#include "lines.hpp"
#include "support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {

// The venv shared by the tests of this process: `/usr/bin/python3 -m venv --without-pip`.
struct Venv {
    std::filesystem::path root;
    std::filesystem::path python;        // <root>/bin/python3
    std::filesystem::path site_packages; // <root>/lib/python3.X/site-packages
    std::string python_version;          // what the interpreter itself says, "3.11.2"
};
const Venv& shared_venv();

// `nvcc -V` output of a real toolkit for `release` ("12.4"), as a /bin/sh script that checks it
// was called with -V.
std::string nvcc_script(const std::string& release);

// The report without its notes, advice and blank lines: headers and "Label: value" lines, in
// order; the /dev/shm size (the machine's) replaced by "<size>".
std::vector<std::string> report_lines(const std::string& report);

// The advice lines ("- ...") of every section, in order.
std::vector<std::string> report_advice(const std::string& report);

// The value of the report line `label: value` (outside the notes); a text naming the label when
// there is no such line, so that a comparison fails readably.
std::string report_value(const std::string& report, const std::string& label);

// The lines report_lines() should give: the three headers with these lines under them.
std::vector<std::string> expected_report(const std::vector<std::string>& environment,
                                         const std::vector<std::string>& aot,
                                         const std::vector<std::string>& compatibility);

class CheckTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    const Venv& venv() const { return shared_venv(); }
    const std::filesystem::path& scratch() const { return m_scratch.path(); }

    // site-packages/torch with this version.py.
    void install_torch(const std::string& version_py) const;
    // site-packages/colossalai with this version.py and these files in _C/.
    void install_colossalai(const std::string& version_py,
                            const std::vector<std::string>& c_files = {}) const;
    // <scratch>/<name>/bin/nvcc with `script`; returns <scratch>/<name>.
    std::filesystem::path cuda_home(const std::string& name, const std::string& script) const;
    // A copy of the fake driver library at <scratch>/<relative>.
    std::filesystem::path fake_driver(const std::string& relative) const;

    // PATH=<venv>/bin, no CUDA_HOME/CUDA_PATH, no /usr/local/cuda fallback, no driver.
    std::map<std::string, std::string> m_env;

    RunResult check(const std::vector<std::string>& args) const;
    // `check --json` (plus `args`), parsed; fails the test when stdout is not one JSON object.
    nlohmann::json check_json(const std::vector<std::string>& args, RunResult* result) const;

    // A shell line that sleeps for a minute as a process whose command line names the scratch
    // directory (so TearDown finds it if the check failed to kill it).
    std::string hang_command() const;

    // The "Python: ..." line for the shared venv.
    std::string venv_python_line() const;

private:
    TempDir m_scratch{"colossalai-check"};
};

} // namespace colossalai::test
