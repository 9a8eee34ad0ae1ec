// The cpu backend's thread pool: every index runs once per loop, on a worker number in range, loop
// after loop; pools of one thread run inline; two pools drive loops from two threads at once. Run
// under ThreadSanitizer by scripts/tsan.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "cpu/neon/thread_pool.h"

namespace striate::cpu {
namespace {

class ThreadPoolSizes : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolSizes, EveryIndexOnceOnAWorkerInRangeLoopAfterLoop) {
    ThreadPool pool(GetParam());
    ASSERT_EQ(pool.size(), std::max(1, GetParam()));
    for (int count : {0, 1, 2, 3, 7, 64, 1000}) {
        for (int repeat = 0; repeat < 20; ++repeat) {
            std::vector<std::atomic<int>> hits(count);
            std::atomic<int> badWorker{0};
            pool.parallelFor(count, [&](int i, int w) {
                hits[i].fetch_add(1, std::memory_order_relaxed);
                if (w < 0 || w >= pool.size()) badWorker.fetch_add(1);
            });
            for (int i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << count;
            ASSERT_EQ(badWorker.load(), 0);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolSizes, ::testing::Values(1, 2, 3, 8));

TEST(ThreadPool, PerWorkerScratchNeedsNoLock) {
    // What the backend does: each worker writes its own slot without synchronisation.
    ThreadPool pool(4);
    std::vector<long> perWorker(pool.size(), 0);
    for (int frame = 0; frame < 200; ++frame)
        pool.parallelFor(97, [&](int i, int w) { perWorker[w] += i; });
    long total = 0;
    for (long v : perWorker) total += v;
    EXPECT_EQ(total, 200L * 96 * 97 / 2);
}

TEST(ThreadPool, TwoPoolsFromTwoThreadsAtOnce) {
    // Two pipelines' cpu backends: each its own pool, driven by its own streaming thread.
    auto drive = [](long* sum) {
        ThreadPool pool(3);
        std::vector<long> perWorker(pool.size(), 0);
        for (int frame = 0; frame < 300; ++frame) pool.parallelFor(50, [&](int i, int w) { perWorker[w] += i; });
        for (long v : perWorker) *sum += v;
    };
    long a = 0, b = 0;
    std::thread ta(drive, &a), tb(drive, &b);
    ta.join();
    tb.join();
    EXPECT_EQ(a, 300L * 49 * 50 / 2);
    EXPECT_EQ(b, a);
}

} // namespace
} // namespace striate::cpu
