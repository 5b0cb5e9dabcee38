#include "fake_gpus.hpp"

#include "files.hpp"

namespace colossalai::test {

std::filesystem::path install_fake_nvidia_smi(const std::filesystem::path& dir, int all) {
    std::filesystem::create_directories(dir);
    std::filesystem::path program = dir / "nvidia-smi";
    std::filesystem::create_symlink(
        std::filesystem::path(COLOSSALAI_FIXTURES) / "fake_nvidia_smi.sh", program);
    set_fake_gpus(dir, "all", all);
    return program;
}

void set_fake_gpus(const std::filesystem::path& dir, const std::string& host, int count) {
    write_file(dir / "gpus" / host, std::to_string(count) + "\n");
}

void kill_fake_nvidia_smi(const std::filesystem::path& dir) {
    write_file(dir / "gpus" / "all", "killed\n");
}

bool fake_nvidia_smi_ran(const std::filesystem::path& dir) {
    return std::filesystem::exists(dir / "calls");
}

} // namespace colossalai::test
