#pragma once

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/output/sink.hpp"
#include "colossalai/step/task_lines.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// The family of engines that start many nodes through one launcher process (srun; mpirun next):
// one child runs every node's task, its output carries every task's lines (task_lines.hpp), and
// the step splits them per node, gives each node its outcome and runs the stop sequence for all.
// An engine supplies only what differs (Engine below): its launcher's command line, how the
// launcher labels lines (if at all), and how a stop reaches the tasks. How a task learns its rank
// (SLURM_NODEID, OMPI_COMM_WORLD_RANK, PMI_RANK) is the engine's task script's: the rank goes
// into every line the task writes, so the step never relies on the launcher's label.
namespace colossalai::step {

// How the step starts its local programs (the launcher, the engine's helpers such as scancel):
// as a local job (job::start_local_job) by default; a unit test's fake otherwise. Each is a
// Process that the launcher's loop polls, so nothing blocks.
using Spawn = std::function<std::unique_ptr<job::Process>(const exec::SpawnRequest& request,
                                                          output::NodeOutput& output)>;

// A line of the launcher process's output that the launcher says is a task's.
struct LabelledLine {
    std::optional<int> task; // the launcher's task id (srun's `N: `); nullopt: it has no label
    std::string_view text;   // the line as the task wrote it
};

class Step;

// How long a launch's tasks may take, from the launcher's start, until every one is ready
// (Engine::ready_bound): past it, the launch stops before any job started.
struct ReadyBound {
    std::chrono::milliseconds within{0};
    // What the summary says of a node whose task said nothing within it (after `failure (`), in
    // the engine's words: what it could not do there, and what to check (mpirun: the node's
    // sshd).
    std::string unheard;
};

// What an engine supplies to the family (slurm::SrunEngine; an mpirun engine would be: its
// launcher's command built by its own module, read_label() returning every line unlabelled,
// notice() naming mpirun, and deliver() sending Open MPI's SIGUSR1/SIGUSR2, which mpirun forwards
// and the task's wrapper turns into the grace sequence, to the launcher with
// Step::signal_launcher()).
class Engine {
public:
    virtual ~Engine() = default;

    // One line of the launcher's output (without its newline): a task's line with the label the
    // launcher put on it, or nullopt for the launcher's own line (srun's unlabelled messages).
    // Without a label, a line that is no task's (task_lines.hpp: Foreign) is the launcher's.
    virtual std::optional<LabelledLine> read_label(std::string_view line) const = 0;
    // The launcher's own line as the launcher's notice: `colossalai: srun: ...\n`.
    virtual std::string notice(std::string_view line) const = 0;
    // What the stop delivery names the step by, from a task's start marker (its HANDLE); empty
    // when it cannot name it that way (then the delivery goes through the launcher).
    virtual std::string step_handle(std::string_view handle) const = 0;

    // The stop delivery: `signo` (SIGKILL: the kill) to every task, once per signal, while the
    // launcher runs; Step::handle() says whether a task named the step yet.
    virtual void deliver(Step& step, int signo) = 0;
    // Every task said it is ready (task_lines.hpp: its preflight passed, and it waits) before any
    // stop: the engine lets their jobs start, once. Engines whose tasks do not wait never get it.
    virtual void release(Step&) {}
    // Whether each task waits for release() before its job (it prints its ready marker and
    // waits): then a task stopped before the release never started its job, whatever markers
    // came before (srun's start marker names the step at once).
    virtual bool waits_for_release() const { return false; }
    // With waits_for_release(): how long the tasks may take to be ready, from the launcher's
    // start. Past it, while neither the release nor a stop came, each task not ready yet is its
    // node's failure (job::preflight_exit_status: the ReadyBound's words when it said nothing
    // yet, else that it was not ready in time) and the launcher is killed, which ends the others
    // unstarted (mpirun: Hydra waits for ever for a proxy whose ssh failed). nullopt: no bound
    // (srun's tasks may wait in the queue for resources).
    virtual std::optional<ReadyBound> ready_bound() const { return std::nullopt; }
    // The delivery's own child (a scancel) while one runs, polled with the launcher.
    virtual job::Process* helper() { return nullptr; }
    // After the loop's events, and after deliver(): the delivery goes on (its helper ended).
    virtual void check(Step&) {}
};

// One launcher process and its tasks, as the nodes' processes (by rank) see it. It is the
// NodeOutput of the launcher: its lines are read here and each task's bytes reach that node's
// output. Single-threaded, like the launcher's loop.
//
// The stop sequence, for the whole step at once: stop(N) and kill() go to Engine::deliver once
// per signal; before the launcher started, the tasks end `not_started`; abandon() kills the
// launcher. A task's outcome: its failed preflight, else its exit marker's status (128+N is the
// signal N only when N was delivered); without a status once the launcher ended, `not_started`
// when stopped before its start marker, `killed` by the stop signal (SIGKILL when the launcher
// ended the tasks or a kill was delivered) when stopped after it, else the launcher's exit. A
// task not ready within the engine's ready_bound() is its node's failure at once, and the launcher
// is killed.
class Step : public output::NodeOutput {
public:
    struct Settings {
        exec::SpawnRequest launcher; // its argv, environment and directory
        std::string launcher_name;   // `srun`: what the notices and outcomes call it
        std::size_t tasks = 0;       // one per node
        std::function<void(std::string_view)> notice;
        // The launcher chooses the nodes (srun allocating): each task's start marker names its
        // node, which becomes its output's prefix and its process's host(); else the plan's.
        bool names_hosts = false;
        Spawn spawn;
        job::Now now = job::steady_now; // the clock of Engine::ready_bound
    };

    Step(Settings settings, std::unique_ptr<Engine> engine);
    ~Step() override;

    // Registers node `rank`'s output and command (what its failed checks name).
    void add(std::size_t rank, output::NodeOutput& sink, const job::NodeCommand& command);

    // --- the loop's, through StepTransport: the launcher and the delivery's helper ---
    void collect_fds(std::vector<pollfd>& fds);
    void process_events(std::span<const pollfd> fds);
    bool has_work() const;
    std::optional<job::Clock::time_point> deadline() const;

    // --- the node processes' calls ---
    void go();
    void stop(int signo);
    void kill();
    void abandon();
    // Once given, a task's result stays: the loop asks no more, and it must not change as the
    // stop sequence goes on for the others (a later signal would read its 128+N otherwise).
    std::optional<job::Outcome> result(std::size_t rank) const;
    // The name its start marker gave node `rank` (Settings::names_hosts), else nullopt.
    std::optional<std::string> host(std::size_t rank) const { return m_tasks[rank].host; }

    // --- for the engine's stop delivery ---
    const std::string& handle() const { return m_handle; } // empty until a task named the step
    const exec::SpawnRequest& launcher_request() const { return m_settings.launcher; }
    bool launcher_ended() const { return m_launcher_exit.has_value(); }
    // The launcher ends the tasks itself (srun told SIGTERM ends its step with SIGKILL): `signo`
    // to it (SIGKILL: kill()); a task without a status is then killed by SIGKILL.
    void end_by_launcher(int signo);
    bool ended_by_launcher() const { return m_launcher_ended_tasks; }
    // `signo` to the launcher, which passes it on to its tasks (mpirun's SIGUSR1).
    void signal_launcher(int signo);
    std::unique_ptr<job::Process> spawn(const exec::SpawnRequest& request,
                                        output::NodeOutput& output);
    void notice(std::string_view text);

    // --- NodeOutput: the launcher's stdout and stderr ---
    bool accepting(output::Stream stream) const override;
    void write(output::Stream stream, std::string_view bytes) override;
    void close(output::Stream stream) override;

private:
    struct Task {
        output::NodeOutput* sink = nullptr;
        job::NodeCommand command;           // what a failed check names
        std::optional<TaskFailure> failure; // the task's preflight or rendezvous check failed
        // Each of the launcher's streams until the task's exit marker on it; the node's output
        // closes once both ended (a frame says its own stream, and mpirun's tasks write every
        // frame on stderr).
        std::array<bool, 2> open{true, true};
        std::optional<int> status;
        mutable std::optional<job::Outcome> reported;
        bool started = false; // its start marker came: its job may have run
        bool ready = false;   // its ready marker came
        bool heard = false;   // a line of its own came (a marker, a frame)
        // Not ready within the engine's ready_bound(): why, the node's failure.
        std::optional<std::string> late;
        std::optional<std::string> host; // the name the launcher chose (names_hosts)
    };

    std::optional<job::Outcome> compute_result(std::size_t rank) const;
    void line(output::Stream stream, std::string_view text);
    void task_line(output::Stream stream, const LabelledLine& labelled);
    // The job's bytes for `task`'s stream, gathered so that the lines of one read of the
    // launcher's output reach the node in one write (as the job's chunk reaches an SSH node), and
    // written out before anything else happens (a marker, a notice) and at the end of the read.
    void gather(Task& task, output::Stream stream, std::string_view bytes);
    void flush();
    void name(std::size_t rank, std::string_view node);
    bool others_running(std::size_t rank) const;
    void update();
    void not_started();
    void close_all();
    // The task's exit marker came on the launcher's `stream`: once both streams ended, the
    // node's output closes.
    void end_stream(Task& task, output::Stream stream);
    void deliver(int signo);
    void ready(std::size_t rank);
    // Past the engine's ready_bound() before the release or a stop: the tasks not ready are late,
    // the launcher is killed.
    bool awaiting_ready() const;
    void check_ready_bound();

    Settings m_settings;
    std::unique_ptr<Engine> m_engine;
    std::vector<Task> m_tasks;
    std::vector<std::optional<std::size_t>> m_rank_of; // the launcher's task id -> node rank
    std::array<std::string, 2> m_buffers; // partial lines of the launcher's stdout, stderr
    Task* m_gathered_task = nullptr;      // whose bytes m_gathered holds
    output::Stream m_gathered_stream = output::Stream::out;
    std::string m_gathered;
    std::unique_ptr<job::Process> m_launcher;
    std::optional<job::Outcome> m_launcher_exit;
    std::string m_handle; // the engine's name of the step, from the first start marker
    // The stop sequence so far: the signals delivered, the last stop signal, whether the
    // launcher itself was told to end the tasks (or killed).
    std::set<int> m_delivered;
    int m_stop_signal = 0;
    bool m_stopped = false;
    bool m_launcher_ended_tasks = false;
    bool m_not_started = false;
    bool m_released = false;                          // Engine::release was called
    std::optional<ReadyBound> m_ready_bound;          // the engine's, read once
    std::optional<job::Clock::time_point> m_ready_by; // from the launcher's start
    // What the last collect_fds() gave the loop: how many of the launcher's, and whose after
    // them (a helper started in between has none).
    std::size_t m_launcher_fds = 0;
    const job::Process* m_polled_helper = nullptr;
};

// The Settings of a launcher process started on this machine for `nodes` (the plan's, in rank
// order, one task each): `argv`, in node 0's working directory, with `launcher_environment` and
// node 0's environment changes and flag variables (every node's are the same: the launcher passes
// them on, or the task script exports them), started as a local job
// (job::start_local_job, `kill_grace`) unless `spawn` is given.
Step::Settings local_launcher_settings(std::vector<std::string> argv, std::string name,
                                       const std::vector<job::NodeCommand>& nodes,
                                       const std::vector<std::string>& launcher_environment,
                                       std::chrono::milliseconds kill_grace,
                                       std::function<void(std::string_view)> notice,
                                       Spawn spawn = {});

// The family's transport: every node's process is a view onto one shared Step (by its rank),
// which the first go() starts once every node is ready; the loop polls the Step through the
// transport, once per turn, for all the nodes. An engine's transport is this with its Settings
// and Engine (slurm::SlurmTransport).
class StepTransport : public job::Transport {
public:
    StepTransport(Step::Settings settings, std::unique_ptr<Engine> engine);
    ~StepTransport() override;

    // Called once per node, in rank order.
    std::unique_ptr<job::Process> start(const job::NodeCommand& command,
                                        output::NodeOutput& output) override;

    void collect_fds(std::vector<pollfd>& fds) override { m_step->collect_fds(fds); }
    void process_events(std::span<const pollfd> fds) override { m_step->process_events(fds); }
    bool has_work() const override { return m_step->has_work(); }
    std::optional<job::Clock::time_point> deadline() const override { return m_step->deadline(); }

private:
    std::shared_ptr<Step> m_step;
};

} // namespace colossalai::step
