#pragma once

#include <string>

#include "core/image.h"
#include "core/status.h"

namespace striate::io {

/// Writes a float32 NumPy array (version 1.0, little-endian): H x W for a real plane,
/// H x W x 2 (real, imaginary) for a complex one.
Status writeNpy(const std::string& path, ImageView<const float> plane);
Status writeNpy(const std::string& path, ImageView<const Complex32> plane);

} // namespace striate::io
