#include "colossalai/check/command.hpp"

namespace colossalai::check {

int execute(const Options& /*options*/, std::ostream& out, std::ostream& /*err*/) {
    out << "#### Installation Report ####\n";
    return 0;
}

} // namespace colossalai::check
