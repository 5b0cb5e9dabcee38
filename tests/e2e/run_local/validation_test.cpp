// Every usage error of `colossalai run`: one exact line plus the hint on stderr, exit 2, nothing
// on stdout, and nothing started (the fake torchrun never ran).

#include "fixture.hpp"

#include <string>
#include <vector>

namespace colossalai::test {
namespace {

class RunValidation : public RunLocal {
protected:
    void expect_usage_error(const Words& args, const std::string& message) {
        SCOPED_TRACE(message);
        RunResult result = run_colossalai_run(args);
        EXPECT_EQ(result.exit_code, 2);
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(result.err,
                  "Error: " + message + "\nRun 'colossalai run --help' for more information.\n");
        EXPECT_FALSE(torchrun_called());
    }
};

struct Case {
    std::vector<std::string> args;
    std::string message;
};

TEST_F(RunValidation, BadOptionsAreRefusedBeforeAnythingStarts) {
    const std::vector<Case> cases = {
        {{"train.py"},
         "--nproc_per_node is required (processes per node, usually the number of GPUs)"},
        {{"--nproc_per_node", "0", "train.py"},
         "--nproc_per_node '0': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "GPU", "train.py"},
         "--nproc_per_node 'GPU': not a positive integer (or auto, cpu, gpu)"},
        {{"--nproc_per_node", "2"}, "no script given (expected SCRIPT.py or -m MODULE)"},
        {{"--nproc_per_node", "2", "train.sh"},
         "script 'train.sh' does not end in .py (use -m MODULE to run a module)"},
        {{"--nproc_per_node", "2", "-m", "train.py"},
         "-m 'train.py': expected a module name, not a .py file (drop -m to run a script)"},
        {{"--nproc_per_node", "2", "-m"}, "-m needs a module name"},
        {{"--nproc_per_node", "2", "--lr", "1", "train.py"},
         "unknown option '--lr' (options for the script go after the script)"},
        {{"--nproc_per_node", "2", "--hostfile"}, "option '--hostfile' needs a value"},
        {{"--nproc_per_node", "2", "-H", "a", "--hostfile", "hosts", "train.py"},
         "--host and --hostfile cannot be used together"},
        {{"--nproc_per_node", "2", "--hostfile", "hosts", "--include", "a", "--exclude", "b",
          "train.py"},
         "--include and --exclude cannot be used together"},
        {{"--nproc_per_node", "2", "--include", "a", "train.py"},
         "--include needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)"},
        {{"--nproc_per_node", "2", "--exclude", "a", "train.py"},
         "--exclude needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)"},
        {{"--nproc_per_node", "2", "--num_nodes", "1", "train.py"},
         "--num_nodes needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)"},
        {{"--nproc_per_node", "2", "--hostfile", "hosts", "--num_nodes", "0", "train.py"},
         "--num_nodes '0': not a positive number of nodes (or -1 for all)"},
        {{"--nproc_per_node", "2", "--host", "", "train.py"}, "--host: empty host list"},
        {{"--nproc_per_node", "2", "--host", "a,,b", "train.py"},
         "--host 'a,,b': empty host name in the list"},
        {{"--nproc_per_node", "2", "--host", "a;touch pwned", "train.py"},
         "--host: invalid host 'a;touch pwned': contains whitespace (one host per line or per "
         "comma-separated item)"},
        {{"--nproc_per_node", "2", "-H", "a,$(id)", "train.py"},
         "--host: invalid host '$(id)': contains '$'"},
        {{"--nproc_per_node", "2", "-host", "-oProxyCommand=id", "train.py"},
         "--host: invalid host '-oProxyCommand=id': starts with '-'"},
        {{"--nproc_per_node", "2", "--master_port", "0", "train.py"},
         "--master_port '0': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--master_port", "65536", "train.py"},
         "--master_port '65536': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--ssh-port", "70000", "train.py"},
         "--ssh-port '70000': not a port number (1..65535)"},
        {{"--nproc_per_node", "2", "--extra_launch_args", "tee=1,,x", "train.py"},
         "--extra_launch_args 'tee=1,,x': item 2 has an empty name"},
        {{"--nproc_per_node", "2", "--extra_launch_args", "=1", "train.py"},
         "--extra_launch_args '=1': item 1 has an empty name"},
        {{"--nproc_per_node", "2", "--kill-grace", "-1", "train.py"},
         "--kill-grace '-1': must be from 0 to 3600 seconds"},
        {{"--nproc_per_node", "2", "--ssh-timeout", "0", "train.py"},
         "--ssh-timeout '0': must be from 0.1 to 3600 seconds"},
    };
    for (const Case& c : cases) {
        expect_usage_error(c.args, c.message);
    }
}

// --nnodes, --max_restarts, --rdzv_*: each bad value, and each clash with --extra_launch_args or
// with the hosts given, is one line and exit 2, before anything starts.
TEST_F(RunValidation, BadElasticOptionsAreRefusedBeforeAnythingStarts) {
    const std::string shape = "expected N or MIN:MAX, positive numbers of nodes";
    const std::vector<Case> cases = {
        {{"--nproc_per_node", "1", "--nnodes", "3:2", "train.py"},
         "--nnodes '3:2': MIN is greater than MAX"},
        {{"--nproc_per_node", "1", "--nnodes", "0", "train.py"}, "--nnodes '0': " + shape},
        {{"--nproc_per_node", "1", "--nnodes", "two", "train.py"}, "--nnodes 'two': " + shape},
        {{"--nproc_per_node", "1", "--nnodes", "1:", "train.py"}, "--nnodes '1:': " + shape},
        // Numeric loopback hosts: the host count is checked after the this-machine lookup, and
        // a made-up name would be looked up through the machine's resolver.
        {{"--nproc_per_node", "1", "--host", "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5", "--nnodes",
          "2:3", "train.py"},
         "--nnodes 2:3: 4 hosts from --host; give between 2 and 3"},
        {{"--nproc_per_node", "1", "--nnodes", "2:3", "train.py"},
         "--nnodes 2:3: 1 host from the default host; give between 2 and 3"},
        {{"--nproc_per_node", "1", "--host", "127.0.0.2,127.0.0.3", "--nnodes", "3", "train.py"},
         "--nnodes 3: 2 hosts from --host; give exactly 3"},
        {{"--nproc_per_node", "1", "--max_restarts", "-1", "train.py"},
         "--max_restarts '-1': not a number of restarts (0 or more)"},
        {{"--nproc_per_node", "1", "--rdzv_backend", "zookeeper", "train.py"},
         "--rdzv_backend 'zookeeper': expected c10d, static, etcd or etcd-v2"},
        {{"--nproc_per_node", "1", "--host", "127.0.0.2,127.0.0.3", "--nnodes", "1:2",
          "--rdzv_backend", "static", "train.py"},
         "--rdzv_backend static: needs a fixed number of nodes (--nnodes N), not 1:2; use c10d "
         "for an elastic launch"},
        {{"--nproc_per_node", "1", "--rdzv_endpoint", "node1", "train.py"},
         "--rdzv_endpoint 'node1': expected HOST:PORT (the port is required)"},
        {{"--nproc_per_node", "1", "--rdzv_endpoint", "node1:0", "train.py"},
         "--rdzv_endpoint 'node1:0': not a port number (1..65535) after the last ':'"},
        {{"--nproc_per_node", "1", "--rdzv_endpoint", "fe80::1:29400", "train.py"},
         "--rdzv_endpoint 'fe80::1:29400': write an IPv6 address in brackets: [ADDRESS]:PORT"},
        {{"--nproc_per_node", "1", "--rdzv_id", "job 1;id", "train.py"},
         "--rdzv_id 'job 1;id': expected 1 to 128 letters, digits, '-', '_' or '.'"},
        {{"--nproc_per_node", "1", "--max_restarts", "1", "--extra_launch_args", "max_restarts=2",
          "train.py"},
         "max_restarts is given both by --max_restarts and by --extra_launch_args: keep one"},
        {{"--nproc_per_node", "1", "--rdzv_id", "a", "--extra_launch_args", "rdzv_id=b",
          "train.py"},
         "rdzv_id is given both by --rdzv_id and by --extra_launch_args: keep one"},
        {{"--nproc_per_node", "1", "--extra_launch_args", "rdzv_endpoint=node1", "train.py"},
         "--extra_launch_args rdzv_endpoint 'node1': expected HOST:PORT (the port is required)"},
        {{"--nproc_per_node", "1", "--extra_launch_args", "nnodes=2:3", "train.py"},
         "--extra_launch_args: 'nnodes' is set by colossalai run itself"},
    };
    for (const Case& c : cases) {
        expect_usage_error(c.args, c.message);
    }
}

TEST_F(RunValidation, BadHostfilesAreRefusedBeforeAnythingStarts) {
    write_file(job() / "hosts", "localhost\n127.0.0.1\n");
    write_file(job() / "dup", "localhost\n# spare\n127.0.0.1\n  localhost  # again\n");
    write_file(job() / "empty", "# nobody\n\n");
    write_file(job() / "binary", std::string("\x7f"
                                             "ELF\x02\x01\x01\0\0\0",
                                             10));
    write_file(job() / "huge", std::string(2 * 1024 * 1024, 'a'));
    write_file(job() / "proxy", "localhost\n-oProxyCommand=touch /tmp/pwned\n");
    write_file(job() / "meta", "localhost\n127.0.0.1;id\n");
    std::filesystem::create_directories(job() / "adir");
    Words base = {"--nproc_per_node", "2"};
    auto with = [&](Words more) {
        Words args = base;
        args.insert(args.end(), more.begin(), more.end());
        args.emplace_back("train.py");
        return args;
    };
    const std::vector<Case> cases = {
        {with({"--hostfile", "missing"}), "--hostfile 'missing': No such file or directory"},
        {with({"--hostfile", "adir"}), "--hostfile 'adir': Is a directory"},
        {with({"--hostfile", "huge"}), "--hostfile 'huge': larger than 1 MiB, not a hostfile"},
        {with({"--hostfile", "binary"}), "binary:1: NUL byte: not a text file"},
        {with({"--hostfile", "dup"}), "dup:4: duplicate host 'localhost' (first at line 1)"},
        {with({"--hostfile", "empty"}), "empty: no hosts in the hostfile"},
        {with({"--hostfile", "proxy"}),
         "proxy:2: invalid host '-oProxyCommand=touch': starts with '-'"},
        {with({"--hostfile", "meta"}), "meta:2: invalid host '127.0.0.1;id': contains ';'"},
        {with({"--hostfile", "hosts", "--include", "localhost,node9"}),
         "--include: host 'node9' is not in the hostfile hosts"},
        {with({"--hostfile", "hosts", "--exclude", "node9"}),
         "--exclude: host 'node9' is not in the hostfile hosts"},
        {with({"--hostfile", "hosts", "--exclude", "localhost,127.0.0.1"}),
         "--exclude: no host of the hostfile hosts is left"},
        {with({"--hostfile", "hosts", "--num_nodes", "3"}),
         "--num_nodes '3': only 2 hosts available"},
        {with({"--hostfile", "hosts", "--exclude", "localhost", "--num_nodes", "2"}),
         "--num_nodes '2': only 1 host available"},
    };
    for (const Case& c : cases) {
        expect_usage_error(c.args, c.message);
    }
}

// GPU indices in --include / --exclude (DeepSpeed's `w0:0,1@w1`, run/host_selection.hpp).
TEST_F(RunValidation, BadGpuSelectionsAreRefusedBeforeAnythingStarts) {
    write_file(job() / "hosts", "localhost slots=2\n127.0.0.1 slots=4\n");
    write_file(job() / "users", "alice\nalice@n1\n");
    auto with = [](Words more) {
        more.emplace_back("train.py");
        return more;
    };
    const std::vector<Case> cases = {
        {with({"--hostfile", "hosts", "--include", "localhost:2"}),
         "--include: GPU 2 of 'localhost' is beyond its slots=2 in the hostfile hosts (GPUs 0-1)"},
        {with({"--hostfile", "hosts", "--exclude", "127.0.0.1:4"}),
         "--exclude: GPU 4 of '127.0.0.1' is beyond its slots=4 in the hostfile hosts (GPUs 0-3)"},
        {with({"--hostfile", "hosts", "--include", "node9:0"}),
         "--include: host 'node9' is not in the hostfile hosts"},
        {with({"--hostfile", "hosts", "--exclude", "localhost:0,1@127.0.0.1"}),
         "--exclude: no host of the hostfile hosts is left"},
        {with({"--hostfile", "hosts", "--include", "localhost:"}),
         "--include 'localhost:': no GPU index after ':' (write 'localhost:0,1', or 'localhost' "
         "for all its GPUs)"},
        {with({"--hostfile", "hosts", "--include", "localhost:0,0"}),
         "--include 'localhost:0,0': GPU 0 is named twice"},
        {with({"--hostfile", "hosts", "--include", "localhost:0@localhost:1"}),
         "--include: duplicate host 'localhost'"},
        {with({"--hostfile", "hosts", "--include", "localhost:x"}),
         "--include: invalid host 'localhost:x': not an IPv6 address (an SSH port goes in "
         "--ssh-port or ~/.ssh/config)"},
        {with({"--hostfile", "hosts", "--include", "::1:0"}),
         "--include '::1:0' reads two ways: the IPv6 address '::1:0' (write '[::1:0]'), or the "
         "host '::1' with GPUs 0 (write '[::1]:0')"},
        {with({"--hostfile", "users", "--include", "alice@n1"}),
         "--include 'alice@n1' reads two ways in the hostfile users: 'alice@n1' (a host as a "
         "user) or 'alice', 'n1' (DeepSpeed's '@' between nodes); write the host without its "
         "user (the hostfile's entry says who logs in)"},
        {with({"--hostfile", "hosts", "--include", "localhost:0", "--nproc_per_node", "2"}),
         "--nproc_per_node cannot be used with GPU indices in --include (each node runs one "
         "process per GPU it selects)"},
        {with({"--hostfile", "hosts", "--exclude", "localhost:0", "--launcher", "slurm"}),
         "--launcher slurm cannot use GPU indices in --exclude: srun starts one command on every "
         "node (--srun-args '--gpus-per-node=N' selects GPUs there)"},
    };
    for (const Case& c : cases) {
        expect_usage_error(c.args, c.message);
    }
}

// Every gate names the first PyTorch that accepts the option and the form found
// (run/torch_forms.hpp); PyTorch 1.13 takes -m and gpu (the golden dry runs show it).
TEST_F(RunValidation, GatesNameTheFirstPyTorchThatTakesTheOption) {
    set_torch("1.2.0");
    expect_usage_error({"--nproc_per_node", "2", "-m", "pkg.train"},
                       "-m needs PyTorch 1.3 or newer (found 1.2.0: python -m "
                       "torch.distributed.launch)");
    set_torch("1.8.1+cu111");
    expect_usage_error({"--nproc_per_node", "gpu", "t.py"},
                       "--nproc_per_node gpu needs PyTorch 1.9 or newer (found 1.8.1: python -m "
                       "torch.distributed.launch)");
    expect_usage_error({"--nproc_per_node", "1", "--max_restarts", "1", "t.py"},
                       "--max_restarts needs PyTorch 1.9 or newer (found 1.8.1: python -m "
                       "torch.distributed.launch)");
    expect_usage_error({"--nproc_per_node", "1", "--extra_launch_args", "tee=1", "t.py"},
                       "--extra_launch_args tee needs PyTorch 1.9 or newer (found 1.8.1: python -m "
                       "torch.distributed.launch)");
}

// The hostile inputs of docs/reliability.md that the tests above do not cover: each is one line,
// bytes that could break the line or the terminal escaped as \xNN, exit 2, nothing started.
TEST_F(RunValidation, HostileInputsGetOneEscapedLine) {
    write_file(job() / "hosts", "localhost\n127.0.0.1\n");
    write_file(job() / "zero", "");
    write_file(job() / "option", "localhost\n-oProxyCommand=id\n");
    write_file(job() / "deepspeed", "node1 slots=8\nnode2 slots=8\n");
    write_file(job() / "tab", "localhost\nnode\t2\n");
    write_file(job() / "crlf", "localhost\r\n# spare\r\nlocalhost\r\n");
    write_file(job() / "latin1", "localhost\nn\xf6"
                                 "de2\n");
    write_file(job() / "backtick", "`reboot`\n");
    write_file(job() / "bom", "\xef\xbb\xbflocalhost\n\xef\xbb\xbf"
                              "127.0.0.1\n");
    write_file(job() / "pipe", "a|b\n");
    write_file(job() / "port", "node1:2222\n");
    write_file(job() / "users", "a@b@c\n");
    write_file(job() / "my\nhosts", "localhost\nx&y\n");
    write_file(job() / "good\nhosts", "localhost\n");
    Words base = {"--nproc_per_node", "2"};
    auto with = [&](Words more, const std::string& script = "train.py") {
        Words args = base;
        args.insert(args.end(), more.begin(), more.end());
        if (!script.empty()) {
            args.push_back(script);
        }
        return args;
    };
    const std::string whitespace =
        "contains whitespace (one host per line or per comma-separated item)";
    const std::vector<Case> cases = {
        {with({"--hostfile", "zero"}), "zero: no hosts in the hostfile"},
        {with({"--hostfile", "/dev/zero"}),
         "--hostfile '/dev/zero': larger than 1 MiB, not a hostfile"},
        {with({"--hostfile", "/proc/self/mem"}), "--hostfile '/proc/self/mem': Input/output error"},
        {with({"--hostfile", "option"}),
         "option:2: invalid host '-oProxyCommand=id': starts with '-'"},
        {with({"--hostfile", "deepspeed"}),
         "slots=8 for 'node1' in the hostfile deepspeed contradicts --nproc_per_node 2 "
         "(torchrun runs the same number of processes on every node)"},
        {with({"--hostfile", "tab"}),
         "tab:2: '2' after the host: expected slots=N or max_slots=N (one host per line)"},
        {with({"--hostfile", "crlf"}), "crlf:3: duplicate host 'localhost' (first at line 1)"},
        {with({"--hostfile", "latin1"}),
         "latin1:2: invalid host 'n\\xf6de2': contains a non-ASCII byte"},
        {with({"--hostfile", "bom"}),
         "bom:2: invalid host '\\xef\\xbb\\xbf127.0.0.1': contains a non-ASCII byte"},
        {with({"--hostfile", "backtick"}), "backtick:1: invalid host '`reboot`': contains '`'"},
        {with({"--hostfile", "pipe"}), "pipe:1: invalid host 'a|b': contains '|'"},
        {with({"--hostfile", "port"}), "port:1: invalid host 'node1:2222': not an IPv6 address (an "
                                       "SSH port goes in --ssh-port or "
                                       "~/.ssh/config)"},
        {with({"--hostfile", "users"}), "users:1: invalid host 'a@b@c': contains '@'"},
        {with({"--hostfile", "my\nhosts"}), "my\\x0ahosts:2: invalid host 'x&y': contains '&'"},
        {with({"--hostfile", "no\nsuch"}), "--hostfile 'no\\x0asuch': No such file or directory"},
        {with({"--hostfile", "good\nhosts", "--include", "node9"}),
         "--include: host 'node9' is not in the hostfile good\\x0ahosts"},
        {with({"--hostfile", "hosts", "--include", "localhost,localhost"}),
         "--include: duplicate host 'localhost'"},
        {with({"--hostfile", "hosts", "--num_nodes", "-2"}),
         "--num_nodes '-2': not a positive number of nodes (or -1 for all)"},
        {with({"--hostfile", ""}), "--hostfile '': empty file name"},
        {with({"-H", "a\tb"}), "--host: invalid host 'a\\x09b': " + whitespace},
        {with({"-H", "a\nb"}), "--host: invalid host 'a\\x0ab': contains a control character"},
        {with({"-H", "n\xc3\xb6"
                     "de"}),
         "--host: invalid host 'n\\xc3\\xb6de': contains a non-ASCII byte"},
        {with({"-H", "alice@-oProxyCommand=id"}),
         "--host: invalid host 'alice@-oProxyCommand=id': host starts with '-'"},
        {with({"-H", "a,a"}), "--host: duplicate host 'a'"},
        {with({"--master_addr", "-oProxyCommand=id"}),
         "--master_addr: invalid host '-oProxyCommand=id': starts with '-'"},
        {with({"--master_port", "http"}), "--master_port 'http': not a port number (1..65535)"},
        {with({"--master_port", "-5"}), "--master_port '-5': not a port number (1..65535)"},
        {with({"--master_port", "99999999999999999999"}),
         "--master_port '99999999999999999999': not a port number (1..65535)"},
        {with({"--extra_launch_args", ""}), "--extra_launch_args '': item 1 has an empty name"},
        {with({"--extra_launch_args", "nnodes=3"}),
         "--extra_launch_args: 'nnodes' is set by colossalai run itself"},
        {with({"--master_port", "1234", "--extra_launch_args", "master_port=2"}),
         "master_port is given both by --master_port and by --extra_launch_args: keep one"},
        {with({"--kill-grace", "nan"}), "--kill-grace 'nan': not a number of seconds"},
        {with({"--ssh-timeout", "inf"}), "--ssh-timeout 'inf': not a number of seconds"},
        {with({"--dry-run=yes"}), "option '--dry-run' takes no value"},
        {with({"--lr\n1"}),
         "unknown option '--lr\\x0a1' (options for the script go after the script)"},
        {with({"--\xff"}), "unknown option '--\\xff' (options for the script go after the script)"},
        {with({"--nproc_per_node", "1\n2"}),
         "--nproc_per_node '1\\x0a2': not a positive integer (or auto, cpu, gpu)"},
        {with({}, "train\n.sh"),
         "script 'train\\x0a.sh' does not end in .py (use -m MODULE to run a module)"},
        {with({}, "TRAIN.PY"),
         "script 'TRAIN.PY' does not end in .py (use -m MODULE to run a module)"},
        {with({"--"}, "-x.py"), "script '-x.py' starts with '-', which the launcher would take for "
                                "an option (write ./-x.py)"},
        {with({"-m", "my-pkg"}, ""),
         "-m 'my-pkg': not a module name (dotted Python identifiers, such as pkg.train)"},
        {with({"-m", "a\nb"}, ""),
         "-m 'a\\x0ab': not a module name (dotted Python identifiers, such as pkg.train)"},
    };
    for (const Case& c : cases) {
        expect_usage_error(c.args, c.message);
    }
}

} // namespace
} // namespace colossalai::test
