#pragma once

// The fake nvidia-smi (tests/fixtures/fake_nvidia_smi.sh) for any test of the GPU preflight:
// unit tests run the preflight's shell lines and the local check with it on PATH, end-to-end tests
// put it on every test node's PATH.

#include <filesystem>
#include <string>

namespace colossalai::test {

// Links the fixture as DIR/nvidia-smi (DIR created if need be): every node that has DIR first on
// its PATH has `all` GPUs, unless set_fake_gpus gave its host name a count of its own. Returns
// DIR/nvidia-smi.
std::filesystem::path install_fake_nvidia_smi(const std::filesystem::path& dir, int all);

// The GPUs of the node whose host name (`uname -n`) is `host` ("all": of every other node).
void set_fake_gpus(const std::filesystem::path& dir, const std::string& host, int count);

// Makes the fake in DIR end by SIGTERM without printing anything, on every node.
void kill_fake_nvidia_smi(const std::filesystem::path& dir);

// Whether the fake in DIR ran at all (it appends each call's arguments to DIR/calls).
bool fake_nvidia_smi_ran(const std::filesystem::path& dir);

} // namespace colossalai::test
