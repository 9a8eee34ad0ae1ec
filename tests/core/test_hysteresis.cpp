// core/hysteresis.h: the flood from strong pixels against the definition, iterated to its fixed
// point (a weak pixel with an edge among its 8 neighbours becomes an edge), on random class maps
// of odd sizes inside wider rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/hysteresis.h"

namespace striate {
namespace {

struct Size {
    int w, h;
};

class Flood : public ::testing::TestWithParam<Size> {};

TEST_P(Flood, MarksWhatTheFixedPointOfTheDefinitionMarks) {
    const auto [W, H] = GetParam();
    const int stride = W + 3;  // rows wider than the frame: the flood stays inside the W columns
    std::mt19937 random(static_cast<unsigned>(W * 131 + H));
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<std::uint8_t> c(static_cast<std::size_t>(stride) * H);
        // Mostly weak and none, a few strong: long weak paths; the padding holds strong bytes
        // the flood must never reach.
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < stride; ++x) {
                const unsigned r = random() % 100;
                c[y * stride + x] = x >= W ? 2 : r < 3 ? 2 : r < 55 ? 1 : 0;
            }
        std::vector<std::uint8_t> want = c;
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x)
                if (want[y * stride + x] == 2) want[y * stride + x] = 3;
        for (bool changed = true; changed;) {
            changed = false;
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    if (want[y * stride + x] != 1) continue;
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int nx = x + dx, ny = y + dy;
                            if (nx >= 0 && nx < W && ny >= 0 && ny < H && want[ny * stride + nx] == 3 && want[y * stride + x] == 1) {
                                want[y * stride + x] = 3;
                                changed = true;
                            }
                        }
                }
        }
        std::size_t marked = 0;
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) marked += want[y * stride + x] == 3;
        std::vector<std::int32_t> queue(static_cast<std::size_t>(W + 1) * H);
        EXPECT_EQ(floodFromStrong(c.data(), stride, W, 0, H, queue.data()), marked) << W << "x" << H;
        ASSERT_EQ(c, want) << W << "x" << H << ", trial " << trial;
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, Flood, ::testing::Values(Size{1, 1}, Size{2, 1}, Size{1, 7}, Size{5, 3}, Size{33, 7},
                                                         Size{64, 48}, Size{131, 67}));

} // namespace
} // namespace striate
