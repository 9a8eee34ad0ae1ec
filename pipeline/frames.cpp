#include "pipeline/frames.h"

#include <cstddef>

namespace striate::gst {

void extractChannel(const std::uint8_t* src, int stride, int step, Image<std::uint8_t>* dst) {
    for (int y = 0; y < dst->height(); ++y) {
        const std::uint8_t* p = src + static_cast<std::ptrdiff_t>(y) * stride;
        std::uint8_t* o = dst->row(y);
        for (int x = 0; x < dst->width(); ++x) o[x] = p[x * step];
    }
}

void readLuma(const FormatTraits& format, const std::uint8_t* data, int stride, Image<std::uint8_t>* dst) {
    const int W = dst->width(), H = dst->height(), step = format.pixelBytes;
    switch (format.luma) {
    case LumaSource::Byte0: extractChannel(data, stride, step, dst); return;
    case LumaSource::Byte1: extractChannel(data + 1, stride, step, dst); return;
    case LumaSource::Gray16:
        static_assert(G_BYTE_ORDER == G_LITTLE_ENDIAN, "GRAY16_LE input assumes a little-endian host");
        for (int y = 0; y < H; ++y) {
            const auto* p = reinterpret_cast<const std::uint16_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
            std::uint8_t* o = dst->row(y);
            for (int x = 0; x < W; ++x) o[x] = code8Of16(p[x]);
        }
        return;
    case LumaSource::Rgb:
    case LumaSource::Bgr: {
        const int r = format.luma == LumaSource::Rgb ? 0 : 2, b = 2 - r;
        for (int y = 0; y < H; ++y) {
            const std::uint8_t* p = data + static_cast<std::ptrdiff_t>(y) * stride;
            std::uint8_t* o = dst->row(y);
            for (int x = 0; x < W; ++x, p += step) o[x] = lumaOf(p[r], p[1], p[b]);
        }
        return;
    }
    }
}

void widenChroma422(const std::uint8_t* in, int stride, int at, int W, int H, Image<std::uint8_t>* dst) {
    const int cw = (W + 1) / 2;
    dst->reset(W, H);
    for (int y = 0; y < H; ++y) {
        const std::uint8_t* p = in + static_cast<std::ptrdiff_t>(y) * stride + at;
        std::uint8_t* o = dst->row(y);
        for (int k = 0; k < cw; ++k) {
            const int here = p[4 * k], next = k + 1 < cw ? p[4 * (k + 1)] : here;
            o[2 * k] = static_cast<std::uint8_t>(here);
            if (2 * k + 1 < W) o[2 * k + 1] = static_cast<std::uint8_t>((here + next + 1) / 2);
        }
    }
}

void narrowChroma422(ImageView<const std::uint8_t> src, std::uint8_t* out, int stride, int at) {
    const int cw = (src.width + 1) / 2;
    for (int y = 0; y < src.height; ++y) {
        const std::uint8_t* b = src.row(y);
        std::uint8_t* o = out + static_cast<std::ptrdiff_t>(y) * stride + at;
        for (int k = 0; k < cw; ++k) o[4 * k] = b[2 * k];
    }
}

} // namespace striate::gst
