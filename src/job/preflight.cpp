#include "colossalai/job/preflight.hpp"

#include "colossalai/job/node_command.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace colossalai::job {

namespace {

// The fewest GPUs `needed` asks of a node, and whether a node with none passes all the same (a
// CPU-only job); nullopt for NoGpus.
struct GpuFloor {
    int count;
    bool none_passes;
};

std::optional<GpuFloor> gpu_floor(const GpusNeeded& needed) {
    if (const auto* per_process = std::get_if<GpuPerProcess>(&needed)) {
        return GpuFloor{per_process->processes, true};
    }
    if (const auto* selected = std::get_if<GpuIndices>(&needed)) {
        int highest = selected->indices.empty()
                          ? -1
                          : *std::max_element(selected->indices.begin(), selected->indices.end());
        return GpuFloor{highest + 1, false};
    }
    if (std::holds_alternative<SomeGpu>(needed)) {
        return GpuFloor{1, false};
    }
    return std::nullopt;
}

// Each way a node counts its GPUs: the word its preflight line carries (the shell's `cai_o`,
// preflight_shell) and how a message names it.
struct ProbeNames {
    GpuProbe probe;
    std::string_view word;
    std::string_view text;
};
constexpr ProbeNames probe_names[] = {
    {GpuProbe::nvidia_smi, "smi", "nvidia-smi -L"},
    {GpuProbe::driver_proc, "proc", "/proc/driver/nvidia/gpus"},
    {GpuProbe::none, "none", "no nvidia-smi, no /proc/driver/nvidia/gpus"},
};

std::string_view probe_text(GpuProbe probe) {
    for (const ProbeNames& names : probe_names) {
        if (names.probe == probe) {
            return names.text;
        }
    }
    return "";
}

std::string plural_gpus(std::size_t count) {
    return fmt::format("{} GPU{}", count, count == 1 ? "" : "s");
}

std::string describe_shortage(const GpuShortage& shortage) {
    std::string found =
        shortage.found
            ? fmt::format("{} found ({})", *shortage.found, probe_text(shortage.probe))
            : fmt::format("none counted ({} did not finish)", probe_text(shortage.probe));
    if (const auto* per_process = std::get_if<GpuPerProcess>(&shortage.needed)) {
        std::string asked =
            fmt::format("{} asked ({} processes, one GPU each), {}",
                        plural_gpus(static_cast<std::size_t>(per_process->processes)),
                        per_process->processes, found);
        if (!shortage.found) {
            return asked;
        }
        return fmt::format("{}; give --nproc_per_node {} or fewer, or pick the node's GPUs with "
                           "--include HOST:0,1",
                           asked, *shortage.found);
    }
    if (const auto* selected = std::get_if<GpuIndices>(&shortage.needed)) {
        return fmt::format("{} asked (ind{} {}), {}; GPU indices are the node's own, from 0",
                           plural_gpus(selected->indices.size()),
                           selected->indices.size() == 1 ? "ex" : "ices",
                           fmt::join(selected->indices, ","), found);
    }
    return fmt::format("1 GPU asked (--nproc_per_node gpu), {}; a CPU-only job takes "
                       "--nproc_per_node cpu or a number",
                       found);
}

} // namespace

bool gpus_suffice(const GpusNeeded& needed, int found) {
    std::optional<GpuFloor> floor = gpu_floor(needed);
    return !floor || found >= floor->count || (found == 0 && floor->none_passes);
}

std::string gpu_check_word(const GpusNeeded& needed) {
    std::optional<GpuFloor> floor = gpu_floor(needed);
    if (!floor) {
        return {};
    }
    return fmt::format("{}{}", floor->count, floor->none_passes ? "" : "!");
}

std::string describe(const PreflightFailure& failure) {
    std::string subject = util::escape_for_message(failure.subject);
    switch (failure.check) {
    case PreflightCheck::working_directory:
        return fmt::format("no working directory '{}' (the launcher's current directory must "
                           "exist on every node: a shared file system, or cd to a path that "
                           "does)",
                           subject);
    case PreflightCheck::command:
        return fmt::format("cannot find '{}' (on the node's PATH; give a Python that has PyTorch "
                           "with --python PATH, or set the node's PATH with -x PATH=...)",
                           subject);
    case PreflightCheck::script:
        return fmt::format("cannot read the script '{}' on the node (torchrun opens it from the "
                           "working directory: copy it to every node, or check its name)",
                           subject);
    case PreflightCheck::master_address:
        return fmt::format("cannot resolve master address '{}' (set --master_addr to an address "
                           "every node can reach)",
                           subject);
    case PreflightCheck::network_interface:
        return fmt::format("no network interface '{}' (see 'ip -br link' on the node; "
                           "--network-interface names must exist on every node)",
                           subject);
    case PreflightCheck::gpus:
        return failure.gpus ? describe_shortage(*failure.gpus) : subject;
    case PreflightCheck::helper:
        // Worded for every engine of the step family (srun, mpirun): job/ names none of them.
        return fmt::format("cannot find '{}' on the node (the launcher runs each task's job "
                           "under it, so that the job's output crosses the launcher program "
                           "byte for byte; install it there, or use --launcher ssh)",
                           subject);
    case PreflightCheck::placement:
        return fmt::format("this node's task was started on a machine without its address '{}' "
                           "(the launcher program's placement did not follow the run's host "
                           "order: check the arguments given to it, and that the names resolve "
                           "alike on every node)",
                           subject);
    }
    return subject;
}

std::optional<PreflightFailure> parse_failed_check(std::string_view what,
                                                   const NodeCommand& command) {
    if (what == "cwd") {
        return PreflightFailure{PreflightCheck::working_directory, command.working_directory};
    }
    if (what == "command") {
        return PreflightFailure{PreflightCheck::command,
                                command.argv.empty() ? "" : command.argv[0]};
    }
    if (what == "script") {
        return PreflightFailure{PreflightCheck::script, command.preflight.script.value_or("")};
    }
    constexpr std::string_view master = "master ";
    if (what.substr(0, master.size()) == master) {
        return PreflightFailure{PreflightCheck::master_address,
                                std::string(what.substr(master.size()))};
    }
    constexpr std::string_view helper = "helper ";
    if (what.substr(0, helper.size()) == helper) {
        return PreflightFailure{PreflightCheck::helper, std::string(what.substr(helper.size()))};
    }
    constexpr std::string_view host = "host ";
    if (what.substr(0, host.size()) == host) {
        return PreflightFailure{PreflightCheck::placement, std::string(what.substr(host.size()))};
    }
    constexpr std::string_view gpus = "gpus ";
    if (what.substr(0, gpus.size()) == gpus) {
        std::string_view rest = what.substr(gpus.size());
        std::optional<int> found;
        if (rest.starts_with('-')) {
            rest.remove_prefix(1); // the count did not finish
        } else {
            found = util::parse_integer_prefix<int>(rest);
            if (!found || *found < 0) {
                return std::nullopt;
            }
        }
        for (const ProbeNames& names : probe_names) {
            if (rest.size() == names.word.size() + 1 && rest.front() == ' ' &&
                rest.substr(1) == names.word) {
                return PreflightFailure{PreflightCheck::gpus, "",
                                        GpuShortage{command.preflight.gpus, found, names.probe}};
            }
        }
        return std::nullopt;
    }
    constexpr std::string_view interface = "interface ";
    if (what.substr(0, interface.size()) == interface) {
        return PreflightFailure{PreflightCheck::network_interface,
                                std::string(what.substr(interface.size()))};
    }
    return std::nullopt;
}

std::string preflight_shell(const PreflightShellNames& names) {
    // After the `cd`: a relative script is the working directory's, as torchrun opens it. An
    // empty one is none (-m, no_python): a wrapper whose text serves every launch passes ''.
    std::string script_line =
        names.script.empty()
            ? std::string()
            : fmt::format("[ -z \"${{{1}}}\" ] || [ -r \"${{{1}}}\" ] || {0} script\n", names.fail,
                          names.script);
    return fmt::format(
        "cd \"${{{1}}}\" 2>/dev/null || {0} cwd\n"
        "command -v \"${{{2}}}\" >/dev/null 2>&1 || {0} command\n"
        "{6}"
        "case ${{{3}}} in \"\"|*:*) ;; *[!0-9.]*) ! command -v getent >/dev/null 2>&1 || getent "
        "ahosts \"${{{3}}}\" >/dev/null 2>&1 || {0} \"master ${{{3}}}\";; esac\n"
        "if [ -n \"${{{4}}}\" ] && [ -d /sys/class/net ]; then IFS=,; for cai_n in ${{{4}}}; do "
        "[ -e \"/sys/class/net/$cai_n\" ] || {0} \"interface $cai_n\"; done; unset IFS; fi\n"
        // The GPUs: counted without a process of their own beyond nvidia-smi (read and glob).
        "if [ -n \"${{{5}}}\" ]; then cai_n=0 cai_o=none\n"
        // (An nvidia-smi ended by a signal, 128+N, adds a line that makes the count `-`.)
        "if command -v nvidia-smi >/dev/null 2>&1; then cai_o=smi cai_n=$({{ nvidia-smi -L "
        "2>/dev/null || echo \"-$?\"; }} | {{ cai_n=0; while IFS= read -r cai_v; do case $cai_v "
        "in \"GPU \"*) cai_n=$((cai_n+1));; -129|-1[3-9][0-9]|-2[0-9][0-9]) cai_n=-;; esac; "
        "done; echo $cai_n; }})\n"
        "elif [ -d /proc/driver/nvidia/gpus ]; then cai_o=proc; for cai_v in "
        "/proc/driver/nvidia/gpus/*; do [ -e \"$cai_v\" ] && cai_n=$((cai_n+1)); done; fi\n"
        // An nvidia-smi stopped with the launch (or the counting shell too) leaves no count.
        "case $cai_n in \"\"|*[!0-9]*) {0} \"gpus - $cai_o\";; esac\n"
        "case ${{{5}}} in *!) [ \"$cai_n\" -ge \"${{{5}%!}}\" ];; *) [ \"$cai_n\" = 0 ] || [ "
        "\"$cai_n\" -ge \"${{{5}}}\" ];; esac || {0} \"gpus $cai_n $cai_o\"\nfi\n",
        names.fail, names.directory, names.command, names.master, names.interfaces, names.gpus,
        script_line);
}

namespace {

// A MAJOR.MINOR as one number the node's shell compares ($((MAJOR*1000+MINOR))).
int pair_key(const util::Version& version) {
    return version.major * 1000 + version.minor;
}

} // namespace

std::string torch_pair_shell(const TorchPairShellNames& names, const BrokenPair& broken) {
    return fmt::format(
        // The interpreter: --python's (a bare name from PATH), else the command's `#!` line.
        "cai_p=${{{1}}} cai_y= cai_t= cai_s=1\n"
        "case $cai_p in \"\"|*/*) ;; *) cai_p=$(command -v \"$cai_p\") || cai_p=;; esac\n"
        "if [ -z \"$cai_p\" ] && cai_v=$(command -v \"${{{2}}}\") && [ -r \"$cai_v\" ]; then "
        "IFS= read -r cai_p < \"$cai_v\" || :\n"
        "case $cai_p in \"#!\"*) cai_p=${{cai_p#??}}; cai_p=${{cai_p#\"${{cai_p%%[! ]*}}\"}};; "
        "*) cai_p=;; esac\n"
        "case $cai_p in */env\\ *) cai_p=${{cai_p#*/env }}; cai_p=$(command -v "
        "\"${{cai_p%% *}}\") || cai_p=;; *) cai_p=${{cai_p%% *}};; esac\nfi\n"
        // Python's version: the venv's pyvenv.cfg, else the resolved name (python3.11).
        "if [ -n \"$cai_p\" ]; then cai_e=${{cai_p%/*}}; cai_e=${{cai_e%/*}}\n"
        "cai_v=$(readlink -f \"$cai_p\" 2>/dev/null) || cai_v=$cai_p\n"
        "case ${{cai_v##*/}} in python[0-9]*.[0-9]*) cai_y=${{cai_v##*/python}};; esac\n"
        "if [ -r \"$cai_e/pyvenv.cfg\" ]; then cai_s=; while IFS= read -r cai_v; do case "
        "$cai_v in \"version =\"*|\"version_info =\"*) cai_y=${{cai_v#*= }};; "
        "\"include-system-site-packages = true\"*) cai_s=1;; esac; done < \"$cai_e/pyvenv.cfg\"; "
        "fi\n"
        "cai_y=${{cai_y%%[!0-9.]*}}; cai_v=${{cai_y#*.}}; [ \"$cai_v\" != \"$cai_y\" ] || cai_v=; "
        "cai_y=${{cai_y%%.*}}.${{cai_v%%.*}}\n"
        // PyTorch's: torch/version.py in the first site directory that holds one.
        "for cai_v in \"$cai_e/lib/python$cai_y/site-packages\" ${{cai_s:+/usr/local/lib/"
        "python$cai_y/dist-packages /usr/lib/python3/dist-packages}}; do [ -z \"$cai_t\" ] && "
        "[ -r \"$cai_v/torch/version.py\" ] || continue; while IFS= read -r cai_w; do case "
        "$cai_w in \"__version__ = \"*) cai_t=${{cai_w#\"__version__ = \"?}};; esac; done < "
        "\"$cai_v/torch/version.py\"; done\n"
        "cai_t=${{cai_t%%[!0-9.]*}}; cai_v=${{cai_t#*.}}; [ \"$cai_v\" != \"$cai_t\" ] || cai_v=; "
        "cai_t=${{cai_t%%.*}}.${{cai_v%%.*}}\n"
        // Both read (MAJOR.MINOR, digits on both sides), and a broken pair: the notice.
        "case $cai_t.$cai_y in *[!0-9.]*|.*|*.|*..*) ;; *) "
        "if [ $((${{cai_t%.*}}*1000+${{cai_t#*.}})) -ge {3} ] && [ $((${{cai_t%.*}}*1000+"
        "${{cai_t#*.}})) -lt {4} ] && [ $((${{cai_y%.*}}*1000+${{cai_y#*.}})) -ge {5} ]; then "
        "{0} \"pair $cai_t $cai_y\"; fi;; esac\nfi\n",
        names.notice, names.python, names.command, pair_key(broken.torch_from),
        pair_key(broken.torch_before), pair_key(broken.python_from));
}

std::string_view torch_pair_word(const std::optional<TorchPairCheck>& check) {
    if (!check) {
        return "";
    }
    switch (check->interpreter) {
    case TorchInterpreter::shebang:
        return "shebang";
    case TorchInterpreter::command:
        return "command";
    }
    return "";
}

std::string torch_pair_check_shell(std::string_view notice, std::string_view word,
                                   std::string_view command, const BrokenPair& broken) {
    // The word becomes torch_pair_shell's interpreter: the command, or none (its `#!` line). In
    // a subshell: none of the variables it uses outlives it (the shell around it has its own).
    return fmt::format(
        "if [ -n \"${{{0}}}\" ]; then (case ${{{0}}} in command) {0}=${{{1}}};; *) "
        "{0}=;; esac\n{2}); fi\n",
        word, command,
        torch_pair_shell({.notice = notice, .python = word, .command = command}, broken));
}

std::string describe_broken_pair(const NodePair& pair, std::string_view launcher,
                                 const BrokenPair& broken) {
    return fmt::format(
        "PyTorch {}.{} on Python {}.{}: {} stops before any worker starts (torch's to_std loses "
        "--redirects/--tee 0 and 3 on Python {}.{}+, fixed in PyTorch {}.{}); --extra_launch_args "
        "redirects=9:1,tee=9:1 avoids it, leaving the streams untouched, for up to 9 processes "
        "per node",
        pair.torch.major, pair.torch.minor, pair.python.major, pair.python.minor, launcher,
        broken.python_from.major, broken.python_from.minor, broken.torch_before.major,
        broken.torch_before.minor);
}

std::optional<std::string> describe_node_notice(const std::optional<TorchPairCheck>& check,
                                                std::string_view what) {
    std::optional<NodePair> pair = parse_node_pair(what);
    if (!check || !pair) {
        return std::nullopt;
    }
    return describe_broken_pair(*pair, check->launcher, check->broken);
}

std::optional<NodePair> parse_node_pair(std::string_view what) {
    constexpr std::string_view pair = "pair ";
    if (!what.starts_with(pair)) {
        return std::nullopt;
    }
    what.remove_prefix(pair.size());
    std::size_t space = what.find(' ');
    if (space == std::string_view::npos) {
        return std::nullopt;
    }
    std::optional<util::Version> torch = util::parse_version(what.substr(0, space));
    std::optional<util::Version> python = util::parse_version(what.substr(space + 1));
    if (!torch || !python) {
        return std::nullopt;
    }
    return NodePair{*torch, *python};
}

} // namespace colossalai::job
