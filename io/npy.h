#pragma once

#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace striate::io {

/// Writes a float32 NumPy array (version 1.0, little-endian): H x W for a real plane,
/// H x W x 2 (real, imaginary) for a complex one.
Status writeNpy(const std::string& path, ImageView<const float> plane);
Status writeNpy(const std::string& path, ImageView<const Complex32> plane);

/// A float32 array as writeNpy writes it: H x W (channels 1) or H x W x 2 (channels 2), the
/// samples row by row in `data`.
struct NpyArray {
    int height = 0, width = 0, channels = 1;
    std::vector<float> data;
};
/// Reads a little-endian float32, C-order NumPy array of two or three dimensions (the last one
/// 2); anything else is an error naming the file.
Status readNpy(const std::string& path, NpyArray* out);

} // namespace striate::io
