// The fixed-point Gaussian's two inner loops at AVX2's width (16 int16 lanes) and the float
// direct FIR's (8 float lanes), for x86 hosts whose CPU has it: the same arithmetic as the
// 128-bit steps (fixed.cpp's FixedBand, lines.cpp's symmetricTaps), lane for lane, so every
// output is the same code or float. This file alone is compiled with -mavx2; it includes no
// standard library template and its helpers have internal linkage, so no AVX2 instruction can
// reach a function the rest of the program shares (the linker keeps one copy of an inline
// function, and it could be this file's).
#include "cpu/neon/avx2.h"

#include <immintrin.h>

namespace striate::cpu::avx2 {
namespace {

constexpr int kLanes = 16;
constexpr int kAccumulators = 4;  // as fixed.cpp: independent accumulators, tap loads shared
constexpr int kMaxTaps = 64;

inline __m256i load(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

/// kAccumulators x 16 sums of a symmetric FIR in Q15 (q[i]: tap i in every lane), as symmetricStep.
template <class Pair>
inline void step(const __m256i* q, int R, Pair pair, __m256i* acc) {
    const std::int16_t* centre = pair(0, 0);
    for (int v = 0; v < kAccumulators; ++v) acc[v] = _mm256_mulhrs_epi16(load(centre + v * kLanes), q[0]);
    for (int i = 1; i <= R; ++i) {
        const std::int16_t* before = pair(i, -1);
        const std::int16_t* after = pair(i, 1);
        for (int v = 0; v < kAccumulators; ++v)
            acc[v] = _mm256_add_epi16(acc[v], _mm256_mulhrs_epi16(_mm256_add_epi16(load(before + v * kLanes), load(after + v * kLanes)), q[i]));
    }
}

inline void splat(const std::int16_t* taps, int R, __m256i* q) {
    for (int i = 0; i <= R; ++i) q[i] = _mm256_set1_epi16(taps[i]);
}

/// Two vectors of Q6 sums (non-negative, below 2^15 - 32) rounded to 32 codes in order.
inline __m256i codesOf(__m256i a, __m256i b, int shift) {
    const __m256i half = _mm256_set1_epi16(static_cast<short>(1 << (shift - 1)));
    a = _mm256_srai_epi16(_mm256_add_epi16(a, half), shift);
    b = _mm256_srai_epi16(_mm256_add_epi16(b, half), shift);
    // packus works within 128-bit halves: a0 b0 a1 b1 in 64-bit quarters, reordered to a0 a1 b0 b1.
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
}

/// kAccumulators x 8 floats of a symmetric float FIR, as lines.cpp's symmetricTaps: the centre times
/// taps[0], then per k the pair's sum times taps[k] added (a multiply and an add, not fused).
template <class Pair>
inline void floatStep(const float* centre, const float* taps, int R, Pair pair, float* out) {
    __m256 acc[kAccumulators];
    const __m256 t0 = _mm256_set1_ps(taps[0]);
    for (int v = 0; v < kAccumulators; ++v) acc[v] = _mm256_mul_ps(_mm256_loadu_ps(centre + 8 * v), t0);
    for (int k = 1; k <= R; ++k) {
        const __m256 t = _mm256_set1_ps(taps[k]);
        for (int v = 0; v < kAccumulators; ++v) acc[v] = _mm256_add_ps(acc[v], _mm256_mul_ps(pair(k, 8 * v), t));
    }
    for (int v = 0; v < kAccumulators; ++v) _mm256_storeu_ps(out + 8 * v, acc[v]);
}

} // namespace

bool available() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

void rowSums(const std::int16_t* line, const std::int16_t* taps, int R, int width, std::int16_t* out) {
    __m256i q[kMaxTaps];
    splat(taps, R, q);
    for (int x = 0; x < width; x += kStep) {
        const std::int16_t* c = line + x;
        __m256i acc[kAccumulators];
        step(q, R, [c](int i, int side) { return c + side * i; }, acc);
        for (int v = 0; v < kAccumulators; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x + v * kLanes), acc[v]);
    }
}

void columnCodes(const std::int16_t* const* w, const std::int16_t* taps, int R, int width, int shift, std::uint8_t* out,
                 int direct, std::uint8_t* codes) {
    __m256i q[kMaxTaps];
    splat(taps, R, q);
    for (int x = 0; x < width; x += kStep) {
        __m256i acc[kAccumulators];
        step(q, R, [w, x](int i, int side) { return w[side * i] + x; }, acc);
        for (int v = 0; v < kAccumulators; v += 2) {
            const int at = x + v * kLanes;
            std::uint8_t* to = at + 2 * kLanes <= direct ? out + at : codes + at;
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), codesOf(acc[v], acc[v + 1], shift));
        }
    }
}

void firRowFloat(const float* c, const float* taps, int R, int n, float* out) {
    for (int x = 0; x < n; x += kFloatStep) {
        const float* at = c + x;
        floatStep(at, taps, R, [at](int k, int i) {
            return _mm256_add_ps(_mm256_loadu_ps(at + i - k), _mm256_loadu_ps(at + i + k));
        }, out + x);
    }
}

void firColumnFloat(const float* const* w, const float* taps, int R, int x, int n, float* out) {
    for (const int end = x + n; x < end; x += kFloatStep)
        floatStep(w[R] + x, taps, R, [w, R, x](int k, int i) {
            return _mm256_add_ps(_mm256_loadu_ps(w[R - k] + x + i), _mm256_loadu_ps(w[R + k] + x + i));
        }, out + x);
}

} // namespace striate::cpu::avx2
