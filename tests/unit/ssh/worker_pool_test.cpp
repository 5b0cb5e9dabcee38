#include "colossalai/ssh/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <vector>

namespace colossalai::ssh {
namespace {

// wait_idle() returns once every submitted task ended, with what each wrote visible: more tasks
// than threads, so that some wait in the queue.
TEST(WorkerPool, WaitIdleReturnsWhenEveryTaskEnded) {
    constexpr int count = 50;
    std::vector<int> results(count, 0);
    WorkerPool pool(4);
    for (int i = 0; i < count; ++i) {
        pool.submit([&results, i] { results[static_cast<std::size_t>(i)] = i * i; });
    }
    pool.wait_idle();
    EXPECT_FALSE(pool.busy());
    for (int i = 0; i < count; ++i) {
        EXPECT_EQ(results[static_cast<std::size_t>(i)], i * i) << i;
    }
}

// A task still running holds wait_idle(): it is released only by that task's end.
TEST(WorkerPool, WaitIdleWaitsForARunningTask) {
    WorkerPool pool(2);
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> ended{false};
    pool.submit([released, &ended] {
        released.wait();
        ended = true;
    });
    // What the waiter saw when wait_idle() returned: the task's end, never before it.
    std::future<bool> waiting = std::async(std::launch::async, [&pool, &ended] {
        pool.wait_idle();
        return ended.load();
    });
    EXPECT_TRUE(pool.busy());
    release.set_value();
    EXPECT_TRUE(waiting.get());
}

TEST(WorkerPool, WaitIdleWithoutTasksReturnsAtOnce) {
    WorkerPool pool(1);
    pool.wait_idle();
    EXPECT_FALSE(pool.busy());
}

} // namespace
} // namespace colossalai::ssh
