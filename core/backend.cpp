#include "core/backend.h"

#include <algorithm>
#include <cstdio>
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

Status parseBackendKind(std::string_view name, BackendKind* out) {
    const auto kind = fromNick(kBackendKinds, name);
    if (!kind)
        return Status::error("unknown backend '" + std::string(name) +
                             "' (expected auto, cpu, reference, gles-compute or gles-fragment)");
    *out = *kind;
    return {};
}

std::string describeBytes(std::size_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    char text[32];
    const double kib = bytes / 1024.0;
    if (kib < 1024) std::snprintf(text, sizeof text, "%.1f KiB", kib);
    else std::snprintf(text, sizeof text, "%.1f MiB", kib / 1024);
    return text;
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
    writeCodes(r, out);
    return {};
}

void writeCodes(const ChainOutput& r, const Output8& out) {
    const float o = static_cast<float>(out.encoding.offset), k = static_cast<float>(out.encoding.scale);
    const int W = r.real.width;
    for (int y = 0; y < r.real.height; ++y) {
        const float* src = r.real.row(y);
        std::uint8_t* dst = out.data + y * out.stride;
        if (out.step != 1) {
            for (int x = 0; x < r.real.width; ++x) dst[x * out.step] = encode8(src[x], out.encoding);
            continue;
        }
        // encode8 without branches, so the compiler vectorises the plane (the GLES backends'
        // read-back takes this path): the same codes, NaN and u <= 0 to 0 included.
        for (int x = 0; x < W; ++x) {
            const float u = (o + k * src[x]) * 255.0f;
            dst[x] = static_cast<std::uint8_t>(static_cast<int>(std::min(std::max(0.0f, u) + 0.5f, 255.0f)));
        }
    }
}

} // namespace striate
