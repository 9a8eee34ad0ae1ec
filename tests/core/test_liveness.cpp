// Storage shared by liveness (core/liveness.h).
#include <gtest/gtest.h>

#include "core/liveness.h"

namespace striate {
namespace {

TEST(Liveness, ValuesWhoseLivesDoNotOverlapShareStorage) {
    // a: passes 0-1, b: 1-2, c: 2-3 (a is dead by then), d: 3-3 (b is dead by then).
    const std::vector<Life> lives = {{0, 1}, {1, 2}, {2, 3}, {3, 3}};
    std::vector<int> kinds;
    const std::vector<int> storage = shareStorage({0, 0, 0, 0}, lives, &kinds);
    EXPECT_EQ(storage, (std::vector<int>{0, 1, 0, 1}));
    EXPECT_EQ(kinds, (std::vector<int>{0, 0}));
}

TEST(Liveness, AValueReadAndWrittenInOnePassKeepsItsInputApart) {
    // The input's last use is the pass that writes the output: the two overlap there.
    std::vector<int> kinds;
    EXPECT_EQ(shareStorage({0, 0}, {{0, 4}, {4, 5}}, &kinds), (std::vector<int>{0, 1}));
}

TEST(Liveness, OnlyValuesOfOneKindShare) {
    std::vector<int> kinds;
    const std::vector<int> storage = shareStorage({7, 9, 7}, {{0, 0}, {1, 1}, {2, 2}}, &kinds);
    EXPECT_EQ(storage, (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(kinds, (std::vector<int>{7, 9}));
}

TEST(Liveness, UnusedValuesGetNoStorage) {
    std::vector<int> kinds;
    EXPECT_EQ(shareStorage({0, 0}, {{}, {3, 4}}, &kinds), (std::vector<int>{-1, 0}));
    EXPECT_EQ(kinds.size(), 1u);
}

TEST(Liveness, OrderOfFirstUseNotOfCreation) {
    // Created late but used first: the linear scan goes by first use.
    std::vector<int> kinds;
    EXPECT_EQ(shareStorage({0, 0, 0}, {{5, 6}, {0, 1}, {2, 3}}, &kinds), (std::vector<int>{0, 0, 0}));
}

TEST(Liveness, UseExtendsALife) {
    Life l;
    EXPECT_LT(l.first, 0);
    l.use(4);
    l.use(2);
    l.use(9);
    EXPECT_EQ(l.first, 2);
    EXPECT_EQ(l.last, 9);
}

} // namespace
} // namespace striate
