#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace colossalai::ssh {

// A bounded set of threads for the blocking parts of SSH (connect, key exchange, auth): never
// a process or a thread per host. Threads start on demand, up to `max_threads`.
class WorkerPool {
public:
    explicit WorkerPool(std::size_t max_threads);
    // Drops tasks not yet started and joins the threads (a running task ends within its own
    // timeouts).
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    void submit(std::function<void()> task);

    // True while a task is queued or running.
    bool busy() const;

    // Blocks until no task is queued or running: every task submitted so far has ended, and
    // what it wrote is visible to the caller. For a caller with nothing else to wait for (a
    // loop polls busy() or the tasks' own descriptors instead).
    void wait_idle();

private:
    void work();

    std::size_t m_max_threads;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle_now; // a task ended and none is queued or running
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_threads;
    std::size_t m_idle = 0;
    std::size_t m_running = 0;
    bool m_stopping = false;
};

} // namespace colossalai::ssh
