#include "find_local.hpp"
#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/planner.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

Options basic() {
    Options options;
    options.nproc_per_node = test::nproc("4");
    options.script = "train.py";
    options.script_args = {"--epochs", "3"};
    return options;
}

// This "machine" is localhost, loopback addresses and the host named `me`.
Context context() {
    Context context;
    context.environment = {"PATH=/bin", "PWD=/elsewhere", "NCCL_DEBUG=INFO"};
    context.working_directory = "/work/job";
    context.find_local = test::find_local_by([](std::string_view address) {
        return address == "me" || address == "localhost" || address.substr(0, 4) == "127.";
    });
    return context;
}

std::string usage_message(const Options& options, const Context& context) {
    return test::usage_message([&] { test::plan_of(options, context); });
}

TEST(MakePlan, WithoutHostsRunsOneLocalNode) {
    Plan plan = test::plan_of(basic(), context());
    ASSERT_EQ(plan.nodes.size(), 1u);
    const NodeCommand& node = plan.nodes[0];
    EXPECT_EQ(node.host, "127.0.0.1");
    EXPECT_EQ(node.address, "127.0.0.1");
    EXPECT_EQ(node.rank, 0);
    EXPECT_TRUE(node.local);
    EXPECT_EQ(node.argv, (Words{"torchrun", "--nproc_per_node=4", "--nnodes=1", "--node_rank=0",
                                "--master_addr=127.0.0.1", "--master_port=29500", "train.py",
                                "--epochs", "3"}));
    EXPECT_EQ(
        node.environment,
        (std::vector<EnvVar>{{"NCCL_DEBUG", "INFO"}, {"PATH", "/bin"}, {"PYTHONUNBUFFERED", "1"}}));
    EXPECT_EQ(node.working_directory, "/work/job");
    EXPECT_EQ(node.ssh_port, std::nullopt);
    EXPECT_TRUE(plan.warnings.empty());
    EXPECT_EQ(plan.torch_version, std::nullopt);
}

TEST(MakePlan, HostfileGivesRanksNnodesAndTheFirstHostAsMaster) {
    Options options = basic();
    options.hostfile = "hosts";
    options.exclude = test::hosts("skip");
    test::given<SshLaunch>(options).ssh_port = Port{2222};
    Context ctx = context();
    ctx.hostfile_text = "me\nskip\nalice@node2 # remote\n[::1]\n";
    Plan plan = test::plan_of(options, ctx);
    ASSERT_EQ(plan.nodes.size(), 3u);
    Words hosts, addresses;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
        const NodeCommand& node = plan.nodes[i];
        EXPECT_EQ(node.rank, static_cast<int>(i));
        EXPECT_EQ(node.argv[2], "--nnodes=3");
        EXPECT_EQ(node.argv[3], "--node_rank=" + std::to_string(i));
        EXPECT_EQ(node.argv[4], "--master_addr=me");
        // Where the per-node words are, so that no transport searches them.
        EXPECT_EQ(node.words, (job::NodeWords{3, 4}));
        EXPECT_EQ(node.ssh_port, 2222);
        hosts.push_back(node.host);
        addresses.push_back(node.address);
    }
    EXPECT_EQ(hosts, (Words{"me", "alice@node2", "[::1]"}));
    EXPECT_EQ(addresses, (Words{"me", "node2", "::1"}));
    EXPECT_TRUE(plan.nodes[0].local);
    EXPECT_FALSE(plan.nodes[1].local);
    EXPECT_EQ(plan.nodes[1].user, "alice");
    EXPECT_FALSE(plan.nodes[2].local); // ::1 is not local to this fake machine
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(MakePlan, NprocPerNodeIsWrittenCanonically) {
    Options options = basic();
    options.nproc_per_node = test::nproc("08");
    EXPECT_EQ(test::plan_of(options, context()).nodes[0].argv[1], "--nproc_per_node=8");
}

TEST(MakePlan, AUserPartIsNeverLocal) {
    Options options = basic();
    options.host = test::hosts("root@localhost");
    EXPECT_FALSE(test::plan_of(options, context()).nodes[0].local);
}

TEST(MakePlan, MasterIsTheFirstHostWithoutUserOrBrackets) {
    Options options = basic();
    options.host = test::hosts("bob@[2001:db8::5],me");
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=2001:db8::5");
}

// An ssh config with `Host gpu*` / `HostName 10.9.9.<n>`, `Host me-alias` / `HostName localhost`.
std::string ssh_config_host_name(const std::string& alias) {
    if (alias.rfind("gpu", 0) == 0) {
        return "10.9.9." + alias.substr(3);
    }
    return alias == "me-alias" ? "localhost" : alias;
}

TEST(MakePlan, MasterIsTheHostNameOfAnSshConfigAlias) {
    Options options = basic();
    options.host = test::hosts("gpu1,alice@gpu2");
    Context ctx = context();
    ctx.host_name = ssh_config_host_name;
    Plan plan = test::plan_of(options, ctx);
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(node.argv[4], "--master_addr=10.9.9.1");
    }
    // SSH still connects to the alias: libssh applies the config's User, Port... for it.
    EXPECT_EQ(plan.nodes[0].address, "gpu1");
    EXPECT_EQ(plan.nodes[1].address, "gpu2");
}

// The default node (no host given) is this machine: no ssh config is read for it, and no
// lookup decides whether it is local.
TEST(MakePlan, TheDefaultNodeAsksTheSshConfigNothing) {
    Context ctx = context();
    std::vector<std::string> asked;
    ctx.host_name = [&](const std::string& alias) {
        asked.push_back(alias);
        return alias;
    };
    ctx.find_local = [&](const std::vector<std::string>& addresses) {
        asked.insert(asked.end(), addresses.begin(), addresses.end());
        return std::vector<bool>(addresses.size(), false);
    };
    Plan plan = test::plan_of(basic(), ctx);
    EXPECT_EQ(asked, Words{});
    ASSERT_EQ(plan.nodes.size(), 1u);
    EXPECT_TRUE(plan.nodes[0].local);
    EXPECT_EQ(plan.nodes[0].address, "127.0.0.1");

    // A host the user names is looked up, even this machine's loopback address.
    Options named = basic();
    named.host = test::hosts("127.0.0.1");
    test::plan_of(named, ctx);
    EXPECT_EQ(asked, (Words{"127.0.0.1", "127.0.0.1"}));
}

TEST(MakePlan, AHostNameThatIsNoHostIsRefused) {
    Options options = basic();
    options.host = test::hosts("gpu1,gpu2");
    Context ctx = context();
    ctx.host_name = [](const std::string&) { return std::string("-oProxyCommand=x"); };
    EXPECT_EQ(usage_message(options, ctx),
              "the ssh config's HostName for 'gpu1': invalid host '-oProxyCommand=x': starts "
              "with '-'");
}

TEST(MakePlan, LocalityIsDecidedOnTheHostName) {
    Options options = basic();
    options.host = test::hosts("me-alias,gpu2");
    Context ctx = context();
    ctx.host_name = ssh_config_host_name;
    std::vector<std::string> asked;
    ctx.find_local = [&](const std::vector<std::string>& addresses) {
        asked = addresses;
        return std::vector<bool>{true, false};
    };
    ctx.source_towards = [](const std::string&) {
        return std::optional<std::string>("10.9.9.100");
    };
    Plan plan = test::plan_of(options, ctx);
    EXPECT_EQ(asked, (Words{"localhost", "10.9.9.2"})); // one question for every host
    EXPECT_TRUE(plan.nodes[0].local);
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=10.9.9.100");
}

TEST(MakePlan, ALocalLoopbackNode0GivesRemoteNodesARoutableMaster) {
    Options options = basic();
    options.host = test::hosts("localhost,node1,node2");
    Context ctx = context();
    std::vector<std::string> towards;
    ctx.source_towards = [&](const std::string& address) {
        towards.push_back(address);
        return std::optional<std::string>("10.0.0.7");
    };
    Plan plan = test::plan_of(options, ctx);
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(node.argv[4], "--master_addr=10.0.0.7");
    }
    EXPECT_EQ(towards, Words{"node1"}); // the route to the first remote node
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(MakePlan, ALocalLoopbackNode0WithALinkLocalRouteIsRefused) {
    // fe80::/10 needs a scope, and the scope is this machine's interface: another node's may
    // have another name or index.
    Options options = basic();
    options.host = test::hosts("localhost,node1");
    Context ctx = context();
    ctx.source_towards = [](const std::string&) {
        return std::optional<std::string>("fe80::1%eth0");
    };
    EXPECT_EQ(test::error_message(Error::Kind::runtime, [&] { test::plan_of(options, ctx); }),
              "node 0 'localhost' is this machine, and its address on the way to 'node1' is "
              "the IPv6 link-local 'fe80::1%eth0', which other nodes cannot use as it is "
              "(its scope is this machine's interface); set --master_addr to an address "
              "every node can reach");
}

TEST(MakePlan, ALocalLoopbackNode0WithoutARouteIsRefused) {
    Options options = basic();
    options.host = test::hosts("127.0.0.1,node1");
    Context ctx = context();
    ctx.source_towards = [](const std::string&) { return std::optional<std::string>(); };
    EXPECT_EQ(test::error_message(Error::Kind::runtime, [&] { test::plan_of(options, ctx); }),
              "node 0 '127.0.0.1' is this machine, and no address of it on the way to "
              "'node1' was found (does 'node1' resolve?); set --master_addr to an address "
              "every node can reach");
}

TEST(MakePlan, ALoopbackNode0ReachedOverSshStillGetsARoutableMaster) {
    Options options = basic();
    options.host = test::hosts("root@localhost,127.0.0.2,node1");
    Context ctx = context();
    ctx.source_towards = [](const std::string& address) {
        EXPECT_EQ(address, "node1"); // the first node on another machine
        return std::optional<std::string>("10.0.0.7");
    };
    Plan plan = test::plan_of(options, ctx);
    EXPECT_FALSE(plan.nodes[0].local);
    EXPECT_EQ(plan.nodes[2].argv[4], "--master_addr=10.0.0.7");
}

TEST(MakePlan, AllLocalNodesKeepALoopbackMaster) {
    Options options = basic();
    options.host = test::hosts("localhost,root@127.0.0.1");
    Context ctx = context();
    ctx.source_towards = [](const std::string&) -> std::optional<std::string> {
        ADD_FAILURE() << "no route is needed";
        return std::nullopt;
    };
    EXPECT_EQ(test::plan_of(options, ctx).nodes[1].argv[4], "--master_addr=localhost");
}

TEST(MakePlan, ANamedLocalNode0StaysTheMaster) {
    Options options = basic();
    options.host = test::hosts("me,node1");
    EXPECT_EQ(test::plan_of(options, context()).nodes[1].argv[4], "--master_addr=me");
}

TEST(MakePlan, SlurmNeitherReadsTheSshConfigNorLooksUpHosts) {
    Options options = basic();
    options.host = test::hosts("gpu1,gpu2");
    options.engine = test::engine_named("slurm");
    Context ctx = context();
    ctx.host_name = [](const std::string& alias) -> std::string {
        ADD_FAILURE() << "ssh config read for " << alias;
        return alias;
    };
    ctx.find_local = [](const std::vector<std::string>&) -> std::vector<bool> {
        ADD_FAILURE() << "hosts looked up";
        return {};
    };
    Plan plan = test::plan_of(options, ctx);
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=gpu1");
    EXPECT_FALSE(plan.nodes[0].local);
}

TEST(MakePlan, OneRemoteNodeKeepsTheDefaultMaster) {
    Options options = basic();
    options.host = test::hosts("node9");
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.nodes[0].argv[4], "--master_addr=127.0.0.1");
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(MakePlan, ExplicitMasterIsKept) {
    Options options = basic();
    options.host = test::hosts("node1,node2");
    options.master_addr = MasterAddress{"10.1.1.1"};
    options.master_port = Port{1234};
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=10.1.1.1");
    EXPECT_EQ(plan.nodes[1].argv[5], "--master_port=1234");
    EXPECT_EQ(plan.nodes[1].words, (job::NodeWords{3, std::nullopt})); // not node 0's own name
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(MakePlan, WarnsAboutALoopbackMasterWithRemoteNodes) {
    Options options = basic();
    options.host = test::hosts("me,node2");
    options.master_addr = MasterAddress{"127.0.0.1"}; // given explicitly
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=127.0.0.1");
    EXPECT_EQ(plan.warnings,
              (Words{"--master_addr '127.0.0.1' is a loopback address: the nodes on other "
                     "machines (such as 'node2') cannot reach it"}));

    options.master_addr.reset();
    test::set_extra_launch_args(options, "master_addr=localhost");
    EXPECT_EQ(test::plan_of(options, context()).warnings,
              (Words{"--extra_launch_args master_addr 'localhost' is a loopback address: the "
                     "nodes on other machines (such as 'node2') cannot reach it"}));
}

TEST(MakePlan, NoWarningWhenEveryNodeIsLocal) {
    Options options = basic();
    options.host = test::hosts("localhost,127.0.0.1");
    options.master_addr = MasterAddress{"127.0.0.1"};
    EXPECT_TRUE(test::plan_of(options, context()).warnings.empty());
}

TEST(MakePlan, ExtraMasterArgsReplaceTheDefaultsInPlace) {
    Options options = basic();
    options.host = test::hosts("a,b");
    test::set_extra_launch_args(options,
                                "rdzv_conf=timeout=900,master_port=1234,master-addr=[::1],tee=1");
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.nodes[0].argv,
              (Words{"torchrun", "--nproc_per_node=4", "--nnodes=2", "--node_rank=0",
                     "--master_addr=::1", "--master_port=1234", "--rdzv_conf=timeout=900",
                     "--tee=1", "train.py", "--epochs", "3"}));
}

struct TorchCase {
    std::optional<std::string> raw;
    std::optional<std::string> shown;
    Words head;
};

TEST(MakePlan, ChoosesTheCommandFormByPyTorchVersion) {
    const std::vector<TorchCase> cases = {
        {"1.8.1+cu111", "1.8.1", {"/env/bin/python3", "-m", "torch.distributed.launch"}},
        {"1.9.0", "1.9.0", {"/env/bin/python3", "-m", "torch.distributed.run"}},
        {"1.10.2", "1.10.2", {"torchrun"}},
        {"2.1.0+cu121", "2.1.0", {"torchrun"}},
        {std::nullopt, std::nullopt, {"torchrun"}},
    };
    for (const TorchCase& c : cases) {
        Context ctx = context();
        ctx.python = "/env/bin/python3";
        ctx.torch_version = c.raw;
        Plan plan = test::plan_of(basic(), ctx);
        EXPECT_EQ(plan.torch_version, c.shown);
        Words head(plan.nodes[0].argv.begin(), plan.nodes[0].argv.begin() + c.head.size());
        EXPECT_EQ(head, c.head);
    }
}

TEST(MakePlan, PythonRunsTorchDistributedRunOnEveryNode) {
    // The form still follows that Python's PyTorch, where it was found here.
    const std::vector<TorchCase> cases = {
        {"1.8.1", "1.8.1", {"/opt/conda/bin/python", "-m", "torch.distributed.launch"}},
        {"1.9.0", "1.9.0", {"/opt/conda/bin/python", "-m", "torch.distributed.run"}},
        {"2.1.0", "2.1.0", {"/opt/conda/bin/python", "-m", "torch.distributed.run"}},
        {std::nullopt, std::nullopt, {"/opt/conda/bin/python", "-m", "torch.distributed.run"}},
    };
    for (const TorchCase& c : cases) {
        Options options = basic();
        options.python = "/opt/conda/bin/python";
        Context ctx = context();
        ctx.torch_version = c.raw;
        Plan plan = test::plan_of(options, ctx);
        Words head(plan.nodes[0].argv.begin(), plan.nodes[0].argv.begin() + c.head.size());
        EXPECT_EQ(head, c.head);
    }
}

TEST(MakePlan, EveryNodeChecksTheMasterAndTheInterfacesAndGetsTheirVariables) {
    Options options = basic();
    options.host = test::hosts("gpu1,gpu2");
    options.network_interface = test::interfaces("=eth0,ib0");
    Plan plan = test::plan_of(options, context());
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(node.preflight.master_address, "gpu1");
        EXPECT_EQ(node.preflight.interfaces, (Words{"eth0", "ib0"}));
        EXPECT_EQ(node.flag_environment, (std::vector<EnvVar>{{"NCCL_SOCKET_IFNAME", "=eth0,ib0"},
                                                              {"GLOO_SOCKET_IFNAME", "eth0,ib0"}}));
    }
    Plan plain = test::plan_of(basic(), context());
    EXPECT_EQ(plain.nodes[0].preflight.master_address, "127.0.0.1");
    EXPECT_TRUE(plain.nodes[0].preflight.interfaces.empty());
    EXPECT_TRUE(plain.nodes[0].flag_environment.empty());
}

TEST(MakePlan, EveryNodeChecksTheScriptUnlessItIsAModuleOrAProgram) {
    Plan plan = test::plan_of(basic(), context());
    EXPECT_EQ(plan.nodes[0].preflight.script, "train.py");
    Options module = basic();
    module.script = std::nullopt;
    module.module = "pkg.train";
    EXPECT_EQ(test::plan_of(module, context()).nodes[0].preflight.script, std::nullopt);
    for (const char* spelling : {"no_python", "no-python"}) {
        Options program = basic();
        program.script = "train.sh";
        program.extra_launch_args = parse_extra_launch_args(spelling);
        EXPECT_EQ(test::plan_of(program, context()).nodes[0].preflight.script, std::nullopt)
            << spelling;
    }
}

TEST(MakePlan, SeveralNodesCheckTheRendezvousFirst) {
    EXPECT_EQ(test::plan_of(basic(), context()).rendezvous, std::nullopt); // one node: no network
    Options options = basic();
    options.host = test::hosts("gpu1,gpu2");
    Plan plan = test::plan_of(options, context());
    ASSERT_TRUE(plan.rendezvous);
    const job::RendezvousPlan& check = *plan.rendezvous;
    EXPECT_EQ(check.listener, std::optional<std::size_t>(0));
    EXPECT_EQ(check.address, "gpu1");
    EXPECT_EQ(check.port, 29500);
    EXPECT_EQ(check.nodes, 2u);
    EXPECT_TRUE(check.own_name);
    EXPECT_FALSE(check.interface_given);
    EXPECT_EQ(check.token.size(), 16u);
    EXPECT_NE(check.token, test::plan_of(options, context()).rendezvous->token); // fresh per launch
    options.no_rendezvous_check = true;
    EXPECT_EQ(test::plan_of(options, context()).rendezvous, std::nullopt);
}

TEST(MakePlan, NodesOnThisMachineAloneAreOneMachine) {
    Options options = basic();
    options.host = test::hosts("127.0.0.1,127.0.0.2");
    options.network_interface = test::interfaces("lo");
    Plan plan = test::plan_of(options, context());
    ASSERT_TRUE(plan.rendezvous);
    EXPECT_FALSE(plan.rendezvous->own_name);
    EXPECT_TRUE(plan.rendezvous->interface_given);
    EXPECT_EQ(plan.rendezvous->address, "127.0.0.1");
}

TEST(MakePlan, ARendezvousEndpointIsServedByItsNodeOrOnlyConnectedTo) {
    Options options = basic();
    options.host = test::hosts("gpu1,gpu2");
    options.elastic.rdzv_endpoint = RdzvEndpoint{"gpu2", 29400};
    Plan plan = test::plan_of(options, context());
    ASSERT_TRUE(plan.rendezvous);
    EXPECT_EQ(plan.rendezvous->listener, std::optional<std::size_t>(1));
    EXPECT_EQ(plan.rendezvous->address, "gpu2");
    EXPECT_EQ(plan.rendezvous->port, 29400);
    options.elastic.rdzv_endpoint = RdzvEndpoint{"store.example", 29400};
    EXPECT_EQ(test::plan_of(options, context()).rendezvous->listener, std::nullopt);
    options.elastic.rdzv_endpoint = RdzvEndpoint{"gpu1", 2379};
    options.elastic.rdzv_backend = RdzvBackend::etcd;
    EXPECT_EQ(test::plan_of(options, context()).rendezvous->listener, std::nullopt);
}

TEST(MakePlan, AnUnreadableTorchVersionIsAssumedCurrentWithAWarning) {
    Context ctx = context();
    ctx.python = "/env/bin/python3";
    ctx.torch_version = "unknown";
    ctx.warnings = {"from discovery"};
    Plan plan = test::plan_of(basic(), ctx);
    EXPECT_EQ(plan.nodes[0].argv[0], "torchrun");
    EXPECT_EQ(plan.torch_version, std::nullopt);
    EXPECT_EQ(plan.warnings,
              (Words{"from discovery", "cannot read the PyTorch version 'unknown'; assuming "
                                       "PyTorch >= 2.0 (torchrun)"}));
}

// -m and --nproc_per_node gpu/auto go wherever the form of that PyTorch takes them, with and
// without --python (torch_forms.hpp); a gate names the first PyTorch that takes it.
TEST(MakePlan, ModuleAndSymbolicNprocFollowWhatTheFormAccepts) {
    Options module = basic();
    module.script.reset();
    module.module = "pkg.train";
    Options gpu = basic();
    gpu.nproc_per_node = test::nproc("gpu");
    Context ctx = context();
    ctx.python = "/env/bin/python3";
    for (bool python : {false, true}) {
        module.python = gpu.python =
            python ? std::optional<std::string>("/env/bin/python3") : std::nullopt;
        for (const char* version : {"1.9.0", "1.13.0a0", "2.0.0a0+git", "2.5.1"}) {
            ctx.torch_version = version;
            Words argv = test::plan_of(module, ctx).nodes[0].argv;
            Words tail(argv.end() - 4, argv.end());
            EXPECT_EQ(tail, (Words{"-m", "pkg.train", "--epochs", "3"})) << version;
            Words gpu_argv = test::plan_of(gpu, ctx).nodes[0].argv;
            EXPECT_EQ(gpu_argv[gpu_argv[0] == "torchrun" ? 1 : 3], "--nproc_per_node=gpu")
                << version;
        }
        ctx.torch_version = "1.8.1";
        EXPECT_EQ(test::plan_of(module, ctx).nodes[0].argv[2], "torch.distributed.launch");
        EXPECT_EQ(usage_message(gpu, ctx),
                  "--nproc_per_node gpu needs PyTorch 1.9 or newer (found 1.8.1: python -m "
                  "torch.distributed.launch)");
        ctx.torch_version = "1.2.0";
        EXPECT_EQ(
            usage_message(module, ctx),
            "-m needs PyTorch 1.3 or newer (found 1.2.0: python -m torch.distributed.launch)");
    }
    ctx.torch_version = "1.13.1";
    module.python.reset();
    EXPECT_EQ(test::plan_of(module, ctx).nodes[0].argv,
              (Words{"torchrun", "--nproc_per_node=4", "--nnodes=1", "--node_rank=0",
                     "--master_addr=127.0.0.1", "--master_port=29500", "-m", "pkg.train",
                     "--epochs", "3"}));
}

// The launcher's own PyTorch 1.9-1.13 on Python 3.11+: one notice, with the least change; the
// command stays as asked.
// Issue #40: a remote node reads its own pair (the launcher's versions are not its), a local node
// does not (the plan's notice covers it), and none does where the pair cannot stop the launch.
TEST(MakePlan, RemoteNodesReadTheirOwnPyTorchAndPythonPair) {
    Options options = basic();
    options.host = test::hosts("127.0.0.1,192.0.2.11");
    options.master_addr = MasterAddress{"192.0.2.11"};
    Plan plan = test::plan_of(options, context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_FALSE(plan.nodes[0].preflight.torch_pair); // local
    ASSERT_TRUE(plan.nodes[1].preflight.torch_pair);
    EXPECT_EQ(plan.nodes[1].preflight.torch_pair->interpreter, job::TorchInterpreter::shebang);
    EXPECT_EQ(plan.nodes[1].preflight.torch_pair->launcher, "torchrun");
    options.extra_launch_args = parse_extra_launch_args("redirects=9:1,tee=9:1");
    EXPECT_FALSE(test::plan_of(options, context()).nodes[1].preflight.torch_pair);
    Options srun = basic();
    srun.engine = test::engine_named("slurm");
    srun.host = test::hosts("node1,node2");
    for (const NodeCommand& node : test::plan_of(srun, context()).nodes) {
        EXPECT_TRUE(node.preflight.torch_pair) << node.host;
    }
}

TEST(MakePlan, ABrokenPyTorchAndPythonPairEarnsANotice) {
    Context ctx = context();
    ctx.torch_version = "1.13.0a0";
    ctx.python_version = "3.11.2";
    Plan plan = test::plan_of(basic(), ctx);
    ASSERT_EQ(plan.notices.size(), 1u);
    EXPECT_EQ(plan.notices[0],
              "PyTorch 1.13 on Python 3.11: torchrun stops before any worker starts (torch's "
              "to_std loses --redirects/--tee 0 and 3 on Python 3.11+, fixed in PyTorch 2.0); "
              "--extra_launch_args redirects=9:1,tee=9:1 avoids it, leaving the streams "
              "untouched, for up to 9 processes per node");
    EXPECT_EQ(plan.nodes[0].argv, test::plan_of(basic(), context()).nodes[0].argv);
    Options fixed = basic();
    fixed.extra_launch_args = parse_extra_launch_args("redirects=9:1,tee=9:1");
    EXPECT_TRUE(test::plan_of(fixed, ctx).notices.empty());
    // This machine's versions go with a node that runs here: not with remote nodes alone, nor
    // srun's tasks.
    Options remote = basic();
    remote.host = test::hosts("192.0.2.10,192.0.2.11");
    EXPECT_TRUE(test::plan_of(remote, ctx).notices.empty());
    remote.host = test::hosts("127.0.0.1,192.0.2.11");
    remote.master_addr = MasterAddress{"192.0.2.11"};
    EXPECT_EQ(test::plan_of(remote, ctx).notices.size(), 1u);
    remote.master_addr.reset();
    remote.engine = test::engine_named("slurm");
    remote.host = test::hosts("node1,node2");
    EXPECT_TRUE(test::plan_of(remote, ctx).notices.empty());
    ctx.python_version = "3.10.12";
    EXPECT_TRUE(test::plan_of(basic(), ctx).notices.empty());
    ctx.python_version.reset();
    EXPECT_TRUE(test::plan_of(basic(), ctx).notices.empty());
}

TEST(MakePlan, ReportsHostfileAndSelectionProblems) {
    Options options = basic();
    options.hostfile = "cluster.txt";
    Context ctx = context();
    ctx.hostfile_text = "a\nb\na\n";
    EXPECT_EQ(usage_message(options, ctx), "cluster.txt:3: duplicate host 'a' (first at line 1)");
    ctx.hostfile_text = "# nothing\n";
    EXPECT_EQ(usage_message(options, ctx), "cluster.txt: no hosts in the hostfile");
    ctx.hostfile_text = "a\nb\n";
    options.include = test::hosts("c");
    EXPECT_EQ(usage_message(options, ctx),
              "--include: host 'c' is not in the hostfile cluster.txt");
    options.include.reset();
    options.num_nodes = 3;
    EXPECT_EQ(usage_message(options, ctx), "--num_nodes '3': only 2 hosts available");
}

TEST(MakePlan, HostfileSlotsGiveNprocPerNodeAfterSelection) {
    Options options = basic();
    options.nproc_per_node.reset();
    options.hostfile = "hosts";
    options.exclude = test::hosts("big");
    Context ctx = context();
    ctx.hostfile_text = "n[1-2] slots=2\nbig slots=8\n";
    Plan plan = test::plan_of(options, ctx);
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.nodes[1].argv[1], "--nproc_per_node=2");
    EXPECT_EQ(plan.nodes[1].host, "n2");
    options.exclude.reset();
    EXPECT_EQ(usage_message(options, ctx),
              "slots differ in the hostfile hosts: 'n1' has slots=2, 'big' has slots=8; torchrun "
              "runs the same number of processes on every node (give --nproc_per_node, or make "
              "them equal)");
    options.nproc_per_node = test::nproc("gpu");
    options.exclude = test::hosts("big");
    EXPECT_EQ(usage_message(options, ctx),
              "--nproc_per_node gpu and slots=2 for 'n1' in the hostfile hosts: keep one");
    ctx.hostfile_text = "n1\nn2\n";
    options.exclude.reset();
    EXPECT_EQ(test::plan_of(options, ctx).nodes[0].argv[1], "--nproc_per_node=gpu");
}

TEST(MakePlan, EscapesTheHostfileNameInMessages) {
    Options options = basic();
    options.hostfile = "my\nhosts";
    options.include = test::hosts("n9");
    Context ctx = context();
    ctx.hostfile_text = "n1\n";
    EXPECT_EQ(usage_message(options, ctx),
              "--include: host 'n9' is not in the hostfile my\\x0ahosts");
    options.include.reset();
    options.exclude = test::hosts("n1");
    options.hostfile = "h\xff";
    EXPECT_EQ(usage_message(options, ctx), "--exclude: no host of the hostfile h\\xff is left");
}

// Every node gets the same environment: one list that the nodes share, not a copy per node
// (100,000 nodes; bench/hosts_scale.sh).
TEST(MakePlan, TheNodesShareOneEnvironment) {
    Options options = basic();
    options.host = test::hosts("me,node2,node3");
    options.exports = test::exports({"A=1"});
    const Plan plan = test::plan_of(options, context());
    ASSERT_EQ(plan.nodes.size(), 3u);
    EXPECT_FALSE(plan.nodes[0].environment.empty());
    EXPECT_TRUE(plan.nodes[1].environment.shares_with(plan.nodes[0].environment));
    EXPECT_TRUE(plan.nodes[2].environment.shares_with(plan.nodes[0].environment));
}

// --env-file, -x and --env-exclude reach every node's command: the remote environment has
// them, and each node carries the changes for a local start (and for srun).
TEST(MakePlan, EnvironmentFlagsChangeEveryNodesEnvironment) {
    Options options = basic();
    options.host = test::hosts("me,node2");
    options.exports = test::exports({"A=1"});
    options.env_exclude = {{"NCCL_*", true}};
    Context ctx = context();
    ctx.env_files = {{"/work/job/.colossalai_env", "FROM_FILE=yes\n"}};
    Plan plan = test::plan_of(options, ctx);
    ASSERT_EQ(plan.nodes.size(), 2u);
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(
            node.environment,
            (std::vector<EnvVar>{
                {"A", "1"}, {"FROM_FILE", "yes"}, {"PATH", "/bin"}, {"PYTHONUNBUFFERED", "1"}}));
        EXPECT_EQ(node.environment_changes.set,
                  (std::vector<EnvSetting>{{"A", "1", "-x"},
                                           {"FROM_FILE", "yes", "/work/job/.colossalai_env:1"}}));
        EXPECT_EQ(node.environment_changes.dropped, (Words{"NCCL_DEBUG"}));
    }
    // The default file (no --env-file) is named once before anything starts.
    EXPECT_EQ(plan.notices,
              (Words{"setting the variables of /work/job/.colossalai_env on every node"}));
    options.env_files = {"/work/job/.colossalai_env"};
    EXPECT_TRUE(test::plan_of(options, ctx).notices.empty());
}

TEST(MakePlan, ABadEnvironmentFlagIsAUsageError) {
    Options options = basic();
    options.exports = test::exports({"UNSET_HERE"});
    EXPECT_EQ(usage_message(options, context()),
              "-x: 'UNSET_HERE' is not set in the launcher's environment (use -x "
              "UNSET_HERE=VALUE)");
    options.exports = {};
    Context ctx = context();
    ctx.env_files = {{"e", "ok=1\nnot ok\n"}};
    EXPECT_EQ(usage_message(options, ctx), "e:2: expected NAME=VALUE, found 'not ok'");
}

// PYTHONUNBUFFERED=1 on every node (so that output streams line by line through the pipes),
// decided from the launcher's environment as prepare() read it: a value of the user's, even
// an empty one, is kept, as is what -x and --env-exclude say about it.
TEST(MakePlan, PythonUnbufferedIsOneUnlessTheUserSetIt) {
    Plan plan = test::plan_of(basic(), context());
    EXPECT_EQ(plan.launcher_environment,
              (Words{"PATH=/bin", "PWD=/elsewhere", "NCCL_DEBUG=INFO", "PYTHONUNBUFFERED=1"}));

    for (std::string value : {"0", ""}) {
        Context ctx = context();
        ctx.environment.push_back("PYTHONUNBUFFERED=" + value);
        plan = test::plan_of(basic(), ctx);
        EXPECT_EQ(plan.launcher_environment, ctx.environment) << value;
        ASSERT_EQ(plan.nodes.size(), 1u);
        EXPECT_EQ(plan.nodes[0].environment.back(), (EnvVar{"PYTHONUNBUFFERED", value})) << value;
    }

    Options options = basic();
    options.host = test::hosts("me,node2");
    options.exports = test::exports({"PYTHONUNBUFFERED=0"});
    plan = test::plan_of(options, context());
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(node.environment.back(), (EnvVar{"PYTHONUNBUFFERED", "0"})); // -x wins
    }
    options.exports = {};
    options.env_exclude = {{"PYTHON*", true}};
    plan = test::plan_of(options, context());
    for (const NodeCommand& node : plan.nodes) {
        EXPECT_EQ(node.environment.back(), (EnvVar{"PATH", "/bin"})); // a node keeps its own
        EXPECT_EQ(node.environment_changes.dropped, (Words{"PYTHONUNBUFFERED"}));
    }
}

// The launcher's timings and SSH policy travel in the plan, the policy in its launch intent:
// launch::execute reads nothing else.
TEST(MakePlan, CarriesTheTimingsAndTheHostKeyPolicy) {
    Options options = basic();
    options.kill_grace = std::chrono::milliseconds(2500);
    options.ssh_timeout = std::chrono::milliseconds(7000);
    options.strict_host_key_checking = job::HostKeyPolicy::accept_new;
    Plan plan = test::plan_of(options, context());
    EXPECT_EQ(plan.timings,
              (Timings{std::chrono::milliseconds(2500), std::chrono::milliseconds(7000)}));
    EXPECT_EQ(plan.launch, LaunchIntent(SshLaunch{job::HostKeyPolicy::accept_new}));
    test::given<SshLaunch>(options).ssh_client =
        SshClient::openssh; // --ssh-client: the client, a value of the intent
    EXPECT_EQ(test::plan_of(options, context()).launch,
              LaunchIntent(SshLaunch{job::HostKeyPolicy::accept_new, SshClient::openssh}));
    EXPECT_EQ(std::get<SshLaunch>(test::plan_of(basic(), context()).launch).ssh_client,
              SshClient::libssh);
    EXPECT_FALSE(plan.report_resources);
    EXPECT_EQ(test::plan_of(basic(), context()).timings, Timings{});

    Context ctx = context();
    ctx.environment.push_back("COLOSSALAI_TIMING=1");
    EXPECT_TRUE(test::plan_of(basic(), ctx).report_resources);
    ctx.environment.back() = "COLOSSALAI_TIMING=";
    EXPECT_FALSE(test::plan_of(basic(), ctx).report_resources);
}

// Issue #24, inside an allocation: the launcher's own Slurm task and node identity reaches no
// other node over SSH (each would take itself for the launcher's), the job's variables do; a
// local node keeps the launcher's whole environment, and -x still passes one on when asked.
TEST(MakePlan, TheLaunchersSlurmIdentityReachesNoOtherNode) {
    Options options = basic();
    options.host = test::hosts("localhost,node2");
    Context ctx = context();
    ctx.find_local = test::find_local_by([](std::string_view host) { return host == "localhost"; });
    ctx.source_towards = [](const std::string&) { return std::optional<std::string>("10.0.0.1"); };
    ctx.environment = {"PATH=/bin",           "SLURM_JOB_ID=7",       "SLURM_JOB_NODELIST=n[1-2]",
                       "SLURM_NODEID=0",      "SLURM_PROCID=0",       "SLURM_LOCALID=0",
                       "SLURMD_NODENAME=n1",  "SLURM_STEP_ID=0",      "SLURM_TASK_PID=42",
                       "SLURM_GTIDS=0",       "SLURM_CPU_BIND=quiet", "SLURM_TOPOLOGY_ADDR=n1",
                       "SLURM_CPUS_ON_NODE=8"};
    Plan plan = test::plan_of(options, ctx);
    ASSERT_EQ(plan.nodes.size(), 2u);
    const NodeCommand& remote = plan.nodes[1];
    EXPECT_EQ(remote.environment, (std::vector<EnvVar>{{"PATH", "/bin"},
                                                       {"PYTHONUNBUFFERED", "1"},
                                                       {"SLURM_JOB_ID", "7"},
                                                       {"SLURM_JOB_NODELIST", "n[1-2]"}}));
    EXPECT_EQ(remote.withheld_environment,
              (Words{"SLURMD_NODENAME", "SLURM_CPUS_ON_NODE", "SLURM_CPU_BIND", "SLURM_GTIDS",
                     "SLURM_LOCALID", "SLURM_NODEID", "SLURM_PROCID", "SLURM_STEP_ID",
                     "SLURM_TASK_PID", "SLURM_TOPOLOGY_ADDR"}));
    EXPECT_TRUE(plan.nodes[0].local);
    EXPECT_TRUE(plan.nodes[0].withheld_environment.empty());

    options.exports = test::exports({"SLURM_PROCID"});
    Plan asked = test::plan_of(options, ctx);
    EXPECT_NE(std::find(asked.nodes[1].environment.begin(), asked.nodes[1].environment.end(),
                        EnvVar{"SLURM_PROCID", "0"}),
              asked.nodes[1].environment.end());
}

TEST(MakePlan, KeepsTheLogDirectory) {
    Context ctx = context();
    ctx.log_dir = "/work/job/logs";
    EXPECT_EQ(test::plan_of(basic(), ctx).log_dir, "/work/job/logs");
    EXPECT_EQ(test::plan_of(basic(), context()).log_dir, std::nullopt);
}

} // namespace
} // namespace colossalai::run
