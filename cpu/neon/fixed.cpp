#include "cpu/neon/fixed.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/coefficients.h"
#include "cpu/neon/avx2.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

constexpr int kVector = 8;   // int16 samples per 128-bit vector
constexpr int kAccumulators = 4;  // vectors per step: independent accumulators, tap loads shared
constexpr int kStep = kVector * kAccumulators;
constexpr int kOne = 1 << 15;
/// Rows are padded to whole steps of either width (avx2::kStep is twice kStep).
constexpr int kPadding = 2 * kStep;

int roundUp(int n) { return (n + kPadding - 1) / kPadding * kPadding; }

/// A rounding Q15 product by a tap broadcast to every lane: vqrdmulh. Its saturation (only
/// -2^15 times -2^15) cannot occur here, so on x86 it is SSSE3's pmulhrsw, one instruction where
/// SIMDe 0.7.4 adds a saturation fix (and runs vqrdmulhq_n_s16 one lane at a time).
inline int16x8_t times(int16x8_t v, int16x8_t tap) {
#if !STRIATE_NEON_NATIVE && defined(__SSSE3__)
    return std::bit_cast<int16x8_t>(_mm_mulhrs_epi16(std::bit_cast<__m128i>(v), std::bit_cast<__m128i>(tap)));
#else
    return vqrdmulhq_s16(v, tap);
#endif
}

/// Eight Q6 sums (non-negative, below 2^15 - 32) rounded to 8-bit codes: vqrshrun, which SIMDe
/// runs as a rounding shift and a saturating narrow of several instructions each.
inline uint8x8_t codesOf(int16x8_t v) {
#if !STRIATE_NEON_NATIVE && defined(__SSE2__)
    __m128i a;
    std::memcpy(&a, &v, sizeof a);
    a = _mm_srai_epi16(_mm_add_epi16(a, _mm_set1_epi16(1 << (kFixedShift - 1))), kFixedShift);
    a = _mm_packus_epi16(a, a);
    uint8x8_t r;
    std::memcpy(&r, &a, sizeof r);
    return r;
#else
    return vqrshrun_n_s16(v, kFixedShift);
#endif
}

/// One step of kStep samples of a symmetric FIR in Q15: q[i] holds tap i in every lane, and
/// pair(i) the samples i before and after the step's first (pair(0): the centre, twice).
template <class Pair>
void symmetricStep(const int16x8_t* q, int R, Pair&& pair, int16x8_t* acc) {
    const std::int16_t* centre = pair(0).first;
    for (int v = 0; v < kAccumulators; ++v) acc[v] = times(vld1q_s16(centre + v * kVector), q[0]);
    for (int i = 1; i <= R; ++i) {
        const auto [before, after] = pair(i);
        for (int v = 0; v < kAccumulators; ++v)
            acc[v] = vaddq_s16(acc[v], times(vaddq_s16(vld1q_s16(before + v * kVector), vld1q_s16(after + v * kVector)), q[i]));
    }
}

/// The taps in every lane, in registers or on the stack for the row's steps.
void splat(const std::vector<std::int16_t>& taps, int16x8_t* q) {
    for (std::size_t i = 0; i < taps.size(); ++i) q[i] = vdupq_n_s16(taps[i]);
}

} // namespace

std::vector<std::int16_t> fixedGaussianTaps(const std::vector<double>& taps) {
    const int R = static_cast<int>(taps.size()) - 1;
    // The shortest kernel whose pass is within kFixedPassBound of exact: taps beyond R' are
    // dropped and their mass goes to the centre (through the remainder), which shows in P.
    for (int r = 0; r <= std::min(R, kMaxFixedRadius); ++r) {
        std::vector<std::int16_t> q(static_cast<std::size_t>(r) + 1);
        long sides = 0;
        for (int i = 1; i <= r; ++i) {
            q[i] = static_cast<std::int16_t>(std::lround(taps[i] * kOne));
            sides += q[i];
        }
        // The centre tap takes the remainder so the taps sum to exactly one: a flat input
        // comes out unchanged.
        const long centre = kOne - 2 * sides;
        if (centre <= 0 || centre >= kOne) continue;
        q[0] = static_cast<std::int16_t>(centre);
        // P: the positive part of the tap errors over -R..R (they sum to zero).
        double positive = std::max(q[0] / double(kOne) - taps[0], 0.0);
        for (int i = 1; i <= R; ++i) positive += 2 * std::max((i <= r ? q[i] / double(kOne) : 0.0) - taps[i], 0.0);
        if (255 * positive + (r + 1) / 128.0 > kFixedPassBound) continue;
        while (q.size() > 1 && q.back() == 0) q.pop_back();
        return q;
    }
    return {};
}

std::vector<std::int16_t> fixedTapsFor(const BlurSpec& spec) {
    switch (spec.method) {
    case BlurMethod::Auto:
        if (spec.sigma < kAutoFixedBelowSigma) return fixedGaussianTaps(gaussianTaps(spec.sigma));
        return {};
    case BlurMethod::Direct: return fixedGaussianTaps(gaussianTaps(spec.sigma));
    case BlurMethod::Boxes:
    case BlurMethod::Recursive: return {};
    }
    return {};
}

std::size_t FixedBand::workspaceShorts(int width, int radius) {
    const std::size_t padded = static_cast<std::size_t>(roundUp(width));
    return static_cast<std::size_t>(2 * radius + 1) * padded  // ring
           + padded + 2 * static_cast<std::size_t>(radius)   // line
           + padded / 2;                                     // codes
}

FixedBand::FixedBand(ImageView<const std::uint8_t> in, const std::vector<std::int16_t>& taps, std::int16_t* workspace,
                     bool avx2)
    : in_(in), taps_(taps), avx2_(avx2), radius_(static_cast<int>(taps.size()) - 1), paddedWidth_(roundUp(in.width)),
      ring_(workspace), line_(workspace + static_cast<std::ptrdiff_t>(2 * radius_ + 1) * paddedWidth_),
      codes_(reinterpret_cast<std::uint8_t*>(line_ + paddedWidth_ + 2 * radius_)) {}

void FixedBand::horizontal(int y, std::int16_t* out) {
    const int R = radius_, W = in_.width, n = paddedWidth_ + 2 * R;
    const std::uint8_t* src = in_.row(y);
    // The row in Q6 with R replicated samples before it and enough after it for whole vectors.
    std::int16_t* line = line_;
    const std::int16_t first = static_cast<std::int16_t>(src[0] << kFixedShift);
    const std::int16_t last = static_cast<std::int16_t>(src[W - 1] << kFixedShift);
    for (int i = 0; i < R; ++i) line[i] = first;
    int x = 0;
    for (; x + kVector <= W; x += kVector)
        vst1q_s16(line + R + x, vreinterpretq_s16_u16(vshlq_n_u16(loadWiden8(src + x), kFixedShift)));
    for (; x < W; ++x) line[R + x] = static_cast<std::int16_t>(src[x] << kFixedShift);
    for (int i = R + W; i < n; ++i) line[i] = last;

#if STRIATE_AVX2
    if (avx2_) return avx2::rowSums(line + R, taps_.data(), R, paddedWidth_, out);
#endif
    int16x8_t q[kMaxFixedRadius + 1];
    splat(taps_, q);
    for (x = 0; x < paddedWidth_; x += kStep) {
        const std::int16_t* c = line + R + x;
        int16x8_t acc[kAccumulators];
        symmetricStep(q, R, [c](int i) { return std::pair(c - i, c + i); }, acc);
        for (int v = 0; v < kAccumulators; ++v) vst1q_s16(out + x + v * kVector, acc[v]);
    }
}

void FixedBand::rowInto(int y, std::uint8_t* out, int step) {
    const int R = radius_, H = in_.height, W = in_.width;
    const std::ptrdiff_t lines = 2 * R + 1;
    auto slot = [&](int r) { return ring_ + (r % lines) * static_cast<std::ptrdiff_t>(paddedWidth_); };
    if (next_ < 0) next_ = std::max(y - R, 0);
    for (; next_ <= std::min(y + R, H - 1); ++next_) horizontal(next_, slot(next_));
    const std::int16_t* window[2 * kMaxFixedRadius + 1];
    for (int j = -R; j <= R; ++j) window[R + j] = slot(std::clamp(y + j, 0, H - 1));

    const std::int16_t* const* w = window + R;  // w[j]: input row y + j
    // Whole stores go straight to a plane's row; the last partial one, and every sample of an
    // interleaved output, go through codes_.
#if STRIATE_AVX2
    if (avx2_) {
        const int direct = step == 1 ? W / avx2::kStore * avx2::kStore : 0;
        avx2::columnCodes(w, taps_.data(), R, paddedWidth_, kFixedShift, out, direct, codes_);
        return finishRow(out, step, direct);
    }
#endif
    const int direct = step == 1 ? W / kVector * kVector : 0;
    int16x8_t q[kMaxFixedRadius + 1];
    splat(taps_, q);
    for (int x = 0; x < paddedWidth_; x += kStep) {
        int16x8_t acc[kAccumulators];
        symmetricStep(q, R, [w, x](int i) { return std::pair(w[-i] + x, w[i] + x); }, acc);
        for (int v = 0; v < kAccumulators; ++v) {
            const int at = x + v * kVector;
            vst1_u8(at + kVector <= direct ? out + at : codes_ + at, codesOf(acc[v]));
        }
    }
    finishRow(out, step, direct);
}

void FixedBand::finishRow(std::uint8_t* out, int step, int direct) const {
    const int W = in_.width;
    if (step == 1) std::memcpy(out + direct, codes_ + direct, static_cast<std::size_t>(W - direct));
    else
        for (int x = 0; x < W; ++x) out[static_cast<std::ptrdiff_t>(x) * step] = codes_[x];
}

} // namespace striate::cpu
