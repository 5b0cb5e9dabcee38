#include "check_option_table.hpp"

#include "shared_options.hpp"

#include "colossalai/engines/engines.hpp"

namespace colossalai::cli {

namespace {

using Options = run::CheckOptions;

// check's own options, in --help order; the engines' options of check are placed among them
// (with_engine_options).
std::span<const CheckOption> general_options() {
    static const CheckOption general[] = {
        help_option<Options>(),
        {.short_name = "-i",
         .long_name = "--installation",
         .help = "Check the installation of Colossal-AI and its dependencies",
         .apply = set_flag<Options, &Options::installation>},
        {.long_name = "--json",
         .help = "Print the report as one JSON object (implies -i)",
         .apply = set_flag<Options, &Options::json>},
        shared::python_option<Options>(
            "Python interpreter of the environment to inspect (default: first python3, then "
            "python, on PATH)"),
        shared::host_option<Options>("TEXT",
                                     "Check these nodes instead of this machine (over SSH, or "
                                     "--launcher): \"h1,h2\" (as for "
                                     "'colossalai run')",
                                     keep_text<Options, &Options::host>),
        shared::hostfile_option<Options>("TEXT",
                                         "Check the nodes of this hostfile (one host per line)"),
        {.long_name = "--allocation",
         .help = "Check the nodes of the batch job this runs in (Slurm's SLURM_JOB_NODELIST, "
                 "PBS's PBS_NODEFILE, LSF's LSB_DJOB_HOSTFILE, SGE's PE_HOSTFILE)",
         .apply = set_flag<Options, &Options::allocation>},
        shared::launcher_option<Options>("How the nodes are reached"),
    };
    return general;
}

} // namespace

std::span<const CheckOption> check_option_table() {
    // Made once, on first use: --launcher's value lists the engines' table.
    static const std::vector<CheckOption> table =
        with_engine_options<Options>(general_options(), engines::table());
    return table;
}

} // namespace colossalai::cli
