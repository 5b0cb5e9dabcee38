// Elastic launches: the typed values of --nnodes, --max_restarts and --rdzv_*, how they meet
// --extra_launch_args, and the rendezvous the planner gives every node's torchrun.

#include "find_local.hpp"
#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/elastic.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/validate.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

TEST(NodeRange, ParsesNAndMinMax) {
    EXPECT_EQ(parse_node_range("3", "--nnodes"), (NodeRange{3, 3}));
    EXPECT_EQ(parse_node_range("2:4", "--nnodes"), (NodeRange{2, 4}));
    EXPECT_EQ(parse_node_range("2:2", "--nnodes"), (NodeRange{2, 2}));
    EXPECT_FALSE(parse_node_range("2:2", "--nnodes").elastic());
    EXPECT_TRUE(parse_node_range("1:2", "--nnodes").elastic());
    EXPECT_EQ(to_string(NodeRange{2, 4}), "2:4");
    EXPECT_EQ(to_string(NodeRange{3, 3}), "3");
}

TEST(NodeRange, RefusesEachBadShapeInOneLine) {
    const std::string shape = "expected N or MIN:MAX, positive numbers of nodes";
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {"4:2", "--nnodes '4:2': MIN is greater than MAX"},
             {"0", "--nnodes '0': " + shape},
             {"0:2", "--nnodes '0:2': " + shape},
             {"-1", "--nnodes '-1': " + shape},
             {"two", "--nnodes 'two': " + shape},
             {"2:", "--nnodes '2:': " + shape},
             {":3", "--nnodes ':3': " + shape},
             {"1:2:3", "--nnodes '1:2:3': " + shape},
             {"", "--nnodes '': " + shape},
         }) {
        EXPECT_EQ(test::usage_message([&, &text = text] { parse_node_range(text, "--nnodes"); }),
                  message)
            << text;
    }
}

TEST(RdzvEndpoint, ParsesHostPortAndBracketedIpv6) {
    EXPECT_EQ(parse_rdzv_endpoint("node1:29400", "--rdzv_endpoint"),
              (RdzvEndpoint{"node1", 29400}));
    EXPECT_EQ(parse_rdzv_endpoint("[fe80::1]:1", "--rdzv_endpoint"), (RdzvEndpoint{"fe80::1", 1}));
    EXPECT_EQ(to_string(RdzvEndpoint{"fe80::1", 1}), "[fe80::1]:1");
    EXPECT_EQ(to_string(RdzvEndpoint{"10.0.0.1", 29500}), "10.0.0.1:29500");
}

TEST(RdzvEndpoint, RefusesAnEndpointWithoutAPortOrHost) {
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {"node1", "--rdzv_endpoint 'node1': expected HOST:PORT (the port is required)"},
             {"[::1]", "--rdzv_endpoint '[::1]': expected HOST:PORT (the port is required)"},
             {"node1:", "--rdzv_endpoint 'node1:': not a port number (1..65535) after the last "
                        "':'"},
             {"node1:70000", "--rdzv_endpoint 'node1:70000': not a port number (1..65535) after "
                             "the last ':'"},
             {":29400", "--rdzv_endpoint ':29400': no host before the port"},
             {"::1:29400", "--rdzv_endpoint '::1:29400': write an IPv6 address in brackets: "
                           "[ADDRESS]:PORT"},
         }) {
        EXPECT_EQ(test::usage_message(
                      [&, &text = text] { parse_rdzv_endpoint(text, "--rdzv_endpoint"); }),
                  message)
            << text;
    }
}

TEST(RdzvBackend, KnowsTorchrunsBackends) {
    EXPECT_EQ(parse_rdzv_backend("c10d", "--rdzv_backend"), RdzvBackend::c10d);
    EXPECT_EQ(parse_rdzv_backend("static", "--rdzv_backend"), RdzvBackend::static_tcp);
    EXPECT_EQ(to_string(parse_rdzv_backend("etcd-v2", "--rdzv_backend")), "etcd-v2");
    EXPECT_EQ(test::usage_message([] { parse_rdzv_backend("C10D", "--rdzv_backend"); }),
              "--rdzv_backend 'C10D': expected c10d, static, etcd or etcd-v2");
}

TEST(RdzvIdAndMaxRestarts, AcceptSafeValuesOnly) {
    EXPECT_EQ(parse_rdzv_id("job-1.a_b", "--rdzv_id"), "job-1.a_b");
    EXPECT_EQ(test::usage_message([] { parse_rdzv_id("a b", "--rdzv_id"); }),
              "--rdzv_id 'a b': expected 1 to 128 letters, digits, '-', '_' or '.'");
    EXPECT_EQ(test::usage_message([] { parse_rdzv_id("", "--rdzv_id"); }),
              "--rdzv_id '': expected 1 to 128 letters, digits, '-', '_' or '.'");
    EXPECT_EQ(parse_max_restarts("0", "--max_restarts"), 0);
    EXPECT_EQ(parse_max_restarts("3", "--max_restarts"), 3);
    for (const char* bad : {"-1", "x", "", "1.5"}) {
        EXPECT_EQ(test::usage_message([&] { parse_max_restarts(bad, "--max_restarts"); }),
                  "--max_restarts '" + std::string(bad) +
                      "': not a number of restarts (0 or more)");
    }
}

TEST(FreshRdzvId, DiffersFromLaunchToLaunch) {
    std::string first = fresh_rdzv_id();
    EXPECT_EQ(first.rfind("colossalai-", 0), 0u);
    EXPECT_EQ(first.size(), std::string("colossalai-").size() + 16);
    EXPECT_NE(first, fresh_rdzv_id());
}

Options elastic_options(std::string_view hosts = "a,b,c") {
    Options options;
    options.host = test::hosts(hosts);
    options.nproc_per_node = test::nproc("2");
    options.script = "train.py";
    return options;
}

TEST(GivenElasticOptions, FoldsExtraLaunchArgsAndRefusesTheSameGivenTwice) {
    Options options = elastic_options();
    test::set_extra_launch_args(options, "rdzv_backend=c10d,max-restarts=2,rdzv_conf=x=1");
    EXPECT_EQ(options.extra_launch_args, test::launch_args("rdzv_conf=x=1"));
    ElasticOptions given = given_elastic_options(options);
    EXPECT_EQ(given.rdzv_backend, RdzvBackend::c10d);
    EXPECT_EQ(given.max_restarts, 2);

    struct Case {
        std::function<void(Options&)> change;
        std::string message;
    };
    for (const Case& c : std::vector<Case>{
             {[](Options& o) {
                  o.elastic.max_restarts = 1;
                  test::set_extra_launch_args(o, "max_restarts=2");
              },
              "max_restarts is given both by --max_restarts and by --extra_launch_args: keep one"},
             {[](Options& o) {
                  o.elastic.rdzv_id = "a";
                  test::set_extra_launch_args(o, "rdzv-id=b");
              },
              "rdzv_id is given both by --rdzv_id and by --extra_launch_args: keep one"},
             {[](Options& o) {
                  o.elastic.rdzv_endpoint = RdzvEndpoint{"a", 1};
                  test::set_extra_launch_args(o, "rdzv_endpoint=b:2");
              },
              "rdzv_endpoint is given both by --rdzv_endpoint and by --extra_launch_args: keep "
              "one"},
             {[](Options& o) {
                  o.elastic.rdzv_backend = RdzvBackend::c10d;
                  test::set_extra_launch_args(o, "rdzv_backend=c10d");
              },
              "rdzv_backend is given both by --rdzv_backend and by --extra_launch_args: keep one"},
             {[](Options& o) { test::set_extra_launch_args(o, "rdzv_id=a,rdzv_id=b"); },
              "--extra_launch_args: 'rdzv_id' is given twice"},
             {[](Options& o) { test::set_extra_launch_args(o, "rdzv-id=a,rdzv_id=b"); },
              "--extra_launch_args: 'rdzv_id' is given twice"},
             {[](Options& o) { test::set_extra_launch_args(o, "rdzv_endpoint=host"); },
              "--extra_launch_args rdzv_endpoint 'host': expected HOST:PORT (the port is "
              "required)"},
             {[](Options& o) { test::set_extra_launch_args(o, "max_restarts"); },
              "--extra_launch_args max_restarts '': not a number of restarts (0 or more)"},
         }) {
        // A bad value is refused where the cli reads it; one given both ways by validate.
        EXPECT_EQ(test::usage_message([&] {
                      Options changed = elastic_options();
                      c.change(changed);
                      validate_options(changed);
                  }),
                  c.message);
    }
}

Context elastic_context() {
    Context context;
    context.environment = {"PATH=/bin"};
    context.working_directory = "/job";
    context.find_local = test::find_local_by([](std::string_view) { return false; });
    context.fresh_rdzv_id = [] { return std::string("colossalai-fresh"); };
    return context;
}

TEST(ElasticPlan, MinMaxUsesC10dOnTheMasterWithAFreshId) {
    Options options = elastic_options();
    options.elastic.nnodes = NodeRange{2, 3};
    Plan plan = test::plan_of(options, elastic_context());
    ASSERT_TRUE(plan.elastic);
    EXPECT_EQ(*plan.elastic,
              (ElasticPlan{NodeRange{2, 3}, RdzvBackend::c10d, RdzvEndpoint{"a", 29500},
                           "colossalai-fresh", std::nullopt}));
    ASSERT_EQ(plan.nodes.size(), 3u);
    EXPECT_EQ(plan.nodes[2].argv,
              (Words{"torchrun", "--nproc_per_node=2", "--nnodes=2:3", "--node_rank=2",
                     "--master_addr=a", "--master_port=29500", "--rdzv_backend=c10d",
                     "--rdzv_endpoint=a:29500", "--rdzv_id=colossalai-fresh", "train.py"}));
}

TEST(ElasticPlan, GivenValuesAndThoseOfExtraLaunchArgsAreWrittenOnce) {
    Options options = elastic_options("a,b");
    options.elastic.nnodes = NodeRange{1, 4};
    options.elastic.max_restarts = 3;
    options.elastic.rdzv_id = "job7";
    options.master_port = Port{29600};
    test::set_extra_launch_args(options,
                                "rdzv_endpoint=[fe80::2]:29401,rdzv_conf=last_call_timeout=1");
    Plan plan = test::plan_of(options, elastic_context());
    ASSERT_TRUE(plan.elastic);
    EXPECT_EQ(plan.elastic->endpoint, (RdzvEndpoint{"fe80::2", 29401}));
    EXPECT_EQ(plan.elastic->max_restarts, 3);
    EXPECT_EQ(plan.nodes[0].argv,
              (Words{"torchrun", "--nproc_per_node=2", "--nnodes=1:4", "--node_rank=0",
                     "--master_addr=a", "--master_port=29600", "--rdzv_backend=c10d",
                     "--rdzv_endpoint=[fe80::2]:29401", "--rdzv_id=job7", "--max_restarts=3",
                     "--rdzv_conf=last_call_timeout=1", "train.py"}));
}

TEST(ElasticPlan, AFixedCountWithoutRendezvousOptionsStaysStatic) {
    Options options = elastic_options();
    options.elastic.nnodes = NodeRange{3, 3};
    options.elastic.max_restarts = 1;
    Plan plan = test::plan_of(options, elastic_context());
    EXPECT_FALSE(plan.elastic);
    EXPECT_EQ(plan.nodes[1].argv,
              (Words{"torchrun", "--nproc_per_node=2", "--nnodes=3", "--node_rank=1",
                     "--master_addr=a", "--master_port=29500", "--max_restarts=1", "train.py"}));

    options.elastic.rdzv_backend = RdzvBackend::c10d; // a rendezvous option: elastic
    plan = test::plan_of(options, elastic_context());
    ASSERT_TRUE(plan.elastic);
    EXPECT_EQ(plan.elastic->nodes, (NodeRange{3, 3}));
}

TEST(ElasticPlan, RefusesHostsOutsideTheRangeAndStaticRendezvousForARange) {
    struct Case {
        std::string hosts;
        NodeRange range;
        std::optional<RdzvBackend> backend;
        std::string message;
    };
    for (const Case& c : std::vector<Case>{
             {"a", {2, 3}, {}, "--nnodes 2:3: 1 host from --host; give between 2 and 3"},
             {"a,b,c,d", {2, 3}, {}, "--nnodes 2:3: 4 hosts from --host; give between 2 and 3"},
             {"a,b", {3, 3}, {}, "--nnodes 3: 2 hosts from --host; give exactly 3"},
             {"a,b",
              {2, 3},
              RdzvBackend::static_tcp,
              "--rdzv_backend static: needs a fixed number of nodes (--nnodes N), not 2:3; use "
              "c10d for an elastic launch"},
         }) {
        Options options = elastic_options(c.hosts);
        options.elastic.nnodes = c.range;
        options.elastic.rdzv_backend = c.backend;
        EXPECT_EQ(test::usage_message([&] { test::plan_of(options, elastic_context()); }),
                  c.message);
    }
}

// srun allocating the nodes: no master is known before they start, so the rendezvous cannot
// default to it.
TEST(ElasticPlan, NodesThatSrunAllocatesNeedAnEndpoint) {
    Options options;
    options.engine = test::engine_named("slurm");
    options.num_nodes = 3;
    options.nproc_per_node = test::nproc("1");
    options.script = "train.py";
    options.elastic.nnodes = NodeRange{2, 3};
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, elastic_context()); }),
              "an elastic launch on nodes that srun allocates needs --rdzv_endpoint (the master "
              "is not known before the nodes are)");
    options.elastic.rdzv_endpoint = RdzvEndpoint{"login1", 29400};
    Plan plan = test::plan_of(options, elastic_context());
    ASSERT_TRUE(plan.elastic);
    EXPECT_EQ(plan.elastic->endpoint, (RdzvEndpoint{"login1", 29400}));
}

TEST(ElasticPlan, NeedsTorchDistributedRun) {
    Options options = elastic_options();
    options.elastic.nnodes = NodeRange{2, 3};
    Context old = elastic_context();
    old.torch_version = "1.8.1";
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, old); }),
              "an elastic launch (--nnodes MIN:MAX, --rdzv_*) needs PyTorch 1.9 or newer "
              "(found 1.8.1: python -m torch.distributed.launch)");
}

} // namespace
} // namespace colossalai::run
