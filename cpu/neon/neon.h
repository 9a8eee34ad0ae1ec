#pragma once

// NEON intrinsics: native on ARM, translated by SIMDe elsewhere (docs/design.md, Backends).
#if defined(__aarch64__) || defined(__arm__)
#if !defined(__ARM_NEON)
#error "striate's cpu backend needs NEON: on armhf build with -mfpu=neon-vfpv4 (toolchains/rpi-armhf.cmake)"
#endif
#include <arm_neon.h>
#define STRIATE_NEON_NATIVE 1
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#define STRIATE_NEON_NATIVE 0
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#endif

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace striate::cpu {

/// The name of the SIMD path this build runs ("neon-a64", "neon-a32" or "neon-simde").
constexpr const char* simdPathName() {
#if defined(__aarch64__)
    return "neon-a64";
#elif defined(__arm__)
    return "neon-a32";
#else
    return "neon-simde";
#endif
}

inline float32x4_t loadLane4(const float* p) { return vld1q_f32(p); }

/// Four 16-bit samples (below 2^15) to float in the unit range. The signed conversion is the
/// same for these values and is one instruction on every target (SIMDe emulates the unsigned).
inline float32x4_t unitOf(uint16x4_t h) {
    return vmulq_n_f32(vcvtq_f32_s32(vreinterpretq_s32_u32(vmovl_u16(h))), 1.0f / 255.0f);
}

#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
/// The four bytes of v from byte `first` (0, 4, 8 or 12) to floats in the unit range: one
/// pmovzxbd, where SIMDe 0.7.4 widens through 16 bits in halves of 32 bits (four instructions a
/// widening); the same floats as unitOf.
template <int first>
inline float32x4_t unitOfBytes(__m128i v) {
    if constexpr (first != 0) v = _mm_srli_si128(v, first);
    return std::bit_cast<float32x4_t>(_mm_mul_ps(_mm_cvtepi32_ps(_mm_cvtepu8_epi32(v)), _mm_set1_ps(1.0f / 255.0f)));
}
#endif

/// Four 8-bit samples widened to float and scaled to the unit range.
inline float32x4_t loadLane4(const std::uint8_t* p) {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
    return unitOfBytes<0>(_mm_cvtsi32_si128(static_cast<int>(w)));
#else
    return unitOf(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(w)))));
#endif
}

/// Sixteen samples to float in the unit range (8-bit ones scaled as loadLane4).
inline void loadLane16(const float* p, float* out) {
    for (int i = 0; i < 16; i += 4) vst1q_f32(out + i, vld1q_f32(p + i));
}
inline void loadLane16(const std::uint8_t* p, float* out) {
#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    vst1q_f32(out, unitOfBytes<0>(v));
    vst1q_f32(out + 4, unitOfBytes<4>(v));
    vst1q_f32(out + 8, unitOfBytes<8>(v));
    vst1q_f32(out + 12, unitOfBytes<12>(v));
#else
    const uint8x16_t v = vld1q_u8(p);
    const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_u8(vget_high_u8(v));
    vst1q_f32(out, unitOf(vget_low_u16(lo)));
    vst1q_f32(out + 4, unitOf(vget_high_u16(lo)));
    vst1q_f32(out + 8, unitOf(vget_low_u16(hi)));
    vst1q_f32(out + 12, unitOf(vget_high_u16(hi)));
#endif
}

/// Eight bytes widened to 16 bits (vmovl_u8 of a 64-bit load): one pmovzxbw on x86, where
/// SIMDe 0.7.4 widens in halves.
inline uint16x8_t loadWiden8(const std::uint8_t* p) {
#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
    return std::bit_cast<uint16x8_t>(_mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#else
    return vmovl_u8(vld1_u8(p));
#endif
}

inline float loadScalar(const float* p) { return *p; }
inline float loadScalar(const std::uint8_t* p) { return *p * (1.0f / 255.0f); }

/// Square root of four lanes. A64 has it; A32 NEON and SIMDe 0.7.4 do not, so A32 refines the
/// reciprocal estimate (two Newton steps: 23 bits) and SIMDe calls the scalar routine per lane.
inline float32x4_t sqrtq(float32x4_t x) {
#if defined(__aarch64__)
    return vsqrtq_f32(x);
#elif defined(__arm__)
    float32x4_t r = vrsqrteq_f32(x);
    r = vmulq_f32(r, vrsqrtsq_f32(vmulq_f32(x, r), r));
    r = vmulq_f32(r, vrsqrtsq_f32(vmulq_f32(x, r), r));
    const float32x4_t s = vmulq_f32(x, r);
    return vbslq_f32(vceqq_f32(x, vdupq_n_f32(0.0f)), vdupq_n_f32(0.0f), s);
#elif defined(__SSE__)
    // SIMDe 0.7.4 lacks vsqrtq_f32; SSE has the same correctly rounded operation.
    return std::bit_cast<float32x4_t>(_mm_sqrt_ps(std::bit_cast<__m128>(x)));
#else
    float v[4];
    vst1q_f32(v, x);
    for (float& e : v) e = std::sqrt(e);
    return vld1q_f32(v);
#endif
}

/// Whether any lane of a comparison mask (each lane all ones or all zeros) is set: one across-lane
/// maximum on A64, one movemask on x86 (the top bit of each lane), two lane moves on A32.
inline bool anyLane(uint32x4_t mask) {
#if defined(__aarch64__)
    return vmaxvq_u32(mask) != 0;
#elif !STRIATE_NEON_NATIVE && defined(__SSE__)
    return _mm_movemask_ps(std::bit_cast<__m128>(mask)) != 0;
#else
    const uint64x2_t m = vreinterpretq_u64_u32(mask);
    return (vgetq_lane_u64(m, 0) | vgetq_lane_u64(m, 1)) != 0;
#endif
}

/// vbslq_f32 for a comparison's mask (each lane all ones or all zeros): one blend on x86 with
/// SSE4.1, which selects by each lane's top bit, where SIMDe runs three bitwise operations.
inline float32x4_t selectLanes(uint32x4_t mask, float32x4_t ifSet, float32x4_t otherwise) {
#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
    return std::bit_cast<float32x4_t>(_mm_blendv_ps(std::bit_cast<__m128>(otherwise), std::bit_cast<__m128>(ifSet),
                                                    std::bit_cast<__m128>(mask)));
#else
    return vbslq_f32(mask, ifSet, otherwise);
#endif
}

/// Four lanes below 256 written as four bytes: two narrowing moves on ARM, two saturating packs
/// on x86 (the same for these values; SIMDe's narrowing masks each lane first).
inline void storeLowBytes(uint32x4_t v, std::uint8_t* p) {
#if !STRIATE_NEON_NATIVE && defined(__SSE4_1__)
    const __m128i m = _mm_packus_epi32(std::bit_cast<__m128i>(v), std::bit_cast<__m128i>(v));
    const std::uint32_t w = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(m, m)));
#else
    const uint16x4_t h = vmovn_u32(v);
    const std::uint32_t w = vget_lane_u32(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(h, h))), 0);
#endif
    std::memcpy(p, &w, 4);
}

/// Transposes a 4x4 block held as four row vectors. On x86, SSE's own transpose: SIMDe's
/// portable vtrnq_f32 draws gcc 14's -Wmaybe-uninitialized (a false positive in its header).
inline void transpose4(float32x4_t& r0, float32x4_t& r1, float32x4_t& r2, float32x4_t& r3) {
#if !STRIATE_NEON_NATIVE && defined(__SSE__)
    __m128 c0 = std::bit_cast<__m128>(r0), c1 = std::bit_cast<__m128>(r1), c2 = std::bit_cast<__m128>(r2),
           c3 = std::bit_cast<__m128>(r3);
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
    r0 = std::bit_cast<float32x4_t>(c0);
    r1 = std::bit_cast<float32x4_t>(c1);
    r2 = std::bit_cast<float32x4_t>(c2);
    r3 = std::bit_cast<float32x4_t>(c3);
#else
    const float32x4x2_t a = vtrnq_f32(r0, r1);
    const float32x4x2_t b = vtrnq_f32(r2, r3);
    r0 = vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0]));
    r1 = vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1]));
    r2 = vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0]));
    r3 = vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1]));
#endif
}

} // namespace striate::cpu
