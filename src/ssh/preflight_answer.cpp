#include "preflight_answer.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <fmt/core.h>

#include <utility>

namespace colossalai::ssh {

namespace {

// The longest line held: a stream with no newline (no wrapper of ours at the other end) ends the
// wait before the timeout, and what is held stays bounded.
constexpr std::size_t line_limit = 64 * 1024;
// What is kept of the lines that were not the wrapper's, for a failure's message.
constexpr std::size_t printed_limit = 1024;

// The notice a line of the wrapper's names (job::notice_marker); nullopt for any other line.
std::optional<std::string> node_notice(std::string_view line) {
    if (!line.starts_with(job::notice_marker)) {
        return std::nullopt;
    }
    return std::string(line.substr(job::notice_marker.size()));
}

} // namespace

PreflightAnswer::PreflightAnswer(job::NodeCommand command, std::chrono::milliseconds timeout,
                                 job::Clock::time_point started)
    : m_command(std::move(command)), m_timeout(timeout), m_deadline(started + timeout) {}

PreflightAnswer::Step PreflightAnswer::take(std::string_view bytes) {
    Step step;
    while (step.consumed < bytes.size()) {
        char byte = bytes[step.consumed++];
        if (byte != '\n') {
            m_line += byte;
            if (m_line.size() > line_limit) {
                m_awaiting = false;
                step.verdict = PreflightVerdict{job::Outcome::connect_failed(
                    "no preflight answer from the node wrapper in its first 64 KiB of output")};
                return step;
            }
            continue;
        }
        if (m_rendezvous) {
            bool end = m_line == rendezvous_end_line;
            std::optional<job::RendezvousResult> result = job::parse_rendezvous_line(m_line);
            m_line.clear();
            // A warning (the node's own name on loopback, gloo's interface given) decides
            // nothing but is one notice naming the node; the first failure stays the node's.
            if (result && !job::is_failure(*result) &&
                result->outcome == job::RendezvousOutcome::own_name_loopback) {
                m_notices.push_back(
                    fmt::format("warning: {}: {}", m_command.host, job::describe(*result)));
            }
            if (result &&
                (job::is_failure(*result) ||
                 result->outcome != job::RendezvousOutcome::own_name_loopback) &&
                !(m_result && job::is_failure(*m_result))) {
                m_result = std::move(result);
            }
            if (end || (!m_until_end && m_result)) {
                m_awaiting = false;
                step.rendezvous = RendezvousAnswer{std::exchange(m_result, std::nullopt)};
                return step;
            }
            continue;
        }
        std::optional<ReadyAnswer> answer = parse_ready_line(m_line, m_command);
        std::optional<std::string> notice = node_notice(m_line);
        if (m_line == started_line) {
            m_started = true;
        } else if (notice) {
            if (std::optional<std::string> text =
                    job::describe_node_notice(m_command.preflight.torch_pair, *notice)) {
                m_notices.push_back(fmt::format("{}: {}", m_command.host, *text));
            }
        } else if (!answer && m_printed.size() < printed_limit) {
            m_printed += m_line.substr(0, printed_limit - m_printed.size());
            m_printed += '\n';
        }
        m_line.clear();
        if (!answer) {
            continue; // not the wrapper's answer: a banner
        }
        m_awaiting = false;
        step.verdict = PreflightVerdict{};
        if (answer->failure) {
            step.verdict->failure = job::Outcome::cannot_run(job::describe(*answer->failure),
                                                             job::preflight_exit_status);
        }
        return step;
    }
    return step;
}

void PreflightAnswer::await_rendezvous(job::Clock::time_point now, std::chrono::milliseconds wait,
                                       bool until_end) {
    m_awaiting = true;
    m_rendezvous = true;
    m_until_end = until_end;
    m_timeout = wait;
    m_deadline = now + wait;
}

std::optional<job::Outcome> PreflightAnswer::expired(job::Clock::time_point now) const {
    if (now < m_deadline) {
        return std::nullopt;
    }
    if (m_rendezvous) {
        return job::Outcome::cannot_run(job::describe_rendezvous_timeout(m_timeout),
                                        job::preflight_exit_status);
    }
    return job::Outcome::connect_failed(
        fmt::format("no answer from the node's preflight checks in {:g} s",
                    std::chrono::duration<double>(m_timeout).count()));
}

job::Outcome PreflightAnswer::ended(std::string_view user, std::string_view err,
                                    std::optional<int> exit_status) const {
    std::string printed = m_printed + m_line + "\n" + std::string(err);
    if (!m_started) {
        return job::Outcome::connect_failed(
            login_shell_ran_nothing(user, printed, exit_status, "the launcher's command"));
    }
    return job::Outcome::connect_failed(wrapper_ended_early(err, exit_status));
}

job::Outcome PreflightAnswer::lost(const std::string& reason) {
    return job::Outcome::connect_failed("connection lost during the preflight checks: " + reason);
}

} // namespace colossalai::ssh
