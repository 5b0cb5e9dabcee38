#include "colossalai/ssh/worker_pool.hpp"

namespace colossalai::ssh {

WorkerPool::WorkerPool(std::size_t max_threads)
    : m_max_threads(max_threads == 0 ? 1 : max_threads) {}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_tasks.clear();
    }
    m_wake.notify_all();
    for (std::thread& thread : m_threads) {
        thread.join();
    }
}

void WorkerPool::submit(std::function<void()> task) {
    std::lock_guard lock(m_mutex);
    m_tasks.push_back(std::move(task));
    // Idle threads may not have woken for earlier tasks yet: count them against the queue.
    if (m_tasks.size() > m_idle && m_threads.size() < m_max_threads) {
        m_threads.emplace_back([this] { work(); });
    }
    m_wake.notify_one();
}

bool WorkerPool::busy() const {
    std::lock_guard lock(m_mutex);
    return m_running > 0 || !m_tasks.empty();
}

void WorkerPool::wait_idle() {
    std::unique_lock lock(m_mutex);
    m_idle_now.wait(lock, [this] { return m_running == 0 && m_tasks.empty(); });
}

void WorkerPool::work() {
    std::unique_lock lock(m_mutex);
    while (true) {
        ++m_idle;
        m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
        --m_idle;
        if (m_stopping) {
            return;
        }
        std::function<void()> task = std::move(m_tasks.front());
        m_tasks.pop_front();
        ++m_running;
        lock.unlock();
        task();
        lock.lock();
        --m_running;
        if (m_running == 0 && m_tasks.empty()) {
            m_idle_now.notify_all();
        }
    }
}

} // namespace colossalai::ssh
