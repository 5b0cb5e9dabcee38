#pragma once

#include "colossalai/util/fd.hpp"

#include <poll.h>

#include <span>
#include <string_view>

// Reading a child's output pipes in the launcher's loop: what the local transport and the ssh
// program's transport share.
namespace colossalai::util {

// One read() of the non-blocking `fd` into `buffer`, retried on EINTR: the bytes read; empty
// when nothing waits now (EAGAIN), or at the end of the stream (EOF or a read error), which
// resets `fd`.
std::string_view read_some(Fd& fd, std::span<char> buffer);

// Whether poll() reported an event for `fd` among `fds`.
bool polled(std::span<const pollfd> fds, const Fd& fd);

} // namespace colossalai::util
