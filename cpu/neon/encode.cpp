#include "cpu/neon/encode.h"

#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

/// Codes of four values, as encodeAs: NaN and u <= 0 to 0, u >= max to max, else floor(u + 0.5).
inline uint32x4_t codes(float32x4_t v, float offset, float scale, float max) {
    float32x4_t u = vmulq_n_f32(vaddq_f32(vdupq_n_f32(offset), vmulq_n_f32(v, scale)), max);
    u = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(u), vcgtq_f32(u, vdupq_n_f32(0.0f))));
    const uint32x4_t big = vcgeq_f32(u, vdupq_n_f32(max));
    const uint32x4_t c = vcvtq_u32_f32(vaddq_f32(u, vdupq_n_f32(0.5f)));
    return vbslq_u32(big, vdupq_n_u32(static_cast<std::uint32_t>(max)), c);
}

} // namespace

void encodePlane8(ImageView<const float> in, const Encoding& e, std::uint8_t* out, std::ptrdiff_t stride, int step) {
    const float o = static_cast<float>(e.offset), s = static_cast<float>(e.scale);
    for (int y = 0; y < in.height; ++y) {
        const float* src = in.row(y);
        std::uint8_t* dst = out + y * stride;
        int x = 0;
        if (step == 1) {
            for (; x + 8 <= in.width; x += 8) {
                const uint16x4_t lo = vmovn_u32(codes(vld1q_f32(src + x), o, s, 255.0f));
                const uint16x4_t hi = vmovn_u32(codes(vld1q_f32(src + x + 4), o, s, 255.0f));
                vst1_u8(dst + x, vmovn_u16(vcombine_u16(lo, hi)));
            }
        }
        for (; x < in.width; ++x) dst[x * step] = encode8(src[x], e);
    }
}

void encodePlane16(ImageView<const float> in, const Encoding& e, std::uint16_t* out, std::ptrdiff_t stride) {
    const float o = static_cast<float>(e.offset), s = static_cast<float>(e.scale);
    for (int y = 0; y < in.height; ++y) {
        const float* src = in.row(y);
        std::uint16_t* dst = reinterpret_cast<std::uint16_t*>(reinterpret_cast<std::uint8_t*>(out) + y * stride);
        int x = 0;
        for (; x + 4 <= in.width; x += 4) vst1_u16(dst + x, vmovn_u32(codes(vld1q_f32(src + x), o, s, 65535.0f)));
        for (; x < in.width; ++x) dst[x] = encode16(src[x], e);  // little-endian hosts only (GRAY16_LE)
    }
}

} // namespace striate::cpu
