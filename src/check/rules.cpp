#include "colossalai/check/rules.hpp"

#include "colossalai/util/version.hpp"

namespace colossalai::check {

namespace {

std::optional<util::Version> parsed(const std::optional<std::string>& text) {
    if (!text) {
        return std::nullopt;
    }
    return util::parse_version(*text);
}

// N/A unless both versions are known; else major.minor equal.
std::optional<bool> match(const std::optional<std::string>& a,
                          const std::optional<std::string>& b) {
    auto va = parsed(a);
    auto vb = parsed(b);
    if (!va || !vb) {
        return std::nullopt;
    }
    return util::compatible(*va, *vb);
}

} // namespace

Checks evaluate(const Facts& facts) {
    Checks checks;
    checks.torch_version_match = match(facts.torch_version, facts.aot_torch);

    if (parsed(facts.system_cuda)) {
        checks.system_torch_cuda_match = facts.torch_cpu_only
                                             ? std::optional<bool>(false)
                                             : match(facts.system_cuda, facts.torch_cuda);
    }

    checks.system_colossalai_cuda_match = match(facts.system_cuda, facts.aot_cuda);

    auto driver = parsed(facts.driver_cuda);
    auto torch_cuda = parsed(facts.torch_cuda);
    if (driver && torch_cuda) {
        // The driver runs every CUDA up to its own version; the patch is irrelevant here.
        checks.driver_supports_torch_cuda = std::make_pair(driver->major, driver->minor) >=
                                            std::make_pair(torch_cuda->major, torch_cuda->minor);
    }
    return checks;
}

int exit_status(const Checks& checks) {
    for (const std::optional<bool>& check :
         {checks.torch_version_match, checks.system_torch_cuda_match,
          checks.system_colossalai_cuda_match, checks.driver_supports_torch_cuda}) {
        if (check == false) {
            return 1;
        }
    }
    return 0;
}

} // namespace colossalai::check
