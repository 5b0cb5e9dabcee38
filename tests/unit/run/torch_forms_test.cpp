#include "usage_message.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using util::Version;

constexpr LauncherForm all_forms[] = {LauncherForm::distributed_launch,
                                      LauncherForm::distributed_run, LauncherForm::torchrun};

std::optional<Version> forms_version(int major, int minor) {
    return Version{major, minor, 0};
}

TEST(TorchForms, EachFormAcceptsNothingBeforeItShipped) {
    EXPECT_EQ(accepted_since(TorchFeature::module, LauncherForm::distributed_launch),
              (Version{1, 3, std::nullopt}));
    EXPECT_EQ(accepted_since(TorchFeature::module, LauncherForm::distributed_run),
              (Version{1, 9, std::nullopt}));
    EXPECT_EQ(accepted_since(TorchFeature::module, LauncherForm::torchrun),
              (Version{1, 10, std::nullopt}));
    for (TorchFeature feature :
         {TorchFeature::symbolic_nproc, TorchFeature::elastic, TorchFeature::max_restarts,
          TorchFeature::uneven_nproc, TorchFeature::standalone, TorchFeature::redirects_tee,
          TorchFeature::rdzv_conf}) {
        EXPECT_EQ(first_accepted(feature), (Version{1, 9, std::nullopt}));
        EXPECT_EQ(accepted_since(feature, LauncherForm::torchrun), (Version{1, 10, std::nullopt}));
    }
    EXPECT_EQ(first_accepted(TorchFeature::module), (Version{1, 3, std::nullopt}));
}

// The form the launcher picks for a version always accepts what that version's launcher does:
// only torch.distributed.launch below 1.9 refuses anything.
TEST(TorchForms, TheChosenFormOfAVersionRefusesOnlyWhatThatVersionLacks) {
    for (auto [major, minor] : {std::pair{1, 8}, {1, 9}, {1, 10}, {1, 13}, {2, 0}, {2, 5}}) {
        std::optional<Version> torch = forms_version(major, minor);
        LauncherForm form = launcher_form(torch);
        bool old = major == 1 && minor < 9;
        EXPECT_EQ(form == LauncherForm::distributed_launch, old);
        EXPECT_NO_THROW(require_feature(TorchFeature::module, "-m", form, torch));
        if (old) {
            EXPECT_THROW(require_feature(TorchFeature::elastic, "x", form, torch), Error);
        } else {
            EXPECT_NO_THROW(require_feature(TorchFeature::elastic, "x", form, torch));
            // --python takes torch.distributed.run instead of torchrun: the same parser.
            EXPECT_NO_THROW(require_feature(TorchFeature::symbolic_nproc, "x",
                                            LauncherForm::distributed_run, torch));
        }
    }
    for (LauncherForm form : all_forms) {
        EXPECT_NO_THROW(require_feature(TorchFeature::elastic, "x", form, std::nullopt));
    }
    EXPECT_EQ(test::usage_message([] {
                  require_feature(TorchFeature::max_restarts, "--max_restarts",
                                  LauncherForm::distributed_launch, Version{1, 8, 1});
              }),
              "--max_restarts needs PyTorch 1.9 or newer (found 1.8.1: python -m "
              "torch.distributed.launch)");
    EXPECT_EQ(test::usage_message([] {
                  require_feature(TorchFeature::module, "-m", LauncherForm::distributed_launch,
                                  Version{1, 2, std::nullopt});
              }),
              "-m needs PyTorch 1.3 or newer (found 1.2: python -m torch.distributed.launch)");
}

TEST(TorchForms, ExtraLaunchArgsOfTheTableAreGatedByTheirRow) {
    std::vector<LaunchArg> extra{{"standalone", std::nullopt}, {"log_dir", "x"}};
    EXPECT_EQ(test::usage_message([&] {
                  require_extra_args(extra, LauncherForm::distributed_launch, Version{1, 8, 1});
              }),
              "--extra_launch_args standalone needs PyTorch 1.9 or newer (found 1.8.1: python -m "
              "torch.distributed.launch)");
    EXPECT_NO_THROW(require_extra_args(extra, LauncherForm::torchrun, Version{1, 13, 0}));
    std::vector<LaunchArg> tee{{"log_dir", "x"}, {"tee", "1"}};
    EXPECT_EQ(test::usage_message([&] {
                  require_extra_args(tee, LauncherForm::distributed_launch, Version{1, 8, 1});
              }),
              "--extra_launch_args tee needs PyTorch 1.9 or newer (found 1.8.1: python -m "
              "torch.distributed.launch)");
    std::vector<LaunchArg> other{{"no_python", std::nullopt}};
    EXPECT_NO_THROW(require_extra_args(other, LauncherForm::distributed_launch, Version{1, 8, 1}));
}

TEST(TorchForms, TheBrokenPairIsPyTorch19To113OnPython311AndNewer) {
    std::optional<Version> py311 = forms_version(3, 11);
    std::optional<Version> py310 = forms_version(3, 10);
    std::optional<std::string> notice =
        broken_pair_notice(LauncherForm::distributed_run, Version{1, 13, 0}, py311, {});
    ASSERT_TRUE(notice.has_value());
    EXPECT_EQ(*notice, "PyTorch 1.13 on Python 3.11: python -m torch.distributed.run stops before "
                       "any worker starts (torch's to_std loses --redirects/--tee 0 and 3 on "
                       "Python 3.11+, fixed in PyTorch 2.0); --extra_launch_args "
                       "redirects=9:1,tee=9:1 avoids it, leaving the streams untouched, for up to "
                       "9 processes per node");
    for (auto [major, minor] : {std::pair{1, 9}, {1, 10}, {1, 13}}) {
        EXPECT_TRUE(
            broken_pair_notice(LauncherForm::torchrun, forms_version(major, minor), py311, {}));
        EXPECT_TRUE(broken_pair_notice(LauncherForm::torchrun, forms_version(major, minor),
                                       forms_version(3, 12), {}));
        EXPECT_FALSE(
            broken_pair_notice(LauncherForm::torchrun, forms_version(major, minor), py310, {}));
    }
    EXPECT_FALSE(broken_pair_notice(LauncherForm::torchrun, forms_version(2, 0), py311, {}));
    EXPECT_FALSE(
        broken_pair_notice(LauncherForm::distributed_launch, forms_version(1, 8), py311, {}));
    EXPECT_FALSE(broken_pair_notice(LauncherForm::torchrun, std::nullopt, py311, {}));
    EXPECT_FALSE(
        broken_pair_notice(LauncherForm::torchrun, forms_version(1, 13), std::nullopt, {}));
}

// The node preflight's bounds (job::torch_pair_shell) are the ones the notice decides by.
// What a remote node reads (issue #40): the form says where its interpreter is; nothing where the
// pair cannot stop the launch whatever the versions.
TEST(TorchForms, ANodeReadsItsPairWhereTheNoticeCouldApply) {
    std::optional<job::TorchPairCheck> torchrun = node_pair_check(LauncherForm::torchrun, {});
    ASSERT_TRUE(torchrun);
    EXPECT_EQ(torchrun->interpreter, job::TorchInterpreter::shebang);
    EXPECT_EQ(torchrun->launcher, "torchrun");
    EXPECT_EQ(torchrun->broken.torch_before, broken_pair().torch_before);
    std::optional<job::TorchPairCheck> run = node_pair_check(LauncherForm::distributed_run, {});
    ASSERT_TRUE(run);
    EXPECT_EQ(run->interpreter, job::TorchInterpreter::command);
    EXPECT_EQ(run->launcher, form_name(LauncherForm::distributed_run));
    EXPECT_FALSE(node_pair_check(LauncherForm::distributed_launch, {}));
    EXPECT_FALSE(
        node_pair_check(LauncherForm::torchrun, parse_extra_launch_args("redirects=1,tee=1")));
    EXPECT_TRUE(node_pair_check(LauncherForm::torchrun, parse_extra_launch_args("redirects=1")));
    EXPECT_TRUE(
        node_pair_check(LauncherForm::torchrun, parse_extra_launch_args("redirects=3,tee=1")));
    // The node's notice is the launcher's text for the same versions.
    util::Version torch{1, 13, 0};
    util::Version python{3, 11, 2};
    EXPECT_EQ(job::describe_node_notice(torchrun, "pair 1.13 3.11"),
              broken_pair_notice(LauncherForm::torchrun, torch, python, {}));
}

TEST(TorchForms, TheNodesBoundsAreTheNoticesOwn) {
    job::BrokenPair bounds = broken_pair();
    for (int torch_minor : {8, 9, 10, 13}) {
        for (Version torch : {Version{1, torch_minor, std::nullopt}, Version{2, 0, std::nullopt}}) {
            for (int python_minor : {10, 11, 12}) {
                Version python{3, python_minor, std::nullopt};
                bool inside = torch >= bounds.torch_from && torch < bounds.torch_before &&
                              python >= bounds.python_from;
                EXPECT_EQ(broken_pair_notice(LauncherForm::torchrun, torch, python, {}).has_value(),
                          inside)
                    << torch.major << "." << torch.minor << " on 3." << python_minor;
            }
        }
    }
}

// Only --redirects and --tee both given, with values that name neither 0 nor 3, avoid it.
TEST(TorchForms, TheBrokenPairNoticeGoesOnlyWhenBothStreamsAvoidZeroAndThree) {
    auto notice = [](std::vector<LaunchArg> extra) {
        return broken_pair_notice(LauncherForm::torchrun, Version{1, 13, 0}, Version{3, 11, 2},
                                  extra)
            .has_value();
    };
    EXPECT_FALSE(notice({{"redirects", "9:1"}, {"tee", "9:1"}}));
    EXPECT_FALSE(notice({{"redirects", "1"}, {"tee", "2"}}));
    EXPECT_FALSE(notice({{"redirects", "0:1,1:2"}, {"tee", "9:2"}}));
    EXPECT_TRUE(notice({{"redirects", "9:1"}}));
    EXPECT_TRUE(notice({{"redirects", "9:1"}, {"tee", "0"}}));
    EXPECT_TRUE(notice({{"redirects", "3"}, {"tee", "1"}}));
    EXPECT_TRUE(notice({{"redirects", "0:1,1:3"}, {"tee", "1"}}));
    EXPECT_TRUE(notice({{"redirects", std::nullopt}, {"tee", "1"}}));
    EXPECT_TRUE(notice({{"redirects", "9:1,"}, {"tee", "1"}}));
}

} // namespace
} // namespace colossalai::run
