#pragma once

#include <cstddef>
#include <cstdint>

/// Canny's hysteresis on a class map of one byte a pixel: 0 none, 1 weak, 2 strong, 3 edge.
/// Every weak pixel 8-connected to a strong one becomes an edge, and so does every strong pixel
/// (docs/algorithms.md 4). The cpu backend floods bands of rows in parallel with these; gles-fragment
/// finishes the class map it reads back with floodFromStrong (FragmentOptions::hysteresis).
namespace striate {

/// A pixel in hysteresis's queues: y << kPackShift | x (kMaxDimension is 1 << 15).
inline constexpr int kPackShift = 15;
inline std::int32_t packedPixel(int x, int y) { return y << kPackShift | x; }

/// Takes pixels (packed, already marked 3) from queue[0, tail) in turn and marks their weak or
/// strong 8-neighbours in rows [y0, y1) with 3, appending them. Each pixel is appended once, so the
/// queue needs room for the rows' pixels, and one entry more. Returns the final tail:
/// queue[0, tail) holds every pixel marked.
std::size_t flood(std::uint8_t* c, std::ptrdiff_t stride, int W, int y0, int y1, std::int32_t* queue, std::size_t tail);

/// Hysteresis within rows [y0, y1) from their strong pixels: each is marked 3 and flooded within
/// the rows. `queue` has room for (y1 - y0) * (W + 1) entries. Returns how many pixels it marked.
std::size_t floodFromStrong(std::uint8_t* c, std::ptrdiff_t stride, int W, int y0, int y1, std::int32_t* queue);

} // namespace striate
