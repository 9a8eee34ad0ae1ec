#include "cpu/neon/thread_pool.h"

#include <algorithm>

namespace striate::cpu {

int defaultThreadCount() { return std::max(1u, std::thread::hardware_concurrency()); }

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::runItems(int worker) {
    while (true) {
        int index;
        {
            std::lock_guard lock(mutex_);
            if (next_ >= count_) return;
            index = next_++;
        }
        (*job_)(index, worker);
    }
}

void ThreadPool::workerLoop(int worker) {
    unsigned seen = 0;
    while (true) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            ++busy_;
        }
        runItems(worker);
        {
            std::lock_guard lock(mutex_);
            --busy_;
        }
        done_.notify_all();
    }
}

void ThreadPool::run(int count, LoopBody fn) {
    if (count <= 0) return;
    if (workers_.empty() || count == 1) {
        for (int i = 0; i < count; ++i) fn(i, 0);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        job_ = &fn;
        count_ = count;
        next_ = 0;
        ++generation_;
    }
    wake_.notify_all();
    runItems(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0 && next_ >= count_; });
    job_ = nullptr;
}

} // namespace striate::cpu
