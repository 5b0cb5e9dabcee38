#include "colossalai/cli/app.hpp"

#include <iostream>

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    return colossalai::cli::main(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
