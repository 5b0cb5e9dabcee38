// `colossalai run --dry-run`: the exact plan on stdout, nothing started.

#include "fixture.hpp"

#include <string>
#include <vector>

namespace colossalai::test {
namespace {

// Several local nodes check the rendezvous first: node 0 listens, the others connect to `master`.
std::string rendezvous_check_line(const std::string& master) {
    return "rendezvous check: node 0 listens on port 29500, the others connect to " + master +
           " port 29500 before the jobs start (--no-rendezvous-check: none)\n";
}

class RunDryRun : public RunLocal {
protected:
    // Runs with --dry-run and expects success, no warning and nothing started.
    std::string dry_run(const Words& args) {
        Words words = {"--dry-run"};
        words.insert(words.end(), args.begin(), args.end());
        RunResult result = run_colossalai_run(words);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.err, "");
        EXPECT_FALSE(torchrun_called());
        return result.out;
    }

    std::string cwd() const { return job().string(); }
};

TEST_F(RunDryRun, OneLocalNodeByDefault) {
    EXPECT_EQ(dry_run({"--nproc_per_node", "2", "train.py"}),
              "dry run: 1 node, PyTorch not found (assuming >= 2.0)\n"
              "[node 0] 127.0.0.1 (local) cwd=" +
                  cwd() +
                  "\n"
                  "    torchrun --nproc_per_node=2 --nnodes=1 --node_rank=0 "
                  "--master_addr=127.0.0.1 --master_port=29500 train.py\n");
}

TEST_F(RunDryRun, HostfileWithTwoLocalNames) {
    write_file(job() / "hosts", "# two names of this machine\nlocalhost\r\n  127.0.0.1  # me\n");
    set_torch("2.1.0+cu121");
    std::string line = "    torchrun --nproc_per_node=4 --nnodes=2 --node_rank={} "
                       "--master_addr=localhost --master_port=29500 train.py --epochs 1\n";
    auto command = [&](int rank) {
        std::string text = line;
        text.replace(text.find("{}"), 2, std::to_string(rank));
        return text;
    };
    EXPECT_EQ(
        dry_run({"--hostfile", "hosts", "--nproc_per_node", "4", "train.py", "--epochs", "1"}),
        "dry run: 2 nodes, PyTorch 2.1.0\n" + rendezvous_check_line("localhost") +
            "[node 0] localhost (local) cwd=" + cwd() + "\n" + command(0) +
            "[node 1] 127.0.0.1 (local) cwd=" + cwd() + "\n" + command(1));
}

TEST_F(RunDryRun, HostListWithRemoteHostsAndSshPort) {
    // TEST-NET addresses: numeric, so deciding that they are remote sends no packet. This
    // machine among remote hosts takes its part in the rendezvous check too.
    EXPECT_EQ(dry_run({"-H", "192.0.2.10,localhost,alice@192.0.2.11", "--ssh-port", "2222",
                       "--nproc_per_node", "1", "t.py"}),
              "dry run: 3 nodes, PyTorch not found (assuming >= 2.0)\n" +
                  rendezvous_check_line("192.0.2.10") +
                  "[node 0] 192.0.2.10 (ssh port 2222) cwd=" + cwd() +
                  "\n"
                  "    torchrun --nproc_per_node=1 --nnodes=3 --node_rank=0 "
                  "--master_addr=192.0.2.10 --master_port=29500 t.py\n"
                  "[node 1] localhost (local) cwd=" +
                  cwd() +
                  "\n"
                  "    torchrun --nproc_per_node=1 --nnodes=3 --node_rank=1 "
                  "--master_addr=192.0.2.10 --master_port=29500 t.py\n"
                  "[node 2] alice@192.0.2.11 (ssh port 2222) cwd=" +
                  cwd() +
                  "\n"
                  "    torchrun --nproc_per_node=1 --nnodes=3 --node_rank=2 "
                  "--master_addr=192.0.2.10 --master_port=29500 t.py\n");
}

TEST_F(RunDryRun, LoopbackMasterWithARemoteNodeIsWarnedAbout) {
    RunResult result =
        run_colossalai_run({"--dry-run", "-host=localhost,192.0.2.10", "--master_addr", "127.0.0.1",
                            "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.err, "colossalai: warning: --master_addr '127.0.0.1' is a loopback address: "
                          "the nodes on other machines (such as '192.0.2.10') cannot reach it\n");
    EXPECT_NE(result.out.find("[node 1] 192.0.2.10 (ssh) cwd="), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("--master_addr=127.0.0.1 --master_port=29500 t.py\n"),
              std::string::npos)
        << result.out;
}

TEST_F(RunDryRun, NetworkInterfaceVariablesAreListedPerNode) {
    // Numeric TEST-NET address: remote without a lookup; --network-interface wins over -x.
    std::string out = dry_run({"-H", "localhost,192.0.2.10", "-x", "NCCL_SOCKET_IFNAME=eth9",
                               "--network-interface", "lo", "--master_addr", "192.0.2.1",
                               "--nproc_per_node", "1", "t.py"});
    std::string variables = "    env NCCL_SOCKET_IFNAME=lo  (--network-interface, over -x)\n"
                            "    env GLOO_SOCKET_IFNAME=lo  (--network-interface)\n";
    size_t node1 = out.find("[node 1]");
    ASSERT_NE(node1, std::string::npos) << out;
    EXPECT_NE(out.substr(0, node1).find(variables), std::string::npos) << out;
    EXPECT_NE(out.find(variables, node1), std::string::npos) << out;
    EXPECT_EQ(out.find("eth9"), std::string::npos) << out; // overridden: not what the node gets
}

// The hosts of each node, in rank order, from the dry-run text.
std::vector<std::string> hosts_of(const std::string& out) {
    std::vector<std::string> hosts;
    for (size_t at = out.find("[node "); at != std::string::npos; at = out.find("[node ", at + 1)) {
        size_t start = out.find("] ", at) + 2;
        hosts.push_back(out.substr(start, out.find(' ', start) - start));
    }
    return hosts;
}

struct SelectionCase {
    std::vector<std::string> options;
    std::vector<std::string> hosts;
    std::string nnodes;
};

TEST_F(RunDryRun, IncludeExcludeAndNumNodes) {
    write_file(job() / "hosts", "127.0.0.1\n127.0.0.2\n127.0.0.3\n127.0.0.4\n127.0.0.5\n");
    const std::vector<SelectionCase> cases = {
        {{}, {"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}, "5"},
        {{"--include", "127.0.0.4,127.0.0.2"}, {"127.0.0.4", "127.0.0.2"}, "2"},
        {{"--exclude", "127.0.0.4,127.0.0.2"}, {"127.0.0.1", "127.0.0.3", "127.0.0.5"}, "3"},
        {{"--num_nodes", "2"}, {"127.0.0.1", "127.0.0.2"}, "2"},
        {{"--exclude", "127.0.0.1", "--num_nodes", "2"}, {"127.0.0.2", "127.0.0.3"}, "2"},
        {{"--include", "127.0.0.5,127.0.0.1,127.0.0.3", "--num_nodes", "2"},
         {"127.0.0.5", "127.0.0.1"},
         "2"},
        {{"--num_nodes", "-1"},
         {"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"},
         "5"},
    };
    for (const SelectionCase& c : cases) {
        Words args = {"--hostfile", "hosts", "--nproc_per_node", "1"};
        args.insert(args.end(), c.options.begin(), c.options.end());
        args.emplace_back("t.py");
        std::string out = dry_run(args);
        EXPECT_EQ(hosts_of(out), c.hosts) << out;
        std::string first = "--nnodes=" + c.nnodes + " --node_rank=0 --master_addr=" + c.hosts[0] +
                            " --master_port=29500 t.py\n";
        EXPECT_NE(out.find(first), std::string::npos) << out;
    }
}

// GPU indices: each node's GPUs, its process count and its CUDA_VISIBLE_DEVICES.
TEST_F(RunDryRun, GpuSelectionShowsEachNodesDevicesAndProcesses) {
    write_file(job() / "hosts", "localhost slots=2\n127.0.0.1 slots=4\n");
    std::string command = "    torchrun --nproc_per_node={} --nnodes=2 --node_rank={} "
                          "--master_addr=localhost --master_port=29500 train.py\n";
    // One node of the plan: its GPUs, its process count, its command, its CUDA_VISIBLE_DEVICES.
    auto node = [&](int rank, const std::string& host, const std::string& gpus, int nproc,
                    const std::string& processes) {
        std::string text = command;
        text.replace(text.find("{}"), 2, std::to_string(nproc));
        text.replace(text.find("{}"), 2, std::to_string(rank));
        return "[node " + std::to_string(rank) + "] " + host + " (local) cwd=" + cwd() +
               "\n    GPUs " + gpus + ": " + processes + "\n" + text +
               "    env CUDA_VISIBLE_DEVICES=" + gpus + "  (the GPU selection)\n";
    };
    const std::string header = "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n" +
                               rendezvous_check_line("localhost");
    EXPECT_EQ(dry_run({"--hostfile", "hosts", "--include", "localhost:1@127.0.0.1", "train.py"}),
              header + node(0, "localhost", "1", 1, "1 process") +
                  node(1, "127.0.0.1", "0,1,2,3", 4, "4 processes"));
    EXPECT_EQ(dry_run({"--hostfile", "hosts", "--exclude", "127.0.0.1:0,2", "train.py"}),
              header + node(0, "localhost", "0,1", 2, "2 processes") +
                  node(1, "127.0.0.1", "1,3", 2, "2 processes"));
}

struct TorchCase {
    std::string version;
    std::string shown;
    std::string extra;   // --extra_launch_args: an option that form of that version takes
    std::string command; // {python} stands for the venv's interpreter
};

// The extra launch args go where each form reads them: torch.distributed.launch below 1.9 has
// --use_env but no --redirects/--tee (run/torch_forms.hpp); with both streams given values that
// avoid 0 and 3, PyTorch 1.9-1.13 earn no notice.
TEST_F(RunDryRun, EachPyTorchVersionHasItsCommandForm) {
    const std::vector<TorchCase> cases = {
        {"1.8.1+cu111", "1.8.1", "use_env",
         "{python} -m torch.distributed.launch --nproc_per_node=2 --master_addr=127.0.0.1 "
         "--master_port=29500 --nnodes=1 --node_rank=0 --use_env train.py"},
        {"1.9.0", "1.9.0", "redirects=1,tee=1",
         "{python} -m torch.distributed.run --nproc_per_node=2 --nnodes=1 --node_rank=0 "
         "--master_addr=127.0.0.1 --master_port=29500 --redirects=1 --tee=1 train.py"},
        {"1.13.1+cu117", "1.13.1", "redirects=1,tee=1",
         "torchrun --nproc_per_node=2 --nnodes=1 --node_rank=0 --master_addr=127.0.0.1 "
         "--master_port=29500 --redirects=1 --tee=1 train.py"},
        {"2.3.0a0+git1234", "2.3.0a0", "tee=1",
         "torchrun --nproc_per_node=2 --nnodes=1 --node_rank=0 --master_addr=127.0.0.1 "
         "--master_port=29500 --tee=1 train.py"},
    };
    for (const TorchCase& c : cases) {
        set_torch(c.version);
        std::string command = c.command;
        if (size_t at = command.find("{python}"); at != std::string::npos) {
            command.replace(at, 8, venv_python());
        }
        EXPECT_EQ(dry_run({"--nproc_per_node", "2", "--extra_launch_args", c.extra, "train.py"}),
                  "dry run: 1 node, PyTorch " + c.shown +
                      "\n[node 0] 127.0.0.1 (local) cwd=" + cwd() + "\n    " + command + "\n");
    }
}

TEST_F(RunDryRun, ModuleAndInPlaceMasterArgsWithPyTorch2) {
    set_torch("2.1.0");
    EXPECT_EQ(dry_run({"--nproc_per_node", "8", "--extra_launch_args",
                       "rdzv_conf=timeout=900,master_port=1234,master_addr=localhost", "-m",
                       "pkg.train", "--config", "c.yaml"}),
              "dry run: 1 node, PyTorch 2.1.0\n[node 0] 127.0.0.1 (local) cwd=" + cwd() +
                  "\n    torchrun --nproc_per_node=8 --nnodes=1 --node_rank=0 "
                  "--master_addr=localhost --master_port=1234 --rdzv_conf=timeout=900 -m "
                  "pkg.train --config c.yaml\n");
}

TEST_F(RunDryRun, ScriptArgumentsAreQuotedExactly) {
    EXPECT_EQ(dry_run({"--nproc_per_node", "1", "train.py", "--name", "my run", "it's",
                       "$(touch pwned)", "`id`", "a;b", "", "--master_port", "1", "-H", "x"}),
              "dry run: 1 node, PyTorch not found (assuming >= 2.0)\n"
              "[node 0] 127.0.0.1 (local) cwd=" +
                  cwd() +
                  "\n"
                  "    torchrun --nproc_per_node=1 --nnodes=1 --node_rank=0 "
                  "--master_addr=127.0.0.1 --master_port=29500 train.py --name 'my run' "
                  "'it'\\''s' '$(touch pwned)' '`id`' 'a;b' '' --master_port 1 -H x\n");
    EXPECT_FALSE(std::filesystem::exists(job() / "pwned"));
}

TEST_F(RunDryRun, ThePrintedCommandRunsWithExactlyTheWordsGiven) {
    Words script_args = {"two words", "it's",    "\"dq\"",     "$HOME",       "$(touch pwned)",
                         "`id`",      "a;b|c&d", "",           "back\\slash", "line\nbreak",
                         "*",         "~",       "caf\xc3\xa9"};
    Words args = {"--nproc_per_node", "1", "train.py"};
    args.insert(args.end(), script_args.begin(), script_args.end());
    std::string out = dry_run(args);
    // The command is the indented text after the node's header line, up to the final newline.
    size_t start = out.find("\n    ", out.find("[node 0]")) + 5;
    std::string command = out.substr(start, out.size() - start - 1);
    RunOptions shell;
    shell.env =
        std::map<std::string, std::string>{{"PATH", (m_dir / "bin").string() + ":/usr/bin:/bin"}};
    shell.cwd = job();
    RunResult ran = run({"/bin/sh", "-c", command}, shell);
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    Words expected = {"--nproc_per_node=1",      "--nnodes=1",          "--node_rank=0",
                      "--master_addr=127.0.0.1", "--master_port=29500", "train.py"};
    expected.insert(expected.end(), script_args.begin(), script_args.end());
    std::string joined;
    for (const std::string& word : expected) {
        joined += word;
        joined += '\0';
    }
    EXPECT_EQ(read_file(record()), joined);
    EXPECT_FALSE(std::filesystem::exists(job() / "pwned"));
}

// A DeepSpeed-style hostfile with ranges and slots: the slots give --nproc_per_node.
TEST_F(RunDryRun, HostRangesAndSlotsFromAHostfile) {
    write_file(job() / "hosts", "# DeepSpeed style\n127.0.0.[1-2] slots=3  # two nodes\n");
    std::string out = dry_run({"--hostfile", "hosts", "t.py"});
    EXPECT_NE(out.find("[node 1] 127.0.0.2 (local)"), std::string::npos) << out;
    EXPECT_NE(out.find("torchrun --nproc_per_node=3 --nnodes=2 --node_rank=1 "
                       "--master_addr=127.0.0.1 "),
              std::string::npos)
        << out;
    out = dry_run({"-H", "127.0.0.[1-2],localhost", "--nproc_per_node", "gpu", "t.py"});
    EXPECT_NE(out.find("[node 2] localhost (local)"), std::string::npos) << out;
    EXPECT_NE(out.find("torchrun --nproc_per_node=gpu --nnodes=3 --node_rank=2 "),
              std::string::npos)
        << out;
}

// Inside a batch job the hosts come from the scheduler: a notice on stderr says so, and the
// selection options apply to them.
TEST_F(RunDryRun, HostsFromASlurmAllocation) {
    Env env = launcher_env();
    env["SLURM_JOB_NODELIST"] = "127.0.0.[1-3]";
    RunResult result = run_colossalai_run(
        {"--dry-run", "--exclude", "127.0.0.2", "--nproc_per_node", "1", "t.py"}, env);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "colossalai: using 2 of the 3 hosts of the Slurm allocation "
                          "(SLURM_JOB_NODELIST=127.0.0.[1-3])\n");
    auto command = [](int rank) {
        return "    torchrun --nproc_per_node=1 --nnodes=2 --node_rank=" + std::to_string(rank) +
               " --master_addr=127.0.0.1 --master_port=29500 t.py\n";
    };
    EXPECT_EQ(result.out, "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n" +
                              rendezvous_check_line("127.0.0.1") +
                              "[node 0] 127.0.0.1 (local) cwd=" + cwd() + "\n" + command(0) +
                              "[node 1] 127.0.0.3 (local) cwd=" + cwd() + "\n" + command(1));
    EXPECT_FALSE(torchrun_called());
}

TEST_F(RunDryRun, HostsFromAPbsNodefileWithSlotsCounted) {
    write_file(job() / "nodefile", "localhost\nlocalhost\n127.0.0.1\n127.0.0.1\n");
    Env env = launcher_env();
    env["PBS_NODEFILE"] = (job() / "nodefile").string();
    RunResult result = run_colossalai_run({"--dry-run", "t.py"}, env);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "colossalai: using the 2 hosts of the PBS job (PBS_NODEFILE=" +
                              (job() / "nodefile").string() + ")\n");
    EXPECT_NE(result.out.find("[node 1] 127.0.0.1 (local)"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("torchrun --nproc_per_node=2 --nnodes=2 --node_rank=1 "
                              "--master_addr=localhost"),
              std::string::npos)
        << result.out;
    env["PBS_NODEFILE"] = (job() / "missing").string();
    result = run_colossalai_run({"--dry-run", "t.py"}, env);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err.substr(0, result.err.find('\n')), "Error: PBS_NODEFILE '" +
                                                               (job() / "missing").string() +
                                                               "': No such file or directory");
}

} // namespace
} // namespace colossalai::test
