#include "python/frames.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/backend.h"

namespace striate::python {
namespace {

constexpr std::pair<const char*, Layout> kLayouts[] = {{"gray", Layout::Gray}, {"yuv420", Layout::Yuv420},
                                                       {"rgb", Layout::Rgb},   {"bgr", Layout::Bgr},
                                                       {"rgba", Layout::Rgba}, {"bgra", Layout::Bgra}};

const char* nameOf(Layout layout) {
    for (const auto& [name, value] : kLayouts)
        if (value == layout) return name;
    return "?";
}

std::string shapeOf(const ArrayDesc& a) {
    std::string s = "(";
    for (int i = 0; i < a.ndim; ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
    return s + (a.ndim == 1 ? ",)" : ")");
}

int channelsOf(Layout layout) {
    switch (layout) {
    case Layout::Rgb:
    case Layout::Bgr: return 3;
    case Layout::Rgba:
    case Layout::Bgra: return 4;
    default: return 1;
    }
}

} // namespace

Status layoutOf(const std::string& name, Layout* out) {
    for (const auto& [n, value] : kLayouts)
        if (name == n) {
            *out = value;
            return {};
        }
    return Status::error("unknown layout '" + name + "' (expected gray, yuv420, rgb, bgr, rgba or bgra)");
}

Status understand(const ArrayDesc& a, Layout layout, std::int64_t maxPixels, FrameSource* out) {
    const int channels = channelsOf(layout);
    const std::string shape = shapeOf(a);
    if (channels == 1 && a.ndim != 2)
        return Status::error("a " + std::string(nameOf(layout)) + " frame is a 2-D array (height, width); this one has shape " +
                             shape + (a.ndim == 3 ? " (colour frames need layout='rgb', 'bgr', 'rgba' or 'bgra')" : ""));
    if (channels > 1 && (a.ndim != 3 || a.shape[2] != channels))
        return Status::error("a " + std::string(nameOf(layout)) + " frame is a 3-D array (height, width, " +
                             std::to_string(channels) + "); this one has shape " + shape);
    if (channels > 1 && a.itemsize != 1)
        return Status::error("colour frames are uint8 (16-bit frames are luma: a 2-D uint16 array)");
    if (layout == Layout::Yuv420 && a.itemsize != 1) return Status::error("yuv420 frames are uint8");
    std::ptrdiff_t height = a.shape[0];
    const std::ptrdiff_t width = a.shape[1];
    if (layout == Layout::Yuv420) {
        if (height % 3 != 0 || width % 2 != 0)
            return Status::error("a yuv420 frame has height x 3/2 rows of an even width (picamera2's YUV420 array); shape " +
                                 shape + " is not one");
        height = height / 3 * 2;
    }
    if (width < 1 || height < 1 || width > kMaxDimension || height > kMaxDimension)
        return Status::error("the frame is " + std::to_string(width) + "x" + std::to_string(height) + ", outside 1.." +
                             std::to_string(kMaxDimension) + " pixels per side");
    if (static_cast<std::int64_t>(width) * height > maxPixels)
        return Status::error("the frame is " + std::to_string(width) + "x" + std::to_string(height) + " = " +
                             std::to_string(static_cast<std::int64_t>(width) * height) + " pixels, beyond the limit of " +
                             std::to_string(maxPixels) + " (max_pixels)");
    *out = FrameSource{};
    out->width = static_cast<int>(width);
    out->height = static_cast<int>(height);
    out->array = a;
    out->layout = layout;
    // uint8 luma rows whose samples are contiguous, top to bottom, each row after the last: the
    // backends read them where they are (a crop, a row stride, the luma plane of a YUV frame).
    out->inPlace = channels == 1 && a.itemsize == 1 && a.strides[1] == 1 && a.strides[0] >= width;
    if (out->inPlace) out->view = ImageView<const std::uint8_t>(a.data, out->width, out->height, a.strides[0]);
    return {};
}

void convert(const FrameSource& f, Image<std::uint8_t>* plane) {
    plane->reset(f.width, f.height);
    const ArrayDesc& a = f.array;
    const int channels = channelsOf(f.layout);
    const bool bgr = f.layout == Layout::Bgr || f.layout == Layout::Bgra;
    for (int y = 0; y < f.height; ++y) {
        const std::uint8_t* row = a.data + y * a.strides[0];
        std::uint8_t* to = plane->row(y);
        if (channels > 1) {
            const std::ptrdiff_t c = a.strides[2], r = bgr ? 2 * c : 0, b = bgr ? 0 : 2 * c;
            for (int x = 0; x < f.width; ++x) {
                const std::uint8_t* p = row + x * a.strides[1];
                to[x] = lumaOf(p[r], p[c], p[b]);
            }
        } else if (a.itemsize == 2) {
            for (int x = 0; x < f.width; ++x) {
                std::uint16_t v;
                std::memcpy(&v, row + x * a.strides[1], sizeof v);
                to[x] = code8Of16(v);
            }
        } else {
            for (int x = 0; x < f.width; ++x) to[x] = row[x * a.strides[1]];
        }
    }
}

std::vector<std::string> layoutNames() {
    std::vector<std::string> names;
    for (const auto& [name, value] : kLayouts) names.push_back(name);
    return names;
}

bool overlaps(const ArrayDesc& a, const ArrayDesc& b) {
    auto extent = [](const ArrayDesc& d) {
        std::ptrdiff_t lo = 0, hi = d.itemsize;
        for (int i = 0; i < d.ndim; ++i) {
            const std::ptrdiff_t span = (d.shape[i] - 1) * d.strides[i];
            (span < 0 ? lo : hi) += span;
        }
        return std::pair(d.data + lo, d.data + hi);
    };
    const auto [a0, a1] = extent(a);
    const auto [b0, b1] = extent(b);
    return a0 < b1 && b0 < a1;
}

} // namespace striate::python
