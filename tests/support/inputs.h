// Inputs and comparisons shared by the conformance tests of every backend.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"
#include "core/params.h"

namespace striate::test {

struct Size {
    int w, h;
};

/// Uniform 8-bit noise: every filter's worst case for accumulated rounding.
inline Image<std::uint8_t> noise(Size s, unsigned seed) {
    Image<std::uint8_t> img(s.w, s.h);
    std::mt19937 rng(seed);
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) img.at(x, y) = static_cast<std::uint8_t>(rng() & 255);
    return img;
}

/// A synthetic scene (the edge conformance input): an anti-aliased disk, a rectangle, a thin
/// diagonal line, on a mid-grey background.
inline Image<std::uint8_t> scene(Size s) {
    Image<std::uint8_t> img(s.w, s.h);
    const double cx = s.w * 0.35, cy = s.h * 0.45, r = std::min(s.w, s.h) * 0.25;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            double v = 0.35;
            const double d = std::hypot(x - cx, y - cy) - r;
            v += 0.45 * std::clamp(0.5 - d, 0.0, 1.0);
            if (x > s.w * 0.6 && x < s.w * 0.9 && y > s.h * 0.2 && y < s.h * 0.7) v = 0.1;
            if (std::abs((x - s.w * 0.1) - (y - s.h * 0.6)) < 0.8) v = 0.95;
            img.at(x, y) = static_cast<std::uint8_t>(std::lround(v * 255));
        }
    return img;
}

/// The input a chain is tested on: the scene for edges, noise otherwise.
inline Image<std::uint8_t> inputFor(const Chain& chain, Size s) {
    return std::holds_alternative<EdgeSpec>(chain.stages.back()) ? scene(s) : noise(s, 11u * s.w + s.h);
}

struct Difference {
    double worst = 0;  ///< largest absolute difference (complex: of either plane or the magnitude)
    int differ = 0;    ///< pixels that differ at all
};

inline Difference compare(const ChainOutput& a, const ChainOutput& b) {
    Difference d;
    for (int y = 0; y < a.real.height; ++y)
        for (int x = 0; x < a.real.width; ++x) {
            double v = std::abs(double(a.real.at(x, y)) - double(b.real.at(x, y)));
            if (a.complex && b.complex) v = std::max(v, double(std::abs(a.complexPlane.at(x, y) - b.complexPlane.at(x, y))));
            if (!(v <= d.worst)) d.worst = v;  // NaN propagates as a failure
            d.differ += v != 0;
        }
    return d;
}

/// 8-bit codes written `step` bytes apart in rows `stride` bytes apart (process8's Output8) into
/// a buffer first filled with `fill`, against want(x, y): the largest difference, how many
/// differ, and how many bytes between samples or past the rows were touched.
struct CodeDifference {
    int worst = 0;
    int differ = 0;
    int touched = 0;
};
template <class Want>
CodeDifference compareCodes(const std::vector<std::uint8_t>& got, Size s, std::ptrdiff_t stride, int step,
                            std::uint8_t fill, Want&& want) {
    CodeDifference d;
    for (int y = 0; y < s.h; ++y)
        for (std::ptrdiff_t i = 0; i < stride; ++i) {
            const int v = got[static_cast<std::size_t>(y * stride + i)];
            if (i % step != 0 || i / step >= s.w) {
                d.touched += v != fill;
                continue;
            }
            const int diff = std::abs(v - int(want(static_cast<int>(i / step), y)));
            d.worst = std::max(d.worst, diff);
            d.differ += diff != 0;
        }
    return d;
}

/// process8 of `in` at `step` (rows padded by 5 bytes) against encode8 of `r`, the same frame's
/// process() output (its codes taken first: process8 may reuse the planes `r` views): the codes
/// that differ and the bytes touched between samples or past a row; `status` is process8's.
inline CodeDifference process8Against(Backend& b, ImageView<const std::uint8_t> in, const ChainOutput& r,
                                      const Encoding& e, int step, Status* status) {
    const Size s{in.width, in.height};
    Image<std::uint8_t> want(s.w, s.h);
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) want.at(x, y) = encode8(r.real.at(x, y), e);
    const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(s.w) * step + 5;
    std::vector<std::uint8_t> got(static_cast<std::size_t>(stride) * s.h, 7);
    *status = b.process8(in, Output8{got.data(), stride, step, e});
    return compareCodes(got, s, stride, step, 7, [&](int x, int y) { return want.at(x, y); });
}

/// The example chains of every stage's table (core/params.h), the catalogue selftest also runs.
inline std::vector<std::string> catalogue() {
    std::vector<std::string> out;
    for (const StageInfo& stage : stageInfos())
        for (const char* chain : stage.examples) out.push_back(chain);
    return out;
}

/// A test-name-safe version of a chain and size.
inline std::string caseLabel(const std::string& chain, Size s) {
    std::string n = chain + "_" + std::to_string(s.w) + "x" + std::to_string(s.h);
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

} // namespace striate::test
