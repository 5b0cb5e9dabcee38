#include "check_option_table.hpp"

#include "shared_options.hpp"

namespace colossalai::cli {

namespace {

using check::Options;

} // namespace

std::span<const CheckOption> check_option_table() {
    // Made once, on first use: --launcher's value lists the engines' table.
    static const CheckOption table[] = {
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
        shared::launcher_option<Options>(
            "How the nodes are reached: ssh, or slurm (one srun step; alone, inside an "
            "allocation: the allocation's nodes)"),
        shared::srun_args_option<Options>(
            "With --launcher slurm: more srun options, as a shell would split them"),
        shared::ssh_port_option("INT:INT in [1 - 65535]",
                                "SSH port for every node (else ~/.ssh/config, else 22)"),
        shared::ssh_timeout_option<Options>("SSH connect timeout per node"),
    };
    return table;
}

} // namespace colossalai::cli
