// The cpu backend allocates nothing per frame after the first (issue 2: a reusable processing
// context). This binary counts allocations with a replaced global operator new
// (tests/support/allocation_counter.h).
#include <gtest/gtest.h>

#include "core/chain.h"
#include "cpu/neon/cpu_backend.h"
#include "tests/support/allocation_counter.h"

namespace striate {
namespace {

class NoAllocationPerFrame : public ::testing::TestWithParam<const char*> {};

TEST_P(NoAllocationPerFrame, AfterTheFirstFrame) {
    Chain chain;
    ASSERT_TRUE(parseChain(GetParam(), &chain));
    cpu::CpuBackend backend(2);
    const FrameFormat fmt{97, 61};
    const long configureStart = testing::heapAllocations();
    ASSERT_TRUE(backend.configure(chain, fmt));
    EXPECT_GT(testing::heapAllocations(), configureStart) << "the counting operator new is not in use";
    Image<std::uint8_t> in(fmt.width, fmt.height);
    for (int y = 0; y < fmt.height; ++y)
        for (int x = 0; x < fmt.width; ++x) in.at(x, y) = static_cast<std::uint8_t>((x * 7 + y * 13) & 255);
    ChainOutput out;
    ASSERT_TRUE(backend.process(in.view(), &out));
    const long before = testing::heapAllocations();
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(backend.process(in.view(), &out));
    EXPECT_EQ(testing::heapAllocations() - before, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, NoAllocationPerFrame, ::testing::ValuesIn(testing::kEveryKernel));

} // namespace
} // namespace striate
