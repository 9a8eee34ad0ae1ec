#pragma once

#include <cstdint>

#include "core/image.h"
#include "pipeline/formats.h"

/// Per-format pixel access in system memory: the luma of any format of the table, and the
/// channels a colour blur filters. gl_chain.cpp reads the same table (FormatTraits::luma) for GL
/// memory. No function here guesses a layout: each follows the format's table entry.
namespace striate::gst {

/// Copies one channel of interleaved 8-bit data (`step` bytes apart, rows `stride` apart) into a
/// plane of `dst`'s size.
void extractChannel(const std::uint8_t* src, int stride, int step, Image<std::uint8_t>* dst);
/// The luma of plane 0 (`data`, rows `stride` apart) of a frame of `format` into `dst`, which
/// has the frame's size.
void readLuma(const FormatTraits& format, const std::uint8_t* data, int stride, Image<std::uint8_t>* dst);
/// Packed 4:2:2: the chroma channel at byte `at` of each 4-byte macropixel (half the luma's width
/// W, rounded up) taken to width W, linear between neighbours across, into `dst` (W x H).
void widenChroma422(const std::uint8_t* in, int stride, int at, int W, int H, Image<std::uint8_t>* dst);
/// The inverse sites: sample 2k of each row of `src` back to byte `at` of macropixel k.
void narrowChroma422(ImageView<const std::uint8_t> src, std::uint8_t* out, int stride, int at);

} // namespace striate::gst
