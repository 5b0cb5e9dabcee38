#include "fixture.hpp"

#include <fmt/core.h>

#include <signal.h>

#include <memory>
#include <stdexcept>

namespace colossalai::test {

namespace fs = std::filesystem;

namespace {

std::unique_ptr<TempDir> venv_dir; // removed when the test process exits

} // namespace

const Venv& shared_venv() {
    static const Venv venv = [] {
        venv_dir = std::make_unique<TempDir>("colossalai-venv");
        Venv v;
        v.root = venv_dir->path() / "venv";
        RunResult made = run({"/usr/bin/python3", "-m", "venv", "--without-pip", v.root.string()});
        if (made.exit_code != 0) {
            throw std::runtime_error("python3 -m venv failed: " + made.err);
        }
        v.python = v.root / "bin" / "python3";
        for (const auto& entry : fs::directory_iterator(v.root / "lib")) {
            if (fs::is_directory(entry.path() / "site-packages")) {
                v.site_packages = entry.path() / "site-packages";
            }
        }
        RunResult version =
            run({v.python.string(), "-c", "import sys; print(sys.version.split()[0])"});
        v.python_version = version.out.substr(0, version.out.find('\n'));
        if (v.site_packages.empty() || v.python_version.empty()) {
            throw std::runtime_error("unexpected venv layout in " + v.root.string());
        }
        return v;
    }();
    return venv;
}

std::string nvcc_script(const std::string& release) {
    return fmt::format("#!/bin/sh\n"
                       "[ \"$1\" = -V ] || exit 3\n"
                       "printf '%s\\n' 'nvcc: NVIDIA (R) Cuda compiler driver' \\\n"
                       "  'Copyright (c) 2005-2024 NVIDIA Corporation' \\\n"
                       "  'Built on Thu_Mar_28_02:18:24_PDT_2024' \\\n"
                       "  'Cuda compilation tools, release {0}, V{0}.131' \\\n"
                       "  'Build cuda_{0}.r{0}/compiler.34097967_0'\n",
                       release);
}

std::vector<std::string> report_lines(const std::string& report) {
    std::vector<std::string> kept;
    bool in_note = false;
    for (const std::string& line : lines_of(report)) {
        if (line == "Note:") {
            in_note = true;
        } else if (line.empty()) {
            in_note = false;
        } else if (line == "Advice:") {
            in_note = true; // advice is checked on its own (report_advice)
        } else if (!in_note) {
            // The size of the machine's /dev/shm varies: tests see a placeholder.
            const std::string shm = "Shared memory (/dev/shm): ";
            bool sized = line.rfind(shm, 0) == 0 && line.ends_with("iB");
            kept.push_back(sized ? shm + "<size>" : line);
        }
    }
    return kept;
}

std::vector<std::string> report_advice(const std::string& report) {
    std::vector<std::string> advice;
    bool in_advice = false;
    for (const std::string& line : lines_of(report)) {
        if (line == "Advice:") {
            in_advice = true;
        } else if (line.empty()) {
            in_advice = false;
        } else if (in_advice) {
            advice.push_back(line);
        }
    }
    return advice;
}

std::string report_value(const std::string& report, const std::string& label) {
    std::string prefix = label + ": ";
    for (const std::string& line : report_lines(report)) {
        if (line.rfind(prefix, 0) == 0) {
            return line.substr(prefix.size());
        }
    }
    return "<no line '" + label + "'>";
}

std::vector<std::string> expected_report(const std::vector<std::string>& environment,
                                         const std::vector<std::string>& aot,
                                         const std::vector<std::string>& compatibility) {
    std::vector<std::string> lines{"#### Installation Report ####",
                                   "------------ Environment ------------"};
    lines.insert(lines.end(), environment.begin(), environment.end());
    lines.push_back("------------ CUDA Extensions AOT Compilation ------------");
    lines.insert(lines.end(), aot.begin(), aot.end());
    lines.push_back("------------ Compatibility ------------");
    lines.insert(lines.end(), compatibility.begin(), compatibility.end());
    return lines;
}

void CheckTest::SetUp() {
    const Venv& v = venv();
    for (const auto& entry : fs::directory_iterator(v.site_packages)) {
        fs::remove_all(entry.path());
    }
    m_env = {
        {"PATH", (v.root / "bin").string()},
        {"COLOSSALAI_CUDA_DEFAULT_HOME", (scratch() / "no-default-cuda").string()},
        {"COLOSSALAI_CUDA_DRIVER_LIBRARY", (scratch() / "no-driver" / "libcuda.so.1").string()},
        {"COLOSSALAI_SYSTEM_LIBRARY_DIRS", (scratch() / "no-system-libraries").string()},
    };
}

void CheckTest::TearDown() {
    // Everything a probe started lives under the scratch directory; none may outlive the check.
    std::vector<pid_t> left;
    eventually(
        [&] {
            left = processes_with_marker(scratch().string());
            return left.empty();
        },
        std::chrono::seconds(2));
    for (pid_t pid : left) {
        ::kill(pid, SIGKILL);
    }
    EXPECT_TRUE(left.empty()) << left.size() << " probe processes outlived the check";
}

void CheckTest::install_torch(const std::string& version_py) const {
    write_file(venv().site_packages / "torch" / "__init__.py", "");
    write_file(venv().site_packages / "torch" / "version.py", version_py);
}

void CheckTest::install_colossalai(const std::string& version_py,
                                   const std::vector<std::string>& c_files) const {
    fs::path package = venv().site_packages / "colossalai";
    write_file(package / "__init__.py", "from .version import __version__\n");
    if (!version_py.empty()) {
        write_file(package / "version.py", version_py);
    }
    fs::create_directories(package / "_C");
    write_file(package / "_C" / "__init__.py", "");
    for (const std::string& name : c_files) {
        write_file(package / "_C" / name, "\x7f"
                                          "ELF fake extension module\n");
    }
}

fs::path CheckTest::cuda_home(const std::string& name, const std::string& script) const {
    fs::path home = scratch() / name;
    write_file(home / "bin" / "nvcc", script, 0755);
    return home;
}

fs::path CheckTest::fake_driver(const std::string& relative) const {
    fs::path target = scratch() / relative;
    fs::create_directories(target.parent_path());
    fs::copy_file(COLOSSALAI_FAKE_LIBCUDA, target, fs::copy_options::overwrite_existing);
    return target;
}

RunResult CheckTest::check(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"check"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env = m_env;
    options.timeout = std::chrono::seconds(60);
    return run_colossalai(argv, options);
}

nlohmann::json CheckTest::check_json(const std::vector<std::string>& args,
                                     RunResult* result) const {
    std::vector<std::string> argv{"--json"};
    argv.insert(argv.end(), args.begin(), args.end());
    *result = check(argv);
    try {
        nlohmann::json parsed = nlohmann::json::parse(result->out);
        EXPECT_TRUE(parsed.is_object()) << result->out;
        return parsed;
    } catch (const nlohmann::json::exception& e) {
        ADD_FAILURE() << "not JSON: " << e.what() << "\n" << result->out;
        return nlohmann::json::object();
    }
}

std::string CheckTest::hang_command() const {
    fs::path sleeper = scratch() / "hang" / "sleep";
    if (!fs::exists(sleeper)) {
        fs::create_directories(sleeper.parent_path());
        fs::create_symlink("/bin/sleep", sleeper);
    }
    return "exec " + sleeper.string() + " 60\n";
}

std::string CheckTest::venv_python_line() const {
    return fmt::format("Python: {} ({})", (venv().root / "bin" / "python3").string(),
                       venv().python_version);
}

} // namespace colossalai::test
