#pragma once

#include "colossalai/check/facts.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What runs on a node for `colossalai check --host/--hostfile`, and how its answer becomes the
// same Facts as a local check. Pure: no libssh, no files.
//
// The node program is a POSIX sh text run by the node's /bin/sh whatever the login shell (sent on
// the channel after ssh::login_command(), see ssh/remote_command.hpp), so that nothing needs to
// be installed on the node. It prints the raw inputs of the local probes in
// sections, each a line `@@ NAME [ARGUMENT]` followed by its lines, and ends with `@@ end`:
//   python (the interpreter), sys (the answer of python::probe_command's code, NULs as
//   newlines), torch / colossalai (the package directory, first on sys.path with __init__.py or
//   version.py), torch_version_py, torch_lib (libnccl.so* in torch/lib), colossalai_version_py,
//   colossalai_c (*.so in colossalai/_C), colossalai_metadata (the first colossalai-*.dist-info
//   METADATA on sys.path), nccl_package PATH (the first nvidia_nccl_cu*.dist-info METADATA),
//   cuda_home, nvcc (`nvcc -V`), system_nccl (libnccl.so* of the first library directory holding
//   one), nccl_header (its ../include/nccl.h #define lines), shm (`df -kP /dev/shm`), ninja, cxx
//   (`command -v`), gpus (`nvidia-smi
//   --query-gpu=name,compute_cap --format=csv,noheader`), smi (nvidia-smi's `CUDA Version` line).
namespace colossalai::cluster_check {

// The program (POSIX sh).
std::string_view node_program();

// What the node's channel gets (ssh::program_input): the program with the --python given
// (empty: python3, then python, from the node's PATH) and the per-probe timeout.
std::string node_input(const std::optional<std::string>& python,
                       std::chrono::milliseconds probe_timeout);

// The same program with the same arguments as a command, for a transport that runs one (srun,
// slurm/srun_probe.hpp): `/bin/sh -c PROGRAM colossalai-check ARGUMENTS...`.
std::vector<std::string> node_argv(const std::optional<std::string>& python,
                                   std::chrono::milliseconds probe_timeout);

// A parsed answer: each section's argument and lines (the first of a name wins).
struct Dump {
    struct Section {
        std::string argument;
        std::string body; // its lines, each ending in '\n'
    };
    std::map<std::string, Section, std::less<>> sections;
    bool complete = false; // `@@ end` arrived

    const Section* find(std::string_view name) const;
};

Dump parse_dump(std::string_view text);

// The facts a local check would find from the same inputs: the parsers of the check and python
// modules applied to the sections. An incomplete dump adds a warning.
check::Facts facts_from_dump(const Dump& dump);

// The GPUs in nvidia-smi's `name, compute_cap` CSV lines ("NVIDIA H100, 9.0"); nullopt when no
// line parses.
std::optional<std::vector<check::Gpu>> parse_gpu_csv(std::string_view csv);

// "12.4" from nvidia-smi's "| NVIDIA-SMI 550.54  Driver Version: 550.54  CUDA Version: 12.4 |".
std::optional<std::string> parse_smi_cuda_version(std::string_view text);

// The size in bytes from `df -kP` output (second line, second field, KiB).
std::optional<std::uint64_t> parse_df_size(std::string_view text);

} // namespace colossalai::cluster_check
