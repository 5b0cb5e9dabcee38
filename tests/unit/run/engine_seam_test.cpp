// What the planner asks of the engine's row (run/engine_row.hpp), with a fake engine that no
// --launcher names: run/ plans through the row's answers alone, so a new engine needs no edit
// of the planner.

#include "find_local.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

Options basic() {
    Options options;
    options.nproc_per_node = test::nproc("1");
    options.script = "train.py";
    return options;
}

// This machine is every loopback address; the ssh config renames `alias`; the launcher's own
// job identity is SLURM_PROCID=0 (an identity variable of its Slurm allocation).
Context context() {
    Context context;
    context.environment = {"PATH=/bin", "SLURM_PROCID=0"};
    context.working_directory = "/work/job";
    context.find_local =
        test::find_local_by([](std::string_view address) { return address.starts_with("127."); });
    context.host_name = [](const std::string& address) {
        return address == "alias" ? std::string("10.0.0.9") : address;
    };
    return context;
}

// A launcher of its own (the planner reads no engine name) that places the nodes
// itself, finds two hosts of its own and keeps the options it was given in the intent.
std::optional<EngineHosts> two_hosts(const Options&) {
    EngineHosts hosts;
    for (const char* name : {"(a)", "(b)"}) {
        Host host;
        host.name = name;
        host.address = name;
        hosts.hosts.push_back(std::move(host));
    }
    hosts.source = "the fake's pool";
    hosts.notice = "the fake found 2 hosts";
    return hosts;
}

LaunchIntent fake_launch(const Options&, bool allocated, Plan&) {
    return SrunLaunch{{"allocated"}, allocated};
}

constexpr EngineRow placing_itself{
    .name = "fake", .options = {}, .own_hosts = two_hosts, .launch = fake_launch};

void refuse_without_hosts() {
    throw usage_error("the fake needs hosts");
}

constexpr EngineRow needing_hosts{
    .name = "fake", .options = {}, .needs_hosts = refuse_without_hosts, .launch = fake_launch};

constexpr EngineRow from_here{.name = "fake",
                              .options = {},
                              .reaches_hosts = true,
                              .withholds_job_identity = true,
                              .launch = fake_launch};

TEST(EngineSeam, HostsTheEngineFindsItselfAreAllocatedAndNamedByItsNotice) {
    Plan plan = make_plan(basic(), context(), placing_itself);
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.nodes[1].host, "(b)");
    EXPECT_EQ(plan.notices, std::vector<std::string>{"the fake found 2 hosts"});
    EXPECT_EQ(plan.launch, LaunchIntent(SrunLaunch{{"allocated"}, true}));
}

TEST(EngineSeam, AnEngineThatNeedsHostsRefusesTheDefaultHost) {
    EXPECT_EQ(test::usage_message([] { make_plan(basic(), context(), needing_hosts); }),
              "the fake needs hosts");
    Options options = basic();
    options.host = test::hosts("127.0.0.1");
    EXPECT_EQ(make_plan(options, context(), needing_hosts).nodes.size(), 1u);
}

TEST(EngineSeam, OnlyAnEngineReachingTheHostsFromHereHasLocalNodes) {
    Options options = basic();
    options.host = test::hosts("127.0.0.1,alias");
    options.master_addr = MasterAddress{"10.0.0.1"};
    Plan here = make_plan(options, context(), from_here);
    EXPECT_TRUE(here.nodes[0].local);
    EXPECT_FALSE(here.nodes[1].local);
    EXPECT_EQ(here.nodes[1].withheld_environment, std::vector<std::string>{"SLURM_PROCID"});
    EXPECT_EQ(here.launch, LaunchIntent(SrunLaunch{{"allocated"}, false}));

    Plan elsewhere = make_plan(options, context(), needing_hosts);
    EXPECT_FALSE(elsewhere.nodes[0].local);
    EXPECT_FALSE(elsewhere.nodes[1].local);
    EXPECT_TRUE(elsewhere.nodes[1].withheld_environment.empty());
}

} // namespace
} // namespace colossalai::run
