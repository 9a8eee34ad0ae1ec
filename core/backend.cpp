#include "core/backend.h"

#include <string>

namespace striate {

Status validateFrameFormat(const FrameFormat& format, int maxDimension) {
    if (format.width < 1 || format.height < 1)
        return Status::error("frame size " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                             " is empty");
    if (format.width > maxDimension || format.height > maxDimension)
        return Status::error("frame size " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                             " exceeds the limit of " + std::to_string(maxDimension) + " pixels per side");
    return {};
}

Status checkFrameSize(int width, int height, const FrameFormat& configured) {
    if (configured.width == 0) return Status::error("the backend is not configured");
    if (width != configured.width || height != configured.height)
        return Status::error("frame of " + std::to_string(width) + "x" + std::to_string(height) +
                             " does not match the configured " + std::to_string(configured.width) + "x" +
                             std::to_string(configured.height));
    return {};
}

Status Backend::process8(ImageView<const std::uint8_t> luma, const Output8& out) {
    ChainOutput r;
    if (Status s = process(luma, &r); !s) return s;
    for (int y = 0; y < r.real.height; ++y) {
        const float* src = r.real.row(y);
        std::uint8_t* dst = out.data + y * out.stride;
        for (int x = 0; x < r.real.width; ++x) dst[x * out.step] = encode8(src[x], out.encoding);
    }
    return {};
}

} // namespace striate
