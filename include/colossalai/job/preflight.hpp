#pragma once

#include "colossalai/util/version.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// What every node checks before any job starts (part of the two-step start: a node is ready
// only once its checks pass), and what a failed check says. The checks run in the node wrapper
// (ssh/remote_command.hpp) and, for a node on this machine, in the local transport
// (local_preflight.hpp).
namespace colossalai::job {

// The launcher's exit status when a node failed its preflight and nothing was started: distinct
// from a usage error (2), a command that cannot run (127) and a host that cannot be reached
// (255).
inline constexpr int preflight_exit_status = 254;

// The GPUs a node's launch asks for (made once by the planner, run::gpus_needed), one of:
// - NoGpus: nothing (--nproc_per_node auto or cpu): the node counts no GPU at all;
// - GpuPerProcess: a number of processes, one GPU each where the node has GPUs; a node without
//   any runs a CPU-only job and passes;
// - GpuIndices: these indices of the node's own GPUs (--include/--exclude HOST:0,1): the node
//   needs more GPUs than the highest index, a node without any fails;
// - SomeGpu: --nproc_per_node gpu (torchrun starts one process per GPU): at least one GPU.
struct NoGpus {};
struct GpuPerProcess {
    int processes = 0;
};
struct GpuIndices {
    std::vector<int> indices;
};
struct SomeGpu {};
using GpusNeeded = std::variant<NoGpus, GpuPerProcess, GpuIndices, SomeGpu>;

// How a node counted its GPUs: the `GPU ` lines of `nvidia-smi -L`, else the entries of
// /proc/driver/nvidia/gpus, else neither exists (no GPU).
enum class GpuProbe { nvidia_smi, driver_proc, none };

// Whether `found` GPUs on a node are enough for `needed`.
bool gpus_suffice(const GpusNeeded& needed, int found);

// `needed` as the word preflight_shell's GPU variable holds: empty for NoGpus (no probe runs),
// else the count needed, with a `!` after it when a node with no GPU fails too ("4", "2!").
std::string gpu_check_word(const GpusNeeded& needed);

// A PyTorch and Python pairing whose torchrun stops before any worker starts: PyTorch in
// [torch_from, torch_before) on Python python_from or newer (the bounds are run::torch_forms',
// which owns the fact; the job module only carries them to the node).
struct BrokenPair {
    util::Version torch_from;
    util::Version torch_before;
    util::Version python_from;
};

// Where a node finds the interpreter whose PyTorch and Python it reads: the `#!` line of the
// command it runs (torchrun), or the command itself (`PYTHON -m torch.distributed.run`).
enum class TorchInterpreter { shebang, command };

// A node's check of its own PyTorch and Python (Preflight::torch_pair): where it finds the
// interpreter, the launcher form its notice names (run::form_name: "torchrun") and the bounds
// (run::broken_pair).
struct TorchPairCheck {
    TorchInterpreter interpreter = TorchInterpreter::shebang;
    std::string launcher;
    BrokenPair broken;
};

// What a node checks besides its working directory and its command (argv[0]), which the
// NodeCommand holds.
struct Preflight {
    std::string master_address;          // must resolve on the node (numeric addresses do)
    std::vector<std::string> interfaces; // must exist on the node (--network-interface)
    GpusNeeded gpus{};                   // the node counts its GPUs unless NoGpus
    // The script torchrun will open, as given (relative to the working directory unless
    // absolute): it must be readable on the node. nullopt with `-m MODULE` or a program run
    // without Python (--no_python), where nothing is checked.
    std::optional<std::string> script{};
    // The node reads its own PyTorch and Python for the known-broken pair (torch_pair_shell) and
    // names it in a notice; nullopt: it does not (decided once by the planner: a local node's
    // versions are the launcher's own, whose notice the plan has; and none where the pair cannot
    // stop the launch, run::node_pair_check).
    std::optional<TorchPairCheck> torch_pair{};
};

// The checks, in the order a node runs them; then what a transport itself needs on the node
// (`helper`: the relay of --launcher slurm, step/relay.hpp).
enum class PreflightCheck {
    working_directory,
    command,
    script,
    master_address,
    network_interface,
    gpus,
    helper,
    placement // --launcher mpirun: the task runs on a machine without its node's address
};

// A node with fewer GPUs than asked: what was asked, what it found and how; `found` is nullopt
// when the count did not finish (nvidia-smi hung, or was stopped with the launch).
struct GpuShortage {
    GpusNeeded needed;
    std::optional<int> found;
    GpuProbe probe = GpuProbe::none;
};

// A failed check and what it was about (the directory, the command, the address, the name);
// `gpus` is set for (and only for) PreflightCheck::gpus, whose subject is empty.
struct PreflightFailure {
    PreflightCheck check;
    std::string subject;
    std::optional<GpuShortage> gpus{};
};

// The one line a node's failure reads as (after the host's name), with what to do about it.
std::string describe(const PreflightFailure& failure);

struct NodeCommand;

// How a node's shell names a failed check (ssh's node wrapper, srun's task script): a line of
// its own, `failed_check_marker` then `cwd`, `command`, `script`, `master ADDRESS`, `interface
// NAME`, `gpus COUNT PROBE` (COUNT `-` when the count did not finish; PROBE: `smi`, `proc` or
// `none`, as GpuProbe), `helper PROGRAM` or `host ADDRESS` (mpirun placed the task elsewhere). The
// first byte (ASCII RS) never starts a line of a login banner or a job's text output.
inline constexpr std::string_view failed_check_marker = "\036colossalai-failed ";

// How a node's shell says something that fails nothing (before its answer): a line of its own,
// `notice_marker` then the notice command's text (torch_pair_shell's `pair TORCH PYTHON`).
inline constexpr std::string_view notice_marker = "\036colossalai-notice ";

// The failure that `what` (the text after the marker) names, its subject taken from `command`
// (the script's path from `command`; an interface's name and the master address the node looked
// up from `what`: an srun task
// learns the master, node 0's name, only from Slurm; the GPUs found from `what`, those asked
// from `command`); nullopt when `what` names no check.
std::optional<PreflightFailure> parse_failed_check(std::string_view what,
                                                   const NodeCommand& command);

// What the preflight's sh lines read and call, by name: the shell variables (or positional
// parameters: `1`) that hold each value, and the command that reports a failed check.
struct PreflightShellNames {
    // A command that takes the check's name (with its subject: `master ADDRESS`, `interface
    // NAME`, `gpus COUNT PROBE`) as its one argument and must not return.
    std::string_view fail;
    std::string_view directory;  // the working directory
    std::string_view command;    // the command the node runs (its first word)
    std::string_view master;     // the master address
    std::string_view interfaces; // the comma-separated interfaces
    std::string_view gpus;       // the GPU check's word (gpu_check_word)
    // The script's path (empty name: no script check). Its line `[ -r PATH ]` runs after the
    // `cd`, so a relative path is the working directory's, as torchrun opens it; an empty VALUE
    // checks nothing, for a wrapper whose one text serves every launch: it passes '' for a node
    // whose Preflight::script is nullopt (-m, no_python).
    std::string_view script = {};
};

// The names that the node wrapper and the srun task script both give the preflight's values
// (`cai_f`, `cai_d`, `cai_m`, `cai_i`, `cai_u`, `cai_j`: the script, '' for none), with where
// each holds its command: the wrapper's first positional parameter (`1`), the task script's
// `cai_c`.
constexpr PreflightShellNames preflight_shell_names(std::string_view command) {
    return {.fail = "cai_f",
            .directory = "cai_d",
            .command = command,
            .master = "cai_m",
            .interfaces = "cai_i",
            .gpus = "cai_u",
            .script = "cai_j"};
}

// The checks as POSIX sh lines (no `'` in them), in PreflightCheck's order, reading and calling
// what `names` names. A numeric master address (IPv4 digits and dots, or IPv6 with a `:`) starts
// no `getent`; without getent on the node the address is not checked; without /sys/class/net,
// the interfaces are not. An empty GPU word starts nothing; otherwise `nvidia-smi -L` runs once
// (its `GPU ` lines counted by the shell itself), or, without nvidia-smi,
// /proc/driver/nvidia/gpus/ is listed by a glob. Uses the variables `cai_n`, `cai_o` and `cai_v`.
std::string preflight_shell(const PreflightShellNames& names);

// What the torch-pair lines read and call, by name: the variable holding --python's
// interpreter (empty: torchrun is the command), the one holding the command the node runs (its
// first word: torchrun, whose `#!` line names the interpreter) and a command that takes
// `pair TORCH PYTHON` (each MAJOR.MINOR) as its one argument and returns (a notice, not a
// failure).
struct TorchPairShellNames {
    std::string_view notice;
    std::string_view python;
    std::string_view command;
};

// The node's reading of its own PyTorch and Python for the form it runs, as POSIX sh lines (no
// `'` in them), best effort and without starting Python: the interpreter is --python's (a bare
// name looked up on PATH) or the command's `#!` line (`#!/usr/bin/env NAME` looked up on PATH);
// Python's version is the `version`/`version_info` of the venv's pyvenv.cfg next to it, else
// the interpreter's resolved name (one `readlink -f`: python3.11); PyTorch's is the
// `__version__` of torch/version.py in the first site directory that interpreter would use (the
// prefix's lib/pythonX.Y/site-packages; unless a venv without system site packages,
// /usr/local/lib/pythonX.Y/dist-packages, then Debian's /usr/lib/python3/dist-packages). When
// both are read and they are a `broken` pair, `names.notice` is called once with
// `pair TORCH PYTHON`; otherwise nothing is said. Uses the variables `cai_p`, `cai_e`, `cai_y`,
// `cai_s`, `cai_t`, `cai_v` and `cai_w`.
std::string torch_pair_shell(const TorchPairShellNames& names, const BrokenPair& broken);

// The versions in `what` (the text torch_pair_shell's notice command takes: `pair TORCH
// PYTHON`); nullopt when it is not such a text.
struct NodePair {
    util::Version torch;
    util::Version python;
};
std::optional<NodePair> parse_node_pair(std::string_view what);

// The word that carries `check` to a node's shell (torch_pair_check_shell): empty for none,
// `shebang` or `command`.
std::string_view torch_pair_word(const std::optional<TorchPairCheck>& check);

// torch_pair_shell for a shell that holds torch_pair_word in the variable `word` and its command
// in `command`: nothing runs for an empty word; with `command`, the command is the interpreter.
// It runs in a subshell, so that it sets none of the shell's variables. `notice` as
// torch_pair_shell's (a function of the shell, which the subshell inherits).
std::string torch_pair_check_shell(std::string_view notice, std::string_view word,
                                   std::string_view command, const BrokenPair& broken);

// The one-line notice of a PyTorch and Python pair in `broken` whose `launcher` (a form's name)
// stops before any worker starts: both versions, why, which PyTorch fixed it, and the least
// change that avoids it with its limit (--extra_launch_args redirects=9:1,tee=9:1, up to 9
// processes per node). Pure.
std::string describe_broken_pair(const NodePair& pair, std::string_view launcher,
                                 const BrokenPair& broken);

// The notice a node's `what` (the text after notice_marker) gives, for a node whose preflight
// has `check`: describe_broken_pair of the pair it read; nullopt without a check or when `what`
// is no pair.
std::optional<std::string> describe_node_notice(const std::optional<TorchPairCheck>& check,
                                                std::string_view what);

} // namespace colossalai::job
