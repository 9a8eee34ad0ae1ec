#pragma once
// The Python module's frames: a numpy array as the 8-bit luma plane a backend filters (read in
// place where the backend can read it, else converted into a plane the Filter keeps), and the
// checks that name what is wrong with an array. No Python API here: the module reads the array's
// description under the GIL, and the conversion runs without it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace striate::python {

/// How a frame's samples are laid out (the `layout=` argument).
enum class Layout { Gray, Yuv420, Rgb, Bgr, Rgba, Bgra };

/// "gray", "yuv420", "rgb", "bgr", "rgba", "bgra"; an unknown name is an error listing them.
Status layoutOf(const std::string& name, Layout* out);
/// Those names, in that order.
std::vector<std::string> layoutNames();

/// A numpy array as the module sees it: its element size, dimensions and byte strides.
struct ArrayDesc {
    const std::uint8_t* data = nullptr;
    int itemsize = 1;  ///< 1 (uint8) or 2 (uint16)
    int ndim = 0;
    std::ptrdiff_t shape[3] = {0, 0, 0};
    std::ptrdiff_t strides[3] = {0, 0, 0};
};

/// A frame understood: its luma size, and either a view of the array's own luma samples (uint8
/// luma rows the backends read as they are: positive strides, contiguous samples) or a
/// conversion into a plane of the caller's.
struct FrameSource {
    int width = 0;
    int height = 0;
    bool inPlace = false;
    ImageView<const std::uint8_t> view;  ///< when inPlace
    ArrayDesc array;
    Layout layout = Layout::Gray;
};

/// Understands `a` in `layout` (the dtype, uint8 or uint16, was checked by the caller): 2-D luma,
/// 2-D planar YUV 4:2:0 (height x 3/2 rows: its first rows are the luma), 3-D colour whose last
/// axis holds the layout's channels. Errors name the shape and what was expected; the size is
/// checked against [1, 32768] a side and `maxPixels`, as `striate filter --max-pixels` checks it.
Status understand(const ArrayDesc& a, Layout layout, std::int64_t maxPixels, FrameSource* out);

/// The frame's luma into `plane` (resized to the frame; reallocated only when it grows): uint16
/// rounded to 8 bits as round(v / 257), colour through the BT.601 weights of `striate filter`
/// (core/image.h lumaOf), any strides.
void convert(const FrameSource& frame, Image<std::uint8_t>* plane);

/// True when two byte ranges overlap (an `out` array that is a view of the frame).
bool overlaps(const ArrayDesc& a, const ArrayDesc& b);

} // namespace striate::python
