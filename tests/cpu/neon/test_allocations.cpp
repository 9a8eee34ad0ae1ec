// The cpu backend allocates nothing per frame after the first (issue 2: a reusable processing
// context). This binary replaces the global operator new to count allocations.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/chain.h"
#include "cpu/neon/cpu_backend.h"

// The replacements below pair malloc/aligned_alloc with free, which is correct; GCC cannot see
// that through replaced global operators.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<long> gAllocations{0};
}

void* operator new(std::size_t n) {
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    const std::size_t al = static_cast<std::size_t>(a);
    if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace striate {
namespace {

class NoAllocationPerFrame : public ::testing::TestWithParam<const char*> {};

TEST_P(NoAllocationPerFrame, AfterTheFirstFrame) {
    Chain chain;
    ASSERT_TRUE(parseChain(GetParam(), &chain));
    cpu::CpuBackend backend(2);
    const FrameFormat fmt{97, 61};
    const long configureStart = gAllocations.load();
    ASSERT_TRUE(backend.configure(chain, fmt));
    EXPECT_GT(gAllocations.load(), configureStart) << "the counting operator new is not in use";
    Image<std::uint8_t> in(fmt.width, fmt.height);
    for (int y = 0; y < fmt.height; ++y)
        for (int x = 0; x < fmt.width; ++x) in.at(x, y) = static_cast<std::uint8_t>((x * 7 + y * 13) & 255);
    ChainOutput out;
    ASSERT_TRUE(backend.process(in.view(), &out));
    const long before = gAllocations.load();
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(backend.process(in.view(), &out));
    EXPECT_EQ(gAllocations.load() - before, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, NoAllocationPerFrame,
                         ::testing::Values("blur method=direct", "blur method=boxes sigma=5",
                                           "blur method=recursive sigma=5", "gabor method=direct sigma=2",
                                           "gabor sigma=4 orientations=4", "gabor output=complex",
                                           "gabor output=phase", "edges", "edges method=gabor output=overlay",
                                           "blur sigma=1 ! gabor ! edges"));

} // namespace
} // namespace striate
