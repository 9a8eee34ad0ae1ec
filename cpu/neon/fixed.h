#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.h"
#include "core/spec.h"

/// 8-bit in, 8-bit out kernels in 16-bit fixed point (issue 14): eight samples per 128-bit NEON
/// instruction where the float path has four, and a quarter of the float path's memory traffic.
/// docs/algorithms.md ("8-bit outputs in fixed point") derives the error bound.
namespace striate::cpu {

/// The most a fixed-point pass may be off the exact value, in codes: two passes stay below one
/// code (0.9), so every output is within one code of the correctly rounded result. A pass with
/// taps q[0..R'] is off by at most 255 P + (R' + 1) / 128: P the positive part of the taps'
/// errors against the exact taps t[-R..R] (dropped taps count), (R' + 1) / 128 the rounding of
/// its products (half a Q6 unit each).
inline constexpr double kFixedPassBound = 0.45;
/// The largest radius the fixed-point Gaussian runs (the bound stops it first: sigma 11 runs with
/// R' = 40, sigma 12 would need more than 48).
inline constexpr int kMaxFixedRadius = 48;

/// method=auto on 8-bit outputs: the fixed-point direct Gaussian below this sigma, where it is
/// faster than the recursive filter through floats (docs/performance-history.md, "Crossovers"); float
/// outputs keep BlurSpec::resolvedMethod's choice.
inline constexpr double kAutoFixedBelowSigma = 10.0;

/// Samples enter the fixed-point passes as value << kFixedShift: Q6, so that the sum of two
/// samples (symmetric taps are added first) stays below 2^15, also after a horizontal pass
/// (at most 255 x 64 + (R' + 1) / 2).
inline constexpr int kFixedShift = 6;

/// Gaussian taps t[0..R] in Q15, rounded so that q[0] + 2 (q[1] + ... + q[R']) is exactly 2^15
/// (q[0] takes the remainder), for the shortest R' <= R whose pass is within kFixedPassBound.
/// Empty when no R' <= kMaxFixedRadius is.
std::vector<std::int16_t> fixedGaussianTaps(const std::vector<double>& taps);
/// The taps the 8-bit path runs for a blur (fixedGaussianTaps): method direct, or auto below
/// kAutoFixedBelowSigma; empty where the fixed-point kernel does not run.
std::vector<std::int16_t> fixedTapsFor(const BlurSpec& spec);

/// Both passes of the fixed-point direct Gaussian for one band of output rows, asked for in
/// increasing order (as FirBand): the horizontal pass of each input row once, into a ring of the
/// last 2R + 1 rows of Q6 samples, and the vertical pass from the ring, rounded to 8 bits.
/// Each tap multiplies with vqrdmulh (a rounding Q15 product): at most half a Q6 unit of error
/// per tap pair.
class FixedBand {
public:
    /// Int16 samples the workspace holds.
    static std::size_t workspaceShorts(int width, int radius);
    /// avx2: the inner loops at 256 bits (runsAvx2(), cpu/neon/avx2.h).
    FixedBand(ImageView<const std::uint8_t> in, const std::vector<std::int16_t>& taps, std::int16_t* workspace,
              bool avx2 = false);
    /// Writes output row y (0 <= y < height, not below the previous call's y): width samples,
    /// `step` bytes apart.
    void rowInto(int y, std::uint8_t* out, int step);

private:
    void horizontal(int y, std::int16_t* out);
    /// Copies the row's codes from codes_ past the first `direct`, which are in place.
    void finishRow(std::uint8_t* out, int step, int direct) const;

    ImageView<const std::uint8_t> in_;
    const std::vector<std::int16_t>& taps_;
    bool avx2_;
    int radius_;
    int paddedWidth_;  // width rounded up to whole steps of four vectors of either width
    std::int16_t* ring_;
    std::int16_t* line_;
    std::uint8_t* codes_;  // one output row when it cannot be stored in place
    int next_ = -1;        // the next input row to filter horizontally
};

} // namespace striate::cpu
