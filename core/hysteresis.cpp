// Canny's hysteresis flood on a byte-per-pixel class map (core/hysteresis.h).
#include "core/hysteresis.h"

#include <algorithm>
#include <cstring>

#include "core/backend.h"

namespace striate {

static_assert(kMaxDimension <= 1 << kPackShift);

std::size_t flood(std::uint8_t* c, std::ptrdiff_t stride, int W, int y0, int y1, std::int32_t* queue, std::size_t tail) {
    const std::ptrdiff_t at[8] = {-stride - 1, -stride, -stride + 1, -1, 1, stride - 1, stride, stride + 1};
    constexpr std::int32_t row = 1 << kPackShift;
    const std::int32_t step[8] = {-row - 1, -row, -row + 1, -1, 1, row - 1, row, row + 1};
    // A queue, not a stack: the next pixel's place does not wait on how many the last one added.
    for (std::size_t head = 0; head < tail; ++head) {
        const int p = queue[head];
        const int px = p & (row - 1), py = p >> kPackShift;
        if (px > 0 && px < W - 1 && py > y0 && py < y1 - 1) {
            // Away from the rows' and the frame's edges, without a branch per neighbour (whether
            // a neighbour is weak does not follow a pattern a predictor learns): every
            // neighbour is written back, 3 if it was 1 or 2, and its place goes in the queue's
            // next entry, kept only if it was (the entry one past the rows' pixels exists).
            std::uint8_t* q = c + py * stride + px;
            for (int k = 0; k < 8; ++k) {
                const std::uint8_t n = q[at[k]];
                const bool grow = static_cast<std::uint8_t>(n - 1) < 2;
                q[at[k]] = grow ? 3 : n;
                queue[tail] = p + step[k];
                tail += grow;
            }
            continue;
        }
        for (int ny = std::max(py - 1, y0); ny <= std::min(py + 1, y1 - 1); ++ny)
            for (int nx = std::max(px - 1, 0); nx <= std::min(px + 1, W - 1); ++nx) {
                std::uint8_t& n = c[ny * stride + nx];
                if (n == 1 || n == 2) {
                    n = 3;
                    queue[tail++] = packedPixel(nx, ny);
                }
            }
    }
    return tail;
}

std::size_t floodFromStrong(std::uint8_t* c, std::ptrdiff_t stride, int W, int y0, int y1, std::int32_t* queue) {
    // Seeds are sparse, so rows are scanned with memchr (vectorised by the C library).
    std::size_t marked = 0;
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* row = c + y * stride;
        for (auto* seed = static_cast<std::uint8_t*>(std::memchr(row, 2, W)); seed;
             seed = static_cast<std::uint8_t*>(std::memchr(seed + 1, 2, W - (seed + 1 - row)))) {
            *seed = 3;
            queue[0] = packedPixel(static_cast<int>(seed - row), y);
            marked += flood(c, stride, W, y0, y1, queue, 1);
            if (seed + 1 >= row + W) break;
        }
    }
    return marked;
}

} // namespace striate
