// The complex (Gabor) line kernels of cpu/neon/lines.h: the direct complex FIR along rows and
// down columns, the row-wise Gabor band, and the FIR blocks of the block engine.
#include <algorithm>

#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

using namespace block;

} // namespace

namespace {

/// N vectors of the complex FIR at x: before(k, i) and after(k, i) load the samples k before and
/// after output x + i. The order of operations is firGaborReal's.
template <int N, class Before, class After>
inline void complexTaps(const float* x, float* re, float* im, const GaborTaps& taps, Before before, After after) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    float32x4_t accR[N], accI[N];
    for (int q = 0; q < N; ++q) {
        accR[q] = vmulq_n_f32(vld1q_f32(x + 4 * q), taps.c[0]);
        accI[q] = vdupq_n_f32(0.0f);
    }
    for (int k = 1; k <= R; ++k)
        for (int q = 0; q < N; ++q) {
            const float32x4_t a = before(k, 4 * q), b = after(k, 4 * q);
            accR[q] = vmlaq_n_f32(accR[q], vaddq_f32(a, b), taps.c[k]);
            accI[q] = vmlaq_n_f32(accI[q], vsubq_f32(a, b), taps.s[k]);
        }
    for (int q = 0; q < N; ++q) {
        vst1q_f32(re + 4 * q, accR[q]);
        vst1q_f32(im + 4 * q, accI[q]);
    }
}

/// Samples [x0, x1) of the complex FIR: centre(x) the sample at x, at(k, x) the one k away
/// (negative k: before).
template <class Centre, class At>
void complexSpan(int x0, int x1, const GaborTaps& taps, Centre centre, At at, float* re, float* im) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    int x = x0;
    auto before = [&](int k, int i) { return vld1q_f32(at(-k, x + i)); };
    auto after = [&](int k, int i) { return vld1q_f32(at(k, x + i)); };
    for (; x + 16 <= x1; x += 16) complexTaps<4>(centre(x), re + x, im + x, taps, before, after);
    for (; x + 4 <= x1; x += 4) complexTaps<1>(centre(x), re + x, im + x, taps, before, after);
    for (; x < x1; ++x) {
        float accR = *centre(x) * taps.c[0], accI = 0.0f;
        for (int k = 1; k <= R; ++k) {
            const float a = *at(-k, x), b = *at(k, x);
            accR += (a + b) * taps.c[k];
            accI += (a - b) * taps.s[k];
        }
        re[x] = accR;
        im[x] = accI;
    }
}

template <class T>
void firRowComplexImpl(const T* in, int W, const GaborTaps& taps, float* line, float* re, float* im) {
    const float* c = padRow(in, W, static_cast<int>(taps.c.size()) - 1, line);
    complexSpan(0, W, taps, [c](int x) { return c + x; }, [c](int k, int x) { return c + x + k; }, re, im);
}

} // namespace

void firRowComplex(const float* in, int width, const GaborTaps& taps, float* line, float* re, float* im) {
    firRowComplexImpl(in, width, taps, line, re, im);
}
void firRowComplex(const std::uint8_t* in, int width, const GaborTaps& taps, float* line, float* re, float* im) {
    firRowComplexImpl(in, width, taps, line, re, im);
}

void firColumnRowComplex(const float* const* window, int W, const GaborTaps& taps, float* re, float* im) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    const float* c = window[R];
    constexpr int kChunk = 256;  // as firColumnRow
    for (int x0 = 0; x0 < W; x0 += kChunk)
        complexSpan(x0, std::min(W, x0 + kChunk), taps, [c](int x) { return c + x; },
                    [window, R](int k, int x) { return window[R + k] + x; }, re, im);
}

template <class T>
GaborBand<T>::GaborBand(ImageView<const T> in, const GaborTaps& along, const std::vector<float>& across, bool alongX,
                        float* workspace, bool wide)
    : in_(in), along_(along), across_(across), alongX_(alongX), wide_(wide), radius_(static_cast<int>(across.size()) - 1),
      ring_(workspace), column_(workspace + FirBand<T>::ringFloats(in.width, radius_)), line_(column_ + in.width) {}

template <class T>
void GaborBand<T>::rowInto(int y, float* re, float* im) {
    const int R = radius_, H = in_.height, W = in_.width;
    const std::ptrdiff_t lines = 2 * R + 1;
    auto slot = [&](int r) { return ring_ + (r % lines) * static_cast<std::ptrdiff_t>(W); };
    // The ring holds, for each input row, what the vertical pass sums: the row in unit floats
    // (alongX: the real Gaussian down the columns comes first, on one plane rather than two),
    // or its real horizontal pass (along y).
    if (next_ < 0) next_ = std::max(y - R, 0);
    for (; next_ <= std::min(y + R, H - 1); ++next_) {
        if (alongX_) padRow(in_.row(next_), W, 0, slot(next_));
        else firRow(in_.row(next_), W, across_, line_, slot(next_), wide_);
    }
    for (int j = -R; j <= R; ++j) window_[R + j] = slot(clampIndex(y + j, H));
    if (alongX_) {
        firColumnRow(window_, W, across_, column_, wide_);
        firRowComplex(column_, W, along_, line_, re, im);
    } else {
        firColumnRowComplex(window_, W, along_, re, im);
    }
}

template class GaborBand<float>;
template class GaborBand<std::uint8_t>;

namespace {

template <bool kSine>
void firGaborReal(const float* in, float* re, float* im, int n, const GaborTaps& taps) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    for (int i = 0; i < n; ++i) {
        float32x4_t accR[kVectors], accI[kVectors];
        for (int v = 0; v < kVectors; ++v) {
            accR[v] = vmulq_n_f32(vld1q_f32(at(in, i) + 4 * v), taps.c[0]);
            accI[v] = vdupq_n_f32(0.0f);
        }
        for (int k = 1; k <= R; ++k) {
            const float* a = at(in, clampIndex(i - k, n));
            const float* b = at(in, clampIndex(i + k, n));
            for (int v = 0; v < kVectors; ++v) {
                const float32x4_t xa = vld1q_f32(a + 4 * v), xb = vld1q_f32(b + 4 * v);
                accR[v] = vmlaq_n_f32(accR[v], vaddq_f32(xa, xb), taps.c[k]);
                if constexpr (kSine) accI[v] = vmlaq_n_f32(accI[v], vsubq_f32(xa, xb), taps.s[k]);
            }
        }
        for (int v = 0; v < kVectors; ++v) {
            vst1q_f32(at(re, i) + 4 * v, accR[v]);
            vst1q_f32(at(im, i) + 4 * v, accI[v]);
        }
    }
}

template <bool kSine>
void firGaborComplex(const float* inRe, const float* inIm, float* re, float* im, int n, const GaborTaps& taps) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    for (int i = 0; i < n; ++i) {
        float32x4_t accR[kVectors], accI[kVectors];
        for (int v = 0; v < kVectors; ++v) {
            accR[v] = vmulq_n_f32(vld1q_f32(at(inRe, i) + 4 * v), taps.c[0]);
            accI[v] = vmulq_n_f32(vld1q_f32(at(inIm, i) + 4 * v), taps.c[0]);
        }
        for (int k = 1; k <= R; ++k) {
            const int ia = clampIndex(i - k, n), ib = clampIndex(i + k, n);
            for (int v = 0; v < kVectors; ++v) {
                const float32x4_t ra = vld1q_f32(at(inRe, ia) + 4 * v), rb = vld1q_f32(at(inRe, ib) + 4 * v);
                const float32x4_t ja = vld1q_f32(at(inIm, ia) + 4 * v), jb = vld1q_f32(at(inIm, ib) + 4 * v);
                accR[v] = vmlaq_n_f32(accR[v], vaddq_f32(ra, rb), taps.c[k]);
                accI[v] = vmlaq_n_f32(accI[v], vaddq_f32(ja, jb), taps.c[k]);
                if constexpr (kSine) {
                    accR[v] = vmlsq_n_f32(accR[v], vsubq_f32(ja, jb), taps.s[k]);
                    accI[v] = vmlaq_n_f32(accI[v], vsubq_f32(ra, rb), taps.s[k]);
                }
            }
        }
        for (int v = 0; v < kVectors; ++v) {
            vst1q_f32(at(re, i) + 4 * v, accR[v]);
            vst1q_f32(at(im, i) + 4 * v, accI[v]);
        }
    }
}

} // namespace

void firGaborRealBlock(const float* in, float* re, float* im, int n, const GaborTaps& taps) {
    if (taps.sine) firGaborReal<true>(in, re, im, n, taps);
    else firGaborReal<false>(in, re, im, n, taps);
}

void firGaborComplexBlock(const float* inRe, const float* inIm, float* re, float* im, int n, const GaborTaps& taps) {
    if (taps.sine) firGaborComplex<true>(inRe, inIm, re, im, n, taps);
    else firGaborComplex<false>(inRe, inIm, re, im, n, taps);
}

} // namespace striate::cpu
