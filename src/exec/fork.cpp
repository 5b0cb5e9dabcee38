#include "colossalai/exec/fork.hpp"

#include <sys/prctl.h>
#include <unistd.h>

namespace colossalai::exec {

pid_t fork_child(int death_signal) {
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, death_signal);
        if (::getppid() != parent) {
            ::_exit(128 + death_signal); // the parent died before prctl() took effect
        }
    }
    return pid;
}

} // namespace colossalai::exec
