// The line engine's gathers and scatters: transposes of every width and lane count.
#include "cpu/neon/lines.h"

#include <gtest/gtest.h>

namespace striate::cpu {
namespace {

TEST(Lines, GatherScatterRowsRoundTripsEveryWidth) {
    for (int w : {1, 3, 4, 5, 17}) {
        for (int h : {1, 5, 16, 19}) {
            Image<float> src(w, h), dst(w, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    src.at(x, y) = float(100 * y + x);
                    dst.at(x, y) = -1;
                }
            std::vector<float> block(std::size_t(w) * kLanes);
            for (int r = 0; r < h; r += kLanes) {
                gatherRows(ImageView<const float>(src.view()), r, block.data());
                for (int x = 0; x < w; ++x)
                    for (int l = 0; l < kLanes; ++l)
                        ASSERT_EQ(block[x * kLanes + l], float(100 * std::min(r + l, h - 1) + x));
                scatterRows(block.data(), r, dst.view());
            }
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ASSERT_EQ(dst.at(x, y), src.at(x, y));
        }
    }
}

TEST(Lines, GatherColumnsFromBytesScalesAndReplicates) {
    Image<std::uint8_t> src(20, 3);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 20; ++x) src.at(x, y) = static_cast<std::uint8_t>(10 * y + x);
    std::vector<float> block(3 * kLanes);
    gatherColumns(ImageView<const std::uint8_t>(src.view()), 16, block.data());
    for (int y = 0; y < 3; ++y)
        for (int l = 0; l < kLanes; ++l) EXPECT_FLOAT_EQ(block[y * kLanes + l], (10 * y + 16 + std::min(l, 3)) / 255.0f);
}

} // namespace
} // namespace striate::cpu
