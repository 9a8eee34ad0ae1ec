#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace striate::io {

/// The largest image readLuma accepts by default, in pixels (8192 x 8192): a size is checked
/// against it from the file's header, before anything is allocated.
inline constexpr std::int64_t kDefaultMaxPixels = std::int64_t(8192) * 8192;

/// Reads PNG, JPEG, PGM or PPM (recognised by content, not by name) as 8-bit luma: the stored
/// sample values, with no colour-space or gamma transform (a PNG's gAMA, cHRM, sRGB and iCCP
/// chunks are not applied); 16-bit samples scaled to 8 bits with rounding, round(v * 255 /
/// 65535); colour converted with the BT.601 weights Y = 0.299 R + 0.587 G + 0.114 B; alpha and
/// transparency ignored. IN must be a regular file (or a pipe); images beyond `maxPixels` or
/// 32768 pixels a side are refused, and so is a file larger than such an image could be.
Status readLuma(const std::string& path, Image<std::uint8_t>* out, std::int64_t maxPixels = kDefaultMaxPixels);

/// Whether `path` can be written, asked before any work: its folder exists and is writable, it
/// is not a folder, and (with `image`) its name ends in .png or .pgm as writeGray needs.
Status checkOutput(const std::string& path, bool image);
/// Writes 8-bit grey as PNG or PGM, chosen by the file name's extension (.png, .pgm).
Status writeGray(const std::string& path, ImageView<const std::uint8_t> image);
/// Writes interleaved 8-bit RGB (width x height x 3 bytes, rows packed) as PNG.
Status writeRgbPng(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb);

} // namespace striate::io
