#pragma once

// What each torch launcher form, in each PyTorch version, accepts: the one table every gate of
// the planner and every message about a PyTorch version derive from (docs/run.md, "Launcher
// forms", shows it with its sources). The form and the version are separate facts: the form is
// the command the nodes run (chosen from the version, and by --python), the version says what
// that command's parser accepts.

#include "colossalai/job/preflight.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/util/version.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// How torch starts a node.
enum class LauncherForm {
    distributed_launch, // <python> -m torch.distributed.launch (the only form before 1.9)
    distributed_run,    // <python> -m torch.distributed.run (1.9, or --python)
    torchrun,           // the torchrun console script (1.10 and newer, or unknown)
};

// The form the launcher uses for a PyTorch version: the newest form that version has;
// nullopt (not found, unparsable) means a current PyTorch.
LauncherForm launcher_form(const std::optional<util::Version>& torch);

// The command as a message names it: "torchrun", "python -m torch.distributed.run".
std::string_view form_name(LauncherForm form);

// What a node's command may ask of torch's launcher, one row of the table each.
enum class TorchFeature {
    module,         // -m MODULE (--module): the program is a module
    symbolic_nproc, // --nproc_per_node auto|cpu|gpu: each node counts its own
    elastic,        // --nnodes MIN:MAX and --rdzv_backend/--rdzv_endpoint/--rdzv_id
    max_restarts,   // --max_restarts
    uneven_nproc,   // nodes that run different numbers of processes (GPU indices)
    standalone,     // --standalone (a rendezvous of one node on a free port)
    redirects_tee,  // --redirects / --tee
    rdzv_conf,      // --rdzv_conf
};

// The first PyTorch whose launcher of `form` accepts `feature`; nullopt when no release of that
// form does. Pure.
std::optional<util::Version> accepted_since(TorchFeature feature, LauncherForm form);

// The first PyTorch that accepts `feature` in any form (what a user must upgrade to). Pure.
util::Version first_accepted(TorchFeature feature);

// Refuses what `form` of PyTorch `torch` does not accept: throws a usage error
// "WHAT needs PyTorch MIN or newer (found VERSION: FORM)", where WHAT is `what` and MIN
// first_accepted(feature) and VERSION `torch` as MAJOR.MINOR[.PATCH]. An unknown version
// (nullopt) is a current one and accepts everything.
void require_feature(TorchFeature feature, std::string_view what, LauncherForm form,
                     const std::optional<util::Version>& torch);

// The --extra_launch_args items whose option is a row of the table (standalone, redirects, tee,
// rdzv_conf; either spelling), refused as require_feature does, named
// "--extra_launch_args NAME".
void require_extra_args(const std::vector<LaunchArg>& extra, LauncherForm form,
                        const std::optional<util::Version>& torch);

// A PyTorch and Python pairing whose torchrun crashes before any worker starts: torch's
// `Std.from_str` (--redirects/--tee) of 1.9 to 1.13 loops `for s in Std`, which from Python 3.11
// skips NONE (0) and the alias ALL (3), so the default `0` and the value 3 (in the map form too)
// end in "AttributeError: 'NoneType' object has no attribute 'get'".
// The notice for it: one line naming both versions, the least change that avoids it
// (--extra_launch_args redirects=9:1,tee=9:1: a map naming a local rank that does not exist
// keeps every real rank's streams untouched) and its limit (map keys are one digit: up to 9
// processes per node); nullopt when the pair is not broken (either version unknown, a form
// that does not go through torch.distributed.run, or --redirects and --tee both given with
// values that avoid 0 and 3). Pure.
std::optional<std::string> broken_pair_notice(LauncherForm form,
                                              const std::optional<util::Version>& torch,
                                              const std::optional<util::Version>& python,
                                              const std::vector<LaunchArg>& extra);

// The bounds broken_pair_notice decides by (PyTorch 1.9 up to 2.0, Python 3.11 and newer), as
// a node's preflight reads its own versions against them (job::torch_pair_shell): one fact.
job::BrokenPair broken_pair();

// What a remote node reads of its own pair for `form` (job::torch_pair_shell; the interpreter is
// torchrun's `#!` line, or the command for the `-m torch.distributed.run` form), or nullopt where
// broken_pair_notice says nothing whatever the versions: the form does not go through
// torch.distributed.run, or --redirects and --tee are both given with values that avoid 0 and 3.
std::optional<job::TorchPairCheck> node_pair_check(LauncherForm form,
                                                   const std::vector<LaunchArg>& extra);

} // namespace colossalai::run
