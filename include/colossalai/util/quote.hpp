#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::util {

// Quotes one word for a POSIX shell so that it reaches the program byte for byte, whatever it
// holds (spaces, quotes, `$(...)`, backticks, `;`, newlines, bytes that are not UTF-8).
// A word made only of [A-Za-z0-9_@%+=:,./-] is returned bare, the empty word is `''`, anything
// else is wrapped in single quotes with each `'` written as `'\''`. The shell never expands
// anything inside single quotes, so nothing of the word is ever executed.
std::string shell_quote(std::string_view word);

// Quotes every word and joins them with single spaces: the text of one shell command whose
// argv is `words`. A first word holding `=` is always quoted, so that the shell runs it as a
// command instead of taking it for a variable assignment.
std::string shell_join(const std::vector<std::string>& words);

// A launcher's argument text (--srun-args, --mpirun-args) as words, split as a POSIX shell would
// (blanks separate words; '...' keeps everything; "..." keeps everything but \\ \" \$ \`; a
// backslash outside quotes keeps the next character), with no expansion of any kind. An
// unterminated quote is a usage error naming `option`: "--srun-args: unterminated ' quote".
std::vector<std::string> split_shell_words(std::string_view text, std::string_view option);

} // namespace colossalai::util
