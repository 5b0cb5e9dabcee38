#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::job {
namespace {

TEST(PreflightFailure, EachCheckSaysWhatToDo) {
    EXPECT_EQ(describe({PreflightCheck::master_address, "gpu1"}),
              "cannot resolve master address 'gpu1' (set --master_addr to an address every node "
              "can reach)");
    EXPECT_EQ(describe({PreflightCheck::working_directory, "/work/job"}),
              "no working directory '/work/job' (the launcher's current directory must exist on "
              "every node: a shared file system, or cd to a path that does)");
    EXPECT_EQ(describe({PreflightCheck::command, "torchrun"}),
              "cannot find 'torchrun' (on the node's PATH; give a Python that has PyTorch with "
              "--python PATH, or set the node's PATH with -x PATH=...)");
    EXPECT_EQ(describe({PreflightCheck::network_interface, "ib0"}),
              "no network interface 'ib0' (see 'ip -br link' on the node; --network-interface "
              "names must exist on every node)");
    EXPECT_EQ(describe({PreflightCheck::script, "train.py"}),
              "cannot read the script 'train.py' on the node (torchrun opens it from the working "
              "directory: copy it to every node, or check its name)");
    // A subject is shown escaped: it is one line whatever it holds.
    EXPECT_EQ(describe({PreflightCheck::working_directory, "/a\nb"}).find('\n'), std::string::npos);
}

} // namespace
} // namespace colossalai::job
