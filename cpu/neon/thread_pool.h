#pragma once

#include <condition_variable>
#include <mutex>
#include <type_traits>
#include <thread>
#include <vector>

namespace striate::cpu {

/// A non-owning reference to a callable taking (index, worker). Unlike std::function it never
/// allocates, which keeps process() free of per-frame allocations.
class LoopBody {
public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, LoopBody>>>
    LoopBody(F& f) : object_(&f), call_([](void* o, int i, int w) { (*static_cast<F*>(o))(i, w); }) {}
    void operator()(int index, int worker) const { call_(object_, index, worker); }

private:
    void* object_;
    void (*call_)(void*, int, int);
};

/// A fixed set of worker threads that run one parallel loop at a time. The calling thread takes
/// part as worker 0, so a pool of one thread runs everything inline. Workers are created once and
/// reused for every frame.
class ThreadPool {
public:
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    /// Calls fn(index, worker) for index in [0, count); `worker` in [0, size()) names the thread,
    /// so callers can give each thread its own scratch memory. Returns when all calls are done.
    template <class F>
    void parallelFor(int count, F&& fn) {
        run(count, LoopBody(fn));
    }

private:
    void run(int count, LoopBody body);
    void workerLoop(int worker);
    void runItems(int worker);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    const LoopBody* job_ = nullptr;
    int count_ = 0;
    int next_ = 0;
    int busy_ = 0;
    unsigned generation_ = 0;
    bool stop_ = false;
};

/// Threads to use when the caller does not say: the machine's hardware threads.
int defaultThreadCount();

} // namespace striate::cpu
