#include "colossalai/check/command.hpp"

#include "colossalai/check/probe.hpp"
#include "colossalai/check/report.hpp"
#include "colossalai/check/rules.hpp"

#include <fmt/ostream.h>

#include <cstdlib>

namespace colossalai::check {

int execute(const Options& options, std::ostream& out, std::ostream& err) {
    ProbeSettings settings = read_settings(options, [](const std::string& name) {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    });
    Facts facts = gather_facts(settings);
    Checks checks = evaluate(facts);
    for (const std::string& warning : facts.warnings) {
        fmt::print(err, "colossalai: warning: {}\n", warning);
    }
    err.flush();
    out << (options.json ? render_json(facts, checks) : render_text(facts, checks));
    out.flush();
    return exit_status(checks);
}

} // namespace colossalai::check
