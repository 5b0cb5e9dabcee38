#pragma once

// What every node of the check tests runs: one fake interpreter (`TREES/python3`, the hosts
// share this file system) that answers with the site-packages of its own host name
// (`TREES/nodeK/site-packages`), so that nodes really differ: node3 has another PyTorch.

#include "support.hpp"

#include <filesystem>
#include <string>

namespace colossalai::test {

inline void write_node_trees(const std::filesystem::path& trees, int hosts) {
    write_per_host_python(trees / "python3", trees);
    std::string cuda = system_cuda_release();
    for (int k = 1; k <= hosts; ++k) {
        std::string torch = k == 3 ? "2.2.0+cu" : "2.1.0+cu";
        auto site = trees / ("node" + std::to_string(k)) / "site-packages";
        write_file(site / "torch/__init__.py", "");
        write_file(site / "torch/version.py",
                   "__version__ = '" + torch + "'\ncuda = '" + cuda + "'\n");
    }
}

} // namespace colossalai::test
