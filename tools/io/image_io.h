#pragma once

#include <cstdint>
#include <string>

#include "core/image.h"
#include "core/status.h"

namespace striate::io {

/// Reads PNG, JPEG, PGM or PPM (recognised by content, not by name) as 8-bit luma. Colour is
/// converted with the BT.601 weights Y = 0.299 R + 0.587 G + 0.114 B; alpha is ignored; 16-bit
/// samples keep their high byte.
Status readLuma(const std::string& path, Image<std::uint8_t>* out);

/// Writes 8-bit grey as PNG or PGM, chosen by the file name's extension (.png, .pgm).
Status writeGray(const std::string& path, ImageView<const std::uint8_t> image);

} // namespace striate::io
