#pragma once

#include <cstdint>

/// FixedBand's inner loops at AVX2's width (fixed_avx2.cpp), built on x86 hosts only
/// (STRIATE_FIXED_AVX2) and run where the CPU has AVX2: OpenCV blurs 8-bit images at 256 bits
/// there, so the 128-bit steps alone would compare NEON's width with twice it. The outputs are
/// the same codes as the 128-bit steps'.
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

} // namespace striate::cpu::avx2
