#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/validate.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

// Valid options; each case changes one thing.
Options valid() {
    Options options;
    options.nproc_per_node = test::nproc("2");
    options.script = "train.py";
    return options;
}

struct ValidationErrorCase {
    std::function<void(Options&)> change;
    std::string message;
};

TEST(ValidateOptions, AcceptsTheDefaultsAndEveryValidShape) {
    EXPECT_NO_THROW(validate_options(valid()));
    std::vector<std::function<void(Options&)>> changes = {
        [](Options& o) { o.script.reset(), o.module = "pkg.mod"; },
        [](Options& o) {
            o.script.reset(), o.module = "_private.v2.m\xc3\xbc"
                                         "dul";
        },
        [](Options& o) { o.script = "/abs/path/with space/train.py"; },
        [](Options& o) { o.host = test::hosts("a,b"); },
        [](Options& o) { o.hostfile = "hosts", o.include = test::hosts("a"), o.num_nodes = 1; },
        [](Options& o) { o.hostfile = "hosts", o.exclude = test::hosts("a"), o.num_nodes = -1; },
        [](Options& o) {
            o.master_port = Port{1}, test::given<SshLaunch>(o).ssh_port = Port{65535};
        },
        [](Options& o) { o.master_addr = MasterAddress{"::1"}; },
        [](Options& o) {
            o.extra_launch_args = test::launch_args("tee=1");
            o.extra_master = {MasterAddress{"10.0.0.1"}, Port{1}};
        },
        [](Options& o) {
            o.network_interface = test::interfaces("eth0"), o.engine = test::engine_named("slurm"),
            o.host = test::hosts("a,b");
        },
    };
    for (const auto& change : changes) {
        Options options = valid();
        change(options);
        EXPECT_NO_THROW(validate_options(options));
    }
}

TEST(ValidateOptions, ReportsEachProblemInOneLine) {
    const std::vector<ValidationErrorCase> cases = {
        {[](Options& o) { o.script.reset(); }, "no script given (expected SCRIPT.py or -m MODULE)"},
        {[](Options& o) { o.script = "train.sh"; },
         "script 'train.sh' does not end in .py (use -m MODULE to run a module)"},
        {[](Options& o) { o.script = "train.PY"; },
         "script 'train.PY' does not end in .py (use -m MODULE to run a module)"},
        {[](Options& o) { o.script.reset(), o.module = "train.py"; },
         "-m 'train.py': expected a module name, not a .py file (drop -m to run a script)"},
        {[](Options& o) { o.script.reset(), o.module = ""; }, "-m needs a module name"},
        {[](Options& o) { o.script.reset(), o.module = "-x"; },
         "-m '-x': not a module name (dotted Python identifiers, such as pkg.train)"},
        {[](Options& o) { o.script.reset(), o.module = "=pkg"; },
         "-m '=pkg': not a module name (dotted Python identifiers, such as pkg.train)"},
        {[](Options& o) { o.script.reset(), o.module = "my-pkg.train"; },
         "-m 'my-pkg.train': not a module name (dotted Python identifiers, such as pkg.train)"},
        {[](Options& o) { o.script.reset(), o.module = "pkg..train"; },
         "-m 'pkg..train': not a module name (dotted Python identifiers, such as pkg.train)"},
        {[](Options& o) { o.script.reset(), o.module = "pkg.2x"; },
         "-m 'pkg.2x': not a module name (dotted Python identifiers, such as pkg.train)"},
        {[](Options& o) { o.script = "-odd.py"; },
         "script '-odd.py' starts with '-', which the launcher would take for an option (write "
         "./-odd.py)"},
        {[](Options& o) { o.host = test::hosts("a"), o.hostfile = "hosts"; },
         "--host and --hostfile cannot be used together"},
        {[](Options& o) {
             o.hostfile = "hosts", o.include = test::hosts("a"), o.exclude = test::hosts("b");
         },
         "--include and --exclude cannot be used together"},
        {[](Options& o) { o.host = test::hosts("a,b"), o.include = test::hosts("a"); },
         "--include cannot be used with --host (list the hosts you want)"},
        {[](Options& o) { o.host = test::hosts("a,b"), o.exclude = test::hosts("a"); },
         "--exclude cannot be used with --host (list the hosts you want)"},
        {[](Options& o) { o.host = test::hosts("a,b"), o.num_nodes = 2; },
         "--num_nodes cannot be used with --host (list the hosts you want)"},
        {[](Options& o) { o.hostfile = "hosts", o.num_nodes = 0; },
         "--num_nodes '0': not a positive number of nodes (or -1 for all)"},
        {[](Options& o) { o.hostfile = "hosts", o.num_nodes = -2; },
         "--num_nodes '-2': not a positive number of nodes (or -1 for all)"},
        {[](Options& o) {
             o.extra_master.address = MasterAddress{"x"}, o.master_addr = MasterAddress{"y"};
         },
         "master_addr is given both by --master_addr and by --extra_launch_args: keep one"},
        {[](Options& o) { o.extra_master.port = Port{1}, o.master_port = Port{2}; },
         "master_port is given both by --master_port and by --extra_launch_args: keep one"},
        {[](Options& o) { o.python = ""; }, "--python '': no interpreter named"},
    };
    for (const ValidationErrorCase& c : cases) {
        Options options = valid();
        c.change(options);
        EXPECT_EQ(test::usage_message([&] { validate_options(options); }), c.message);
    }
}

TEST(ParsePositiveInt, AcceptsOnlyPlainPositiveDecimals) {
    EXPECT_EQ(parse_positive_int("1"), 1);
    EXPECT_EQ(parse_positive_int("08"), 8);
    EXPECT_EQ(parse_positive_int("2147483647"), 2147483647);
    for (const char* text : {"", "0", "-1", "+1", " 1", "1 ", "1e3", "0x10", "2147483648"}) {
        EXPECT_EQ(parse_positive_int(text), std::nullopt) << text;
    }
}

} // namespace
} // namespace colossalai::run
