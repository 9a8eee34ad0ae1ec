// The line engine's gathers and scatters: transposes of every width and lane count.
#include "cpu/neon/lines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cpu/neon/encode.h"

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

TEST(Encode, NeonCodesEqualTheScalarEncodingEverywhere) {
    // Every 8-bit code boundary, halves, NaN, infinities, negatives, and values above full scale.
    std::vector<float> values = {NAN, INFINITY, -INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f, 1e-9f, 0.99999f};
    for (int c = 0; c <= 256; ++c)
        for (float d : {-0.5f, -0.5000001f, -0.4999999f, 0.0f, 0.25f})
            values.push_back((c + d) / 255.0f);
    for (int i = 0; i < 3000; ++i) values.push_back(i / 2999.0f * 1.2f - 0.1f);
    const int W = static_cast<int>(values.size());
    ImageView<const float> in(values.data(), W, 1, W);
    for (Encoding e : {Encoding{}, Encoding{4.0, 0.5}, Encoding{1 / 6.283185307179586, 0.5}, Encoding{10.0, 0.0}}) {
        std::vector<std::uint8_t> a(W), rgba(4 * W, 7);
        std::vector<std::uint16_t> b(W);
        encodePlane8(in, e, a.data(), W, 1);
        encodePlane8(in, e, rgba.data(), 4 * W, 4);
        encodePlane16(in, e, b.data(), 2 * W);
        for (int x = 0; x < W; ++x) {
            ASSERT_EQ(a[x], encode8(values[x], e)) << values[x];
            ASSERT_EQ(rgba[4 * x], encode8(values[x], e)) << values[x];
            ASSERT_EQ(rgba[4 * x + 1], 7);
            ASSERT_EQ(b[x], encode16(values[x], e)) << values[x];
        }
    }
    EXPECT_EQ(encode8(0.5f / 255, Encoding{}), 1);  // halves round up
    EXPECT_EQ(encode8(NAN, Encoding{}), 0);
    EXPECT_EQ(encode16(2.0f, Encoding{}), 65535);
}

} // namespace
} // namespace striate::cpu
