#include "launcher.hpp"

#include <algorithm>
#include <sstream>

namespace colossalai::test {

namespace fs = std::filesystem;

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
        }
        quoted += c;
    }
    return quoted + "\"";
}

FakeTorchrun::FakeTorchrun() {
    install_fake_torchrun(m_dir.path());
}

fs::path FakeTorchrun::recorded(int rank, const std::string& what) const {
    return m_dir / "record" / (std::to_string(rank) + "." + what);
}

std::vector<int> FakeTorchrun::ranks_started() const {
    std::vector<int> ranks;
    for (const auto& entry : fs::directory_iterator(m_dir / "record")) {
        std::string name = entry.path().filename().string();
        if (entry.path().extension() == ".argv") {
            ranks.push_back(std::stoi(name.substr(0, name.find('.'))));
        }
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

Words FakeTorchrun::argv(int rank) const {
    Words words;
    std::string text = read_file(recorded(rank, "argv"));
    size_t start = 0;
    for (size_t end = text.find('\0'); end != std::string::npos; end = text.find('\0', start)) {
        words.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

void FakeTorchrun::behave(const std::string& script, std::optional<int> rank) const {
    std::string name = rank ? std::to_string(*rank) : "all";
    write_file(m_dir / "behave" / (name + ".sh"), script);
}

Env launcher_environment(const SshCluster& cluster, const fs::path& bin, const Env& extra) {
    Env env = cluster.client_environment();
    if (!bin.empty()) {
        env["PATH"] = bin.string() + ":" + env["PATH"];
    }
    for (const auto& [name, value] : extra) {
        env[name] = value;
    }
    return env;
}

RunResult run_launcher(const SshCluster& cluster, const Words& args, const LaunchOptions& options) {
    Words argv = {binary().string(), "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions run_options;
    run_options.env = options.env ? *options.env : launcher_environment(cluster);
    static const JobDir shared_job;
    run_options.cwd = options.cwd.empty() ? shared_job.path() : options.cwd;
    run_options.timeout = options.timeout;
    return cluster.run_on_client(argv, run_options, options.home);
}

std::string public_key_of(const std::filesystem::path& file) {
    std::istringstream in(read_file(file));
    std::string type, key;
    in >> type >> key;
    return type + " " + key;
}

std::string host_public_key(const SshCluster& cluster, int k) {
    return public_key_of(cluster.dir() / ("node" + std::to_string(k)) / "ssh_host_ed25519_key.pub");
}

RunResult run_fake_job(const SshCluster& cluster, const FakeTorchrun& fake, const Words& args,
                       const std::filesystem::path& cwd, const std::filesystem::path& home) {
    LaunchOptions options;
    options.env = launcher_environment(cluster, fake.bin());
    options.cwd = cwd;
    options.home = home;
    options.timeout = std::chrono::seconds(60);
    return run_launcher(cluster, args, options);
}

} // namespace colossalai::test
