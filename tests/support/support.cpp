#include "support.hpp"

#include <stdexcept>
#include <utility>

namespace colossalai::test {

namespace fs = std::filesystem;

fs::path binary() {
    return COLOSSALAI_BINARY;
}

fs::path fixtures_dir() {
    return COLOSSALAI_FIXTURES;
}

fs::path install_fake_torchrun(const fs::path& state) {
    fs::path torchrun = state / "bin/torchrun";
    write_file(torchrun, read_file(fixtures_dir() / "fake_torchrun.sh"), 0755);
    for (const char* sub : {"record", "behave", "release"}) {
        fs::create_directories(state / sub);
    }
    return torchrun;
}

RunResult run_colossalai(const std::vector<std::string>& args, const RunOptions& options) {
    std::vector<std::string> argv{binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, options);
}

std::filesystem::path write_python_shim(const std::string& tool, const std::filesystem::path& root,
                                        const std::filesystem::path& ran,
                                        const std::filesystem::path& python) {
    std::string record = "echo ran >>'" + ran.string() + "'\n";
    std::string run = "exec '" + python.string() + "' \"$@\"\n";
    std::string text;
    if (tool == "pyenv") {
        // The tool itself is replaced by the recording line, the layout is pyenv's.
        text = "#!/bin/sh\nset -e\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\"" + root.string() +
               "\"\n" + record + run + "exec \"" + root.string() +
               "/libexec/pyenv\" exec \"$program\" \"$@\"\n";
    } else {
        text = "#!/bin/sh\n# asdf-plugin: python 3.11.7\n" + record + run +
               "exec asdf exec \"python3\" \"$@\" # asdf_allow: ' asdf '\n";
    }
    write_file(root / "shims" / "python3", text, 0755);
    return root / "shims";
}

void write_per_host_python(const std::filesystem::path& python,
                           const std::filesystem::path& trees) {
    write_file(python,
               "#!/bin/sh\n"
               "printf '3.11.7\\0%s\\0\\0%s' \"$0\" \"" +
                   trees.string() + "/$(hostname)/site-packages\"\n",
               0755);
}

std::string system_cuda_release() {
    RunResult nvcc = run({"/bin/sh", "-c",
                          "/usr/local/cuda/bin/nvcc -V 2>/dev/null | "
                          "sed -n 's/.*release \\([0-9.]*\\),.*/\\1/p'"});
    std::string release = nvcc.out.substr(0, nvcc.out.find('\n'));
    return release.empty() ? "12.1" : release;
}

HiddenOnNode::HiddenOnNode(pid_t pid, std::filesystem::path dir)
    : m_pid(pid), m_dir(std::move(dir)) {
    RunResult mounted = run({"nsenter", "--target", std::to_string(m_pid), "--mount", "--", "mount",
                             "-t", "tmpfs", "-o", "size=1m", "colossalai-hidden", m_dir.string()});
    if (mounted.exit_code != 0) {
        throw std::runtime_error("cannot hide " + m_dir.string() + " from process " +
                                 std::to_string(m_pid) + ": " + describe(mounted));
    }
}

HiddenOnNode::~HiddenOnNode() {
    run({"nsenter", "--target", std::to_string(m_pid), "--mount", "--", "umount", m_dir.string()});
}

} // namespace colossalai::test
