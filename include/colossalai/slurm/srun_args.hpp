#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::slurm {

// `--srun-args` text as words, parsed once where the option is read: split as a POSIX shell
// would (blanks separate words; '...' keeps everything; "..." keeps everything but \\ \" \$ \`; a
// backslash outside quotes keeps the next character), with no expansion of any kind. Refuses, as
// usage errors naming the word: an unterminated quote and the options that the Slurm transport's
// srun command sets itself (slurm/srun_command.hpp: -N/--nodes, -n/--ntasks, --ntasks-per-node,
// -w/--nodelist, -l/--label, -u/--unbuffered, -K/--kill-on-bad-exit, -o/--output, -e/--error,
// -i/--input, --pty): a second value from the user would change how the tasks are laid out or
// how their output is read.
std::vector<std::string> parse_srun_args(std::string_view text);

} // namespace colossalai::slurm
