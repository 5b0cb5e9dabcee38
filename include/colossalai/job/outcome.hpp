#pragma once

#include <span>
#include <string>

namespace colossalai::job {

// How one node's job ended: a value made where it happens (the transports) and rendered once,
// by the summary (describe()). The error kinds carry their one-line reason as written where the
// failure was seen; the kind decides the status and how the summary composes the line.
class Outcome {
public:
    enum class Kind {
        exited,          // the job exited with `code()`
        killed,          // the job was killed by `signal()`
        not_started,     // the launcher stopped the node before its job started
        cannot_run,      // the job could not be started (no such program, preflight)
        connect_failed,  // no connection or login to the node
        connection_lost, // the connection (or srun) broke before the job's status arrived
        abandoned,       // given up: no end after SIGKILL, or no connection in time
    };

    static Outcome exited(int code) { return Outcome(Kind::exited, code, 0, {}); }
    static Outcome killed(int signo) { return Outcome(Kind::killed, 0, signo, {}); }
    // `reason` empty: stopped by the launcher (the summary says so).
    static Outcome not_started(std::string reason = {}) {
        return Outcome(Kind::not_started, 255, 0, std::move(reason));
    }
    // `code`: the status it stands for (127 as a shell reports a command it cannot run).
    static Outcome cannot_run(std::string reason, int code = 127) {
        return Outcome(Kind::cannot_run, code, 0, std::move(reason));
    }
    static Outcome connect_failed(std::string reason) {
        return Outcome(Kind::connect_failed, 255, 0, std::move(reason));
    }
    // `code`: the status it stands for, 255 as ssh reports a lost connection.
    static Outcome connection_lost(std::string reason, int code = 255) {
        return Outcome(Kind::connection_lost, code, 0, std::move(reason));
    }
    static Outcome abandoned(std::string reason) {
        return Outcome(Kind::abandoned, 255, 0, std::move(reason));
    }

    Kind kind() const { return m_kind; }
    // The exit code for `exited`, the status an error kind stands for; 0 for `killed`.
    int code() const { return m_code; }
    // The signal for `killed`, else 0.
    int signal() const { return m_signal; }
    // The one-line reason of an error kind; empty for `exited`, `killed` and a plain stop.
    const std::string& reason() const { return m_reason; }

    bool success() const { return m_kind == Kind::exited && m_code == 0; }

    // The status this end stands for, as a shell would report it: the exit code, 128+N for
    // signal N, else the error's code (127 for a command that cannot run, 255 otherwise).
    int status() const { return m_kind == Kind::killed ? 128 + m_signal : m_code; }

    bool operator==(const Outcome&) const = default;

private:
    Outcome(Kind kind, int code, int signo, std::string reason)
        : m_kind(kind), m_code(code), m_signal(signo), m_reason(std::move(reason)) {}

    Kind m_kind;
    int m_code;
    int m_signal;
    std::string m_reason;
};

// What the summary says of a node's end, without the host: "exit code 3", "killed by SIGTERM",
// "not started", the error's reason. `delivered` is what the launcher's stop sequence gave the
// node, in order (Process::stop's signal, SIGKILL for Process::kill); when not empty (fail-fast
// or a signal to the launcher) it adds what the job got before its end to an exit or a death by
// another signal (" after SIGTERM", " after SIGINT and SIGKILL"), then ", stopped by the
// launcher" — once, whatever the kind: "exit code 0 after SIGTERM, stopped by the launcher" (a
// handler that wrote its checkpoint), "killed by SIGKILL after SIGTERM, stopped by the launcher".
std::string describe(const Outcome& outcome, std::span<const int> delivered = {});

} // namespace colossalai::job
