#include "colossalai/cli/app.hpp"
#include "colossalai/util/file.hpp"

#include <iostream>

int main(int argc, char** argv) {
    colossalai::util::open_missing_standard_streams();
    std::ios::sync_with_stdio(false);
    return colossalai::cli::main(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
