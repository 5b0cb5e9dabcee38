#include "colossalai/run/torch_forms.hpp"

#include "colossalai/util/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

namespace colossalai::run {

namespace {

using util::Version;

// Before any form: the launcher's floor (torch.distributed.launch is as old as PyTorch 1.0).
constexpr Version any_release{0, 0, std::nullopt};

// A form: when its command first shipped, and how messages name it.
struct FormRow {
    LauncherForm form;
    Version since;
    std::string_view name;
};

// Newest first: launcher_form takes the first a version has.
// - torchrun: the console script of torch.distributed.run's main, PyTorch 1.10 (release notes
//   of 1.10.0; docs.pytorch.org/docs/1.10/elastic/quickstart.html uses it throughout).
// - torch.distributed.run: PyTorch 1.9 (torchelastic upstreamed; release notes of 1.9.0,
//   docs.pytorch.org/docs/1.9.0/elastic/run.html).
// - torch.distributed.launch: every release; deprecated from 1.9, where launch.py became run's
//   parser plus --use_env (torch/distributed/launch.py of 1.9 and newer).
constexpr std::array form_rows{
    FormRow{LauncherForm::torchrun, Version{1, 10, std::nullopt}, "torchrun"},
    FormRow{LauncherForm::distributed_run, Version{1, 9, std::nullopt},
            "python -m torch.distributed.run"},
    FormRow{LauncherForm::distributed_launch, any_release, "python -m torch.distributed.launch"},
};

// One row: since which PyTorch each form accepts the feature, in LauncherForm's order
// (distributed_launch, distributed_run, torchrun); `options` are the option's names as
// --extra_launch_args may write them (empty: the launcher writes it itself, never an extra arg).
struct FeatureRow {
    TorchFeature feature;
    std::array<std::optional<Version>, 3> since;
    std::array<std::string_view, 2> options;
};

constexpr Version v1_3{1, 3, std::nullopt};
constexpr Version v1_9{1, 9, std::nullopt};
constexpr Version v1_10{1, 10, std::nullopt};

// What each form accepts. The torch.distributed.run and torchrun columns are the form's first
// release: from 1.9 on, run.py's one parser (get_args_parser) takes all of these (read in
// Debian's 1.13 torch/distributed/run.py: -m/--module, --nproc_per_node through
// determine_local_world_size's auto/cpu/gpu, --nnodes MIN:MAX, --rdzv_backend, --rdzv_endpoint,
// --rdzv_id, --rdzv_conf, --standalone, --max_restarts, -r/--redirects, -t/--tee; the 1.10
// quickstart documents MIN:MAX, the rendezvous options and --standalone; the current run.py
// keeps them all, with dashed spellings added). The torch.distributed.launch column: launch.py
// before 1.9 has int --nnodes and --nproc_per_node, --node_rank, --master_addr, --master_port,
// --use_env, --no_python, and -m/--module since 1.3 (pytorch/pytorch#24910, merged
// 2019-09-06); it computes WORLD_SIZE as nproc_per_node * nnodes, so every node must run the
// same number of processes. From 1.9 launch.py is run's parser plus --use_env: it accepts what
// run does (the launcher uses torch.distributed.launch only below 1.9).
constexpr std::array feature_rows{
    FeatureRow{TorchFeature::module, {v1_3, v1_9, v1_10}, {}},
    FeatureRow{TorchFeature::symbolic_nproc, {v1_9, v1_9, v1_10}, {}},
    FeatureRow{TorchFeature::elastic, {v1_9, v1_9, v1_10}, {}},
    FeatureRow{TorchFeature::max_restarts, {v1_9, v1_9, v1_10}, {}},
    FeatureRow{TorchFeature::uneven_nproc, {v1_9, v1_9, v1_10}, {}},
    FeatureRow{TorchFeature::standalone, {v1_9, v1_9, v1_10}, {"standalone", ""}},
    FeatureRow{TorchFeature::redirects_tee, {v1_9, v1_9, v1_10}, {"redirects", "tee"}},
    FeatureRow{TorchFeature::rdzv_conf, {v1_9, v1_9, v1_10}, {"rdzv_conf", ""}},
};

const FeatureRow& row_of(TorchFeature feature) {
    return *std::find_if(feature_rows.begin(), feature_rows.end(),
                         [feature](const FeatureRow& row) { return row.feature == feature; });
}

// The broken pair: torch's Std.from_str loops `for s in Std` from 1.9 (torchelastic's
// multiprocessing API) through 1.13 (read in Debian's 1.13
// torch/distributed/elastic/multiprocessing/api.py, to_std); it was fixed for 2.0, the first
// release for Python 3.11 (pytorch/pytorch#92319, January 2023), and the current source builds
// `Std(int(v))` instead. Python 3.11 changed Flag iteration to skip zero-valued members and
// aliases (Python 3.11 "What's New", enum), so NONE (0) and ALL (3) are never found.
constexpr Version broken_torch_from = v1_9;
constexpr Version broken_torch_before{2, 0, std::nullopt};
constexpr Version broken_python_from{3, 11, std::nullopt};

// A --redirects or --tee value that names neither 0 nor 3: `1`, `2`, or a map `RANK:1,RANK:2`
// (torch's _VALUE_REGEX and _MAPPING_REGEX; anything else fails in torch anyway).
bool avoids_lost_members(std::string_view value) {
    if (value == "1" || value == "2") {
        return true;
    }
    for (;;) {
        std::size_t comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        if (item.size() != 3 || item[0] < '0' || item[0] > '9' || item[1] != ':' ||
            (item[2] != '1' && item[2] != '2')) {
            return false;
        }
        if (comma == std::string_view::npos) {
            return true;
        }
        value.remove_prefix(comma + 1);
    }
}

// The value of --extra_launch_args `option`, both spellings; nullopt when not given.
std::optional<std::string_view> extra_value(const std::vector<LaunchArg>& extra,
                                            std::string_view option) {
    auto it = std::find_if(extra.begin(), extra.end(), [option](const LaunchArg& arg) {
        return same_option(arg.name, option);
    });
    if (it == extra.end()) {
        return std::nullopt;
    }
    return it->value ? std::string_view(*it->value) : std::string_view();
}

std::string to_text(const Version& version) {
    return version.patch ? fmt::format("{}.{}.{}", version.major, version.minor, *version.patch)
                         : fmt::format("{}.{}", version.major, version.minor);
}

} // namespace

LauncherForm launcher_form(const std::optional<util::Version>& torch) {
    if (!torch) {
        return LauncherForm::torchrun;
    }
    for (const FormRow& row : form_rows) {
        if (*torch >= row.since) {
            return row.form;
        }
    }
    return LauncherForm::distributed_launch;
}

std::string_view form_name(LauncherForm form) {
    for (const FormRow& row : form_rows) {
        if (row.form == form) {
            return row.name;
        }
    }
    return "torchrun";
}

std::optional<util::Version> accepted_since(TorchFeature feature, LauncherForm form) {
    const FeatureRow& row = row_of(feature);
    std::optional<Version> since = row.since[static_cast<std::size_t>(form)];
    const FormRow& form_row = *std::find_if(form_rows.begin(), form_rows.end(),
                                            [form](const FormRow& f) { return f.form == form; });
    // A form accepts nothing before it shipped.
    return since ? std::optional<Version>(std::max(*since, form_row.since)) : std::nullopt;
}

util::Version first_accepted(TorchFeature feature) {
    const FeatureRow& row = row_of(feature);
    std::optional<Version> first;
    for (const std::optional<Version>& since : row.since) {
        if (since && (!first || *since < *first)) {
            first = since;
        }
    }
    return first.value_or(any_release);
}

void require_feature(TorchFeature feature, std::string_view what, LauncherForm form,
                     const std::optional<util::Version>& torch) {
    if (!torch) {
        return;
    }
    std::optional<Version> since = accepted_since(feature, form);
    if (since && *torch >= *since) {
        return;
    }
    throw usage_error("{} needs PyTorch {} or newer (found {}: {})", what,
                      to_text(first_accepted(feature)), to_text(*torch), form_name(form));
}

void require_extra_args(const std::vector<LaunchArg>& extra, LauncherForm form,
                        const std::optional<util::Version>& torch) {
    for (const LaunchArg& arg : extra) {
        for (const FeatureRow& row : feature_rows) {
            bool named = std::any_of(row.options.begin(), row.options.end(),
                                     [&arg](std::string_view option) {
                                         return !option.empty() && same_option(arg.name, option);
                                     });
            if (named) {
                require_feature(row.feature, "--extra_launch_args " + arg.name, form, torch);
            }
        }
    }
}

std::optional<std::string> broken_pair_notice(LauncherForm form,
                                              const std::optional<util::Version>& torch,
                                              const std::optional<util::Version>& python,
                                              const std::vector<LaunchArg>& extra) {
    if (!torch || !python || *torch < broken_torch_from || *torch >= broken_torch_before ||
        *python < broken_python_from) {
        return std::nullopt;
    }
    if (!node_pair_check(form, extra)) {
        return std::nullopt;
    }
    return job::describe_broken_pair({*torch, *python}, form_name(form), broken_pair());
}

std::optional<job::TorchPairCheck> node_pair_check(LauncherForm form,
                                                   const std::vector<LaunchArg>& extra) {
    std::optional<std::string_view> redirects = extra_value(extra, "redirects");
    std::optional<std::string_view> tee = extra_value(extra, "tee");
    if (form == LauncherForm::distributed_launch ||
        (redirects && tee && avoids_lost_members(*redirects) && avoids_lost_members(*tee))) {
        return std::nullopt;
    }
    return job::TorchPairCheck{form == LauncherForm::torchrun ? job::TorchInterpreter::shebang
                                                              : job::TorchInterpreter::command,
                               std::string(form_name(form)), broken_pair()};
}

job::BrokenPair broken_pair() {
    return {broken_torch_from, broken_torch_before, broken_python_from};
}

} // namespace colossalai::run
