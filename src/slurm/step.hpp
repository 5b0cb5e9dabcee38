#pragma once

// Private to the slurm module: the shared state of the nodes of one srun step.

#include "task_lines.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/output/sink.hpp"
#include "colossalai/slurm/slurm_transport.hpp"

#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::slurm {

// One srun step and its tasks, as the nodes' processes (TaskProcess, by rank) see it. It is the
// NodeOutput of the srun child: srun's lines are read here and each task's bytes reach that
// node's output. Single-threaded, like the launcher's loop; the class comment of SlurmTransport
// says what each transition does.
class Step : public output::NodeOutput {
public:
    struct Settings {
        exec::SpawnRequest srun;         // srun's argv, environment and directory
        std::size_t tasks = 0;           // one per node
        std::string scancel = "scancel"; // found on srun's PATH
        std::function<void(std::string_view)> notice;
        std::function<void(std::size_t, const std::string&)> named; // empty: the hosts are known
        Spawn spawn;
    };

    explicit Step(Settings settings);

    // Registers node `rank`'s output and command (what its failed checks name).
    void add(std::size_t rank, output::NodeOutput& sink, const job::NodeCommand& command);

    // --- the node processes' calls, by rank ---
    void go();
    void collect_fds(std::size_t rank, std::vector<pollfd>& fds);
    void process_events(std::size_t rank, std::span<const pollfd> fds);
    bool has_work(std::size_t rank) const;
    std::optional<job::Clock::time_point> deadline(std::size_t rank) const;
    void stop(int signo);
    void kill();
    void abandon();
    // Once given, a task's result stays (the loop asks no more, and the next rank takes over
    // srun's descriptors).
    std::optional<job::Outcome> result(std::size_t rank) const;

    // --- NodeOutput: srun's stdout and stderr ---
    bool accepting(output::Stream stream) const override;
    void write(output::Stream stream, std::string_view bytes) override;
    void close(output::Stream stream) override;

private:
    struct Task {
        output::NodeOutput* sink = nullptr;
        job::NodeCommand command;                     // what a failed check names
        std::optional<job::PreflightFailure> failure; // the task's preflight failed
        std::array<bool, 2> open{true, true};
        std::optional<int> status;
        mutable std::optional<job::Outcome> reported;
        bool started = false; // its start marker came: its job may have run
        bool named = false;
    };

    // What scancel prints: kept for the notice when it fails.
    class Collected : public output::NodeOutput {
    public:
        bool accepting(output::Stream) const override { return true; }
        void write(output::Stream, std::string_view bytes) override;
        void close(output::Stream) override {}
        std::string text;
    };

    std::optional<job::Outcome> compute_result(std::size_t rank) const;
    void line(output::Stream stream, std::string_view text);
    // The job's bytes for `task`'s stream, gathered so that the lines of one read of srun's
    // output reach the node in one write (as the job's chunk reaches an SSH node), and written
    // out before anything else happens (a marker, a notice) and at the end of the read.
    void gather(Task& task, output::Stream stream, std::string_view bytes);
    void flush();
    void notice(std::string_view text);
    void name(std::size_t rank, std::string_view node);
    std::size_t owner() const;
    bool others_running(std::size_t rank) const;
    void update();
    void not_started();
    void close_all();
    // The stop sequence's means (step_stop.cpp).
    void deliver(int signo);
    void end_request();
    void start_scancel();
    void check_scancel();

    Settings m_settings;
    std::vector<Task> m_tasks;
    std::vector<std::optional<std::size_t>> m_rank_of; // srun task id -> node rank
    std::array<std::string, 2> m_buffers;              // partial lines of srun's stdout, stderr
    Task* m_gathered_task = nullptr;                   // whose bytes m_gathered holds
    output::Stream m_gathered_stream = output::Stream::out;
    std::string m_gathered;
    std::unique_ptr<job::Process> m_srun;
    std::optional<job::Outcome> m_srun_exit;
    std::string m_step; // `JOB.STEP`, from the first start marker
    // The stop sequence so far: the signals delivered to the step (through scancel), the last
    // stop signal, whether srun itself was told to end the step (SIGTERM: its tasks get
    // SIGKILL; a request still waiting is cancelled) or killed.
    std::set<int> m_delivered;
    int m_stop_signal = 0;
    bool m_stopped = false;
    bool m_srun_ended_step = false;
    bool m_not_started = false;
    // scancel: one at a time, the signals waiting for it in order. Its output is declared
    // before it: a scancel still running when the step is destroyed (the launcher ends while
    // it runs) is abandoned by its destructor, which closes that output (UBSan saw it used
    // after its end).
    std::deque<int> m_scancel_queue;
    Collected m_scancel_output;
    std::unique_ptr<job::Process> m_scancel;
    int m_scancel_signal = 0;
    // What the last collect_fds() gave the loop, to hand each its own part back.
    std::size_t m_collector = 0;
    std::size_t m_srun_fds = 0;
    const job::Process* m_polled_scancel = nullptr;
};

} // namespace colossalai::slurm
