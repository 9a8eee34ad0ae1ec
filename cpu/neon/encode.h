#pragma once

#include <cstdint>

#include "core/image.h"
#include "core/spec.h"

namespace striate::cpu {

/// A real plane through an encoding to 8 bits (`step` bytes between output pixels: 1 for a
/// plane, 4 for a channel of RGBA) or to 16 bits, with NEON: the same codes as encode8 and
/// encode16 (core/spec.h), four pixels per instruction.
void encodePlane8(ImageView<const float> in, const Encoding& e, std::uint8_t* out, std::ptrdiff_t stride, int step);
void encodePlane16(ImageView<const float> in, const Encoding& e, std::uint16_t* out, std::ptrdiff_t stride);

} // namespace striate::cpu
