#pragma once

#include <cstdint>

/// The cpu's inner loops at AVX2's width (avx2.cpp): FixedBand's two passes and the float direct
/// FIR's (firRow, firColumnRow). Built on x86 hosts only (STRIATE_AVX2) and run where the CPU has
/// AVX2 (runsAvx2): OpenCV runs at 256 bits there, so the 128-bit steps alone would compare
/// NEON's width with twice it. The outputs are the 128-bit steps', bit for bit: the same
/// operations in the same order, lane for lane (no fused multiply-add).
namespace striate::cpu {

/// Whether the inner loops at AVX2's width run here: on x86 hosts whose CPU has AVX2, unless the
/// environment's STRIATE_CPU_DISABLE names AVX2 (as OpenCV's OPENCV_CPU_DISABLE: `striate bench`
/// sets both to compare at NEON's 128 bits). The outputs are the same either way.
bool runsAvx2();

} // namespace striate::cpu

namespace striate::cpu::avx2 {

/// Samples per step: four vectors of sixteen. Rows are padded to whole steps.
inline constexpr int kStep = 64;
/// Codes per store of columnCodes.
inline constexpr int kStore = 32;

/// Whether this CPU runs AVX2.
bool available();

/// The horizontal pass: width (a multiple of kStep) Q6 sums of taps[0..R] (Q15, symmetric)
/// around line[0..width), which has R samples before and after it.
void rowSums(const std::int16_t* line, const std::int16_t* taps, int R, int width, std::int16_t* out);

/// The vertical pass over rows w[-R..R] (width a multiple of kStep), rounded right by `shift` to
/// codes: samples [0, direct) (a multiple of kStore) to out, the rest of the row to codes.
void columnCodes(const std::int16_t* const* w, const std::int16_t* taps, int R, int width, int shift, std::uint8_t* out,
                 int direct, std::uint8_t* codes);

/// Floats per step of the float FIR: four vectors of eight.
inline constexpr int kFloatStep = 32;

/// The float FIR along a row, as firRow: out[x] = taps[0] c[x] + sum_k taps[k] (c[x - k] + c[x + k])
/// for x in [0, n) (n a multiple of kFloatStep); c has R samples before it and after c[n - 1].
void firRowFloat(const float* c, const float* taps, int R, int n, float* out);

/// The float FIR down the columns [x, x + n) of rows w[0..2R] (centre w[R]; n a multiple of
/// kFloatStep), as firColumnRow.
void firColumnFloat(const float* const* w, const float* taps, int R, int x, int n, float* out);

} // namespace striate::cpu::avx2
