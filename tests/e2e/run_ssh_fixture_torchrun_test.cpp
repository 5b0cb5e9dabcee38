// The design's premise, proven with plain OpenSSH: a real torchrun job spans two test hosts when
// each node is started by its own ssh command, as `colossalai run` will do over libssh.

#include "run_ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> sorted_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

class TorchrunOverSsh : public SharedSshCluster<2> {};

TEST_F(TorchrunOverSsh, GlooAllReduceSpansTwoHosts) {
    TempDir logs;
    const std::string train = (fixtures_dir() / "train_allreduce.py").string();
    RunOptions options = cluster().client_options();
    std::vector<std::unique_ptr<Background>> nodes;
    for (int rank = 0; rank < 2; ++rank) {
        // Debian's torchrun needs --redirects/--tee on Python 3.11 (see NOTES.md); gloo needs
        // the interface, or it resolves the host name to loopback.
        std::string command = "cd / && GLOO_SOCKET_IFNAME=eth0 exec /usr/bin/torchrun --nnodes=2 "
                              "--nproc_per_node=2 --node_rank=" +
                              std::to_string(rank) +
                              " --master_addr=node1 --master_port=29500 --redirects=1 --tee=1 "
                              "--monitor_interval=1 " +
                              train + " --echo-env GLOO_SOCKET_IFNAME 'two words'";
        std::string log = "node" + std::to_string(rank + 1);
        nodes.push_back(std::make_unique<Background>(
            cluster().client_command(
                {"ssh", "-o", "BatchMode=yes", cluster().host(rank + 1), command}),
            options, logs / (log + ".out"), logs / (log + ".err")));
    }
    for (int rank = 0; rank < 2; ++rank) {
        std::string log = "node" + std::to_string(rank + 1);
        auto status = nodes[rank]->wait(180s);
        ASSERT_TRUE(status.has_value()) << log << " still runs; stderr:\n"
                                        << read_file(logs / (log + ".err"));
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
            << log << " status " << *status << "; stderr:\n"
            << read_file(logs / (log + ".err"));

        std::vector<std::string> expected;
        for (int local = 0; local < 2; ++local) {
            expected.push_back("[default" + std::to_string(local) +
                               "]:{\"argv\": [\"--echo-env\", \"GLOO_SOCKET_IFNAME\", \"two "
                               "words\"], \"env\": {\"GLOO_SOCKET_IFNAME\": \"eth0\"}, \"host\": "
                               "\"" +
                               log + "\", \"local_rank\": " + std::to_string(local) +
                               ", \"rank\": " + std::to_string(2 * rank + local) +
                               ", \"sum\": 10, \"world_size\": 4}");
        }
        EXPECT_EQ(sorted_lines(read_file(logs / (log + ".out"))), expected);
        std::string err = read_file(logs / (log + ".err"));
        for (int local = 0; local < 2; ++local) {
            EXPECT_TRUE(has_line(err, "train_allreduce: rank " + std::to_string(2 * rank + local) +
                                          " done"))
                << err;
        }
    }
}

} // namespace
} // namespace colossalai::test
