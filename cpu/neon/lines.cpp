#include "cpu/neon/lines.h"

#include <algorithm>

#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

constexpr int kVectors = kLanes / 4;

inline int clampIndex(int i, int n) { return std::clamp(i, 0, n - 1); }
inline const float* at(const float* block, int i) { return block + static_cast<std::ptrdiff_t>(i) * kLanes; }
inline float* at(float* block, int i) { return block + static_cast<std::ptrdiff_t>(i) * kLanes; }

template <class T>
void gatherRowsImpl(ImageView<const T> src, int firstRow, float* block) {
    const T* rows[kLanes];
    for (int l = 0; l < kLanes; ++l) rows[l] = src.row(std::min(firstRow + l, src.height - 1));
    const int W = src.width;
    int x = 0;
    for (; x + 4 <= W; x += 4) {
        for (int q = 0; q < kVectors; ++q) {
            float32x4_t r0 = loadLane4(rows[4 * q] + x), r1 = loadLane4(rows[4 * q + 1] + x);
            float32x4_t r2 = loadLane4(rows[4 * q + 2] + x), r3 = loadLane4(rows[4 * q + 3] + x);
            transpose4(r0, r1, r2, r3);
            vst1q_f32(at(block, x) + 4 * q, r0);
            vst1q_f32(at(block, x + 1) + 4 * q, r1);
            vst1q_f32(at(block, x + 2) + 4 * q, r2);
            vst1q_f32(at(block, x + 3) + 4 * q, r3);
        }
    }
    for (; x < W; ++x)
        for (int l = 0; l < kLanes; ++l) at(block, x)[l] = loadScalar(rows[l] + x);
}

template <class T>
void gatherColumnsImpl(ImageView<const T> src, int firstColumn, float* block) {
    const int valid = std::min(kLanes, src.width - firstColumn);
    for (int y = 0; y < src.height; ++y) {
        const T* p = src.row(y) + firstColumn;
        float* b = at(block, y);
        if (valid == kLanes) {
            for (int q = 0; q < kVectors; ++q) vst1q_f32(b + 4 * q, loadLane4(p + 4 * q));
        } else {
            for (int l = 0; l < kLanes; ++l) b[l] = loadScalar(p + std::min(l, valid - 1));
        }
    }
}

} // namespace

void gatherRows(ImageView<const float> src, int firstRow, float* block) { gatherRowsImpl(src, firstRow, block); }
void gatherRows(ImageView<const std::uint8_t> src, int firstRow, float* block) { gatherRowsImpl(src, firstRow, block); }
void gatherColumns(ImageView<const float> src, int firstColumn, float* block) {
    gatherColumnsImpl(src, firstColumn, block);
}
void gatherColumns(ImageView<const std::uint8_t> src, int firstColumn, float* block) {
    gatherColumnsImpl(src, firstColumn, block);
}

void scatterRows(const float* block, int firstRow, ImageView<float> dst) {
    const int valid = std::min(kLanes, dst.height - firstRow);
    const int W = dst.width;
    int x = 0;
    for (; x + 4 <= W; x += 4) {
        for (int q = 0; q < kVectors && 4 * q < valid; ++q) {
            float32x4_t r0 = vld1q_f32(at(block, x) + 4 * q), r1 = vld1q_f32(at(block, x + 1) + 4 * q);
            float32x4_t r2 = vld1q_f32(at(block, x + 2) + 4 * q), r3 = vld1q_f32(at(block, x + 3) + 4 * q);
            transpose4(r0, r1, r2, r3);
            const float32x4_t rowsOut[4] = {r0, r1, r2, r3};
            for (int j = 0; j < 4 && 4 * q + j < valid; ++j) vst1q_f32(dst.row(firstRow + 4 * q + j) + x, rowsOut[j]);
        }
    }
    for (; x < W; ++x)
        for (int l = 0; l < valid; ++l) dst.row(firstRow + l)[x] = at(block, x)[l];
}

void scatterColumns(const float* block, int firstColumn, ImageView<float> dst) {
    const int valid = std::min(kLanes, dst.width - firstColumn);
    for (int y = 0; y < dst.height; ++y) {
        float* p = dst.row(y) + firstColumn;
        const float* b = at(block, y);
        if (valid == kLanes) {
            for (int q = 0; q < kVectors; ++q) vst1q_f32(p + 4 * q, vld1q_f32(b + 4 * q));
        } else {
            std::copy(b, b + valid, p);
        }
    }
}

void firBlock(const float* in, float* out, int n, const std::vector<float>& taps) {
    const int R = static_cast<int>(taps.size()) - 1;
    for (int i = 0; i < n; ++i) {
        float32x4_t acc[kVectors];
        const float* c = at(in, i);
        for (int v = 0; v < kVectors; ++v) acc[v] = vmulq_n_f32(vld1q_f32(c + 4 * v), taps[0]);
        const bool interior = i - R >= 0 && i + R < n;
        for (int k = 1; k <= R; ++k) {
            const float* a = at(in, interior ? i - k : clampIndex(i - k, n));
            const float* b = at(in, interior ? i + k : clampIndex(i + k, n));
            for (int v = 0; v < kVectors; ++v)
                acc[v] = vmlaq_n_f32(acc[v], vaddq_f32(vld1q_f32(a + 4 * v), vld1q_f32(b + 4 * v)), taps[k]);
        }
        for (int v = 0; v < kVectors; ++v) vst1q_f32(at(out, i) + 4 * v, acc[v]);
    }
}

GaborTaps gaborTapsFloat(double sigma, double w) {
    const std::vector<Complex64> t = gaborTaps(sigma, w);
    const int R = static_cast<int>(t.size()) / 2;
    GaborTaps g;
    for (int k = 0; k <= R; ++k) {
        g.c.push_back(static_cast<float>(t[R + k].real()));
        g.s.push_back(static_cast<float>(t[R + k].imag()));
    }
    return g;
}

void firGaborRealBlock(const float* in, float* re, float* im, int n, const GaborTaps& taps) {
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
                accI[v] = vmlaq_n_f32(accI[v], vsubq_f32(xa, xb), taps.s[k]);
            }
        }
        for (int v = 0; v < kVectors; ++v) {
            vst1q_f32(at(re, i) + 4 * v, accR[v]);
            vst1q_f32(at(im, i) + 4 * v, accI[v]);
        }
    }
}

void firGaborComplexBlock(const float* inRe, const float* inIm, float* re, float* im, int n, const GaborTaps& taps) {
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
                accR[v] = vmlsq_n_f32(accR[v], vsubq_f32(ja, jb), taps.s[k]);
                accI[v] = vmlaq_n_f32(accI[v], vaddq_f32(ja, jb), taps.c[k]);
                accI[v] = vmlaq_n_f32(accI[v], vsubq_f32(ra, rb), taps.s[k]);
            }
        }
        for (int v = 0; v < kVectors; ++v) {
            vst1q_f32(at(re, i) + 4 * v, accR[v]);
            vst1q_f32(at(im, i) + 4 * v, accI[v]);
        }
    }
}

void boxBlock(const float* in, float* out, int n, const ExtendedBox& box) {
    const int r = box.r;
    const float alpha = static_cast<float>(box.alpha);
    const float inv = static_cast<float>(1.0 / box.norm);
    float32x4_t sum[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        sum[v] = vdupq_n_f32(0.0f);
        for (int k = -r; k <= r; ++k) sum[v] = vaddq_f32(sum[v], vld1q_f32(at(in, clampIndex(k, n)) + 4 * v));
    }
    for (int i = 0; i < n; ++i) {
        const float* lo = at(in, clampIndex(i - r - 1, n));
        const float* hi = at(in, clampIndex(i + r + 1, n));
        const float* leaving = at(in, clampIndex(i - r, n));
        for (int v = 0; v < kVectors; ++v) {
            const float32x4_t h = vld1q_f32(hi + 4 * v);
            const float32x4_t ends = vaddq_f32(vld1q_f32(lo + 4 * v), h);
            vst1q_f32(at(out, i) + 4 * v, vmulq_n_f32(vmlaq_n_f32(sum[v], ends, alpha), inv));
            sum[v] = vaddq_f32(sum[v], vsubq_f32(h, vld1q_f32(leaving + 4 * v)));
        }
    }
}

RecursiveFloat recursiveFloat(const Recursive3& r) {
    RecursiveFloat f{};
    f.B = static_cast<float>(r.B);
    for (int k = 0; k < 3; ++k) {
        f.ar[k] = static_cast<float>(r.forward[k].real());
        f.ai[k] = static_cast<float>(r.forward[k].imag());
        f.br[k] = static_cast<float>(r.backward[k].real());
        f.bi[k] = static_cast<float>(r.backward[k].imag());
        for (int j = 0; j < 3; ++j) {
            f.mr[j][k] = static_cast<float>(r.border[j][k].real());
            f.mi[j][k] = static_cast<float>(r.border[j][k].imag());
        }
    }
    f.fgr = static_cast<float>(r.forwardGain.real());
    f.fgi = static_cast<float>(r.forwardGain.imag());
    f.bgr = static_cast<float>(r.backwardGain.real());
    f.bgi = static_cast<float>(r.backwardGain.imag());
    return f;
}

void recursiveBlock(float* data, int n, const RecursiveFloat& f) {
    // Each group of four lanes is an independent recursion; the loop over v sits inside the sample
    // loop for instruction-level parallelism, so the states live in arrays.
    float32x4_t u1[kVectors], u2[kVectors], u3[kVectors], last[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const float32x4_t x0 = vld1q_f32(at(data, 0) + 4 * v);
        last[v] = vld1q_f32(at(data, n - 1) + 4 * v);
        u1[v] = u2[v] = u3[v] = vmulq_n_f32(x0, f.fgr);
    }
    for (int i = 0; i < n; ++i) {
        float* p = at(data, i);
        for (int v = 0; v < kVectors; ++v) {
            float32x4_t u = vmulq_n_f32(vld1q_f32(p + 4 * v), f.B);
            u = vmlaq_n_f32(u, u1[v], f.ar[0]);
            u = vmlaq_n_f32(u, u2[v], f.ar[1]);
            u = vmlaq_n_f32(u, u3[v], f.ar[2]);
            vst1q_f32(p + 4 * v, u);
            u3[v] = u2[v];
            u2[v] = u1[v];
            u1[v] = u;
        }
    }
    float32x4_t v1[kVectors], v2[kVectors], v3[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const float32x4_t uEnd = vmulq_n_f32(last[v], f.fgr);
        const float32x4_t vEnd = vmulq_n_f32(uEnd, f.bgr);
        const float32x4_t d[3] = {vsubq_f32(u1[v], uEnd), vsubq_f32(u2[v], uEnd), vsubq_f32(u3[v], uEnd)};
        float32x4_t s[3];
        for (int j = 0; j < 3; ++j) {
            s[j] = vEnd;
            for (int k = 0; k < 3; ++k) s[j] = vmlaq_n_f32(s[j], d[k], f.mr[j][k]);
        }
        v1[v] = s[0];
        v2[v] = s[1];
        v3[v] = s[2];
    }
    for (int i = n - 1; i >= 0; --i) {
        float* p = at(data, i);
        for (int v = 0; v < kVectors; ++v) {
            float32x4_t y = vmulq_n_f32(vld1q_f32(p + 4 * v), f.B);
            y = vmlaq_n_f32(y, v1[v], f.br[0]);
            y = vmlaq_n_f32(y, v2[v], f.br[1]);
            y = vmlaq_n_f32(y, v3[v], f.br[2]);
            vst1q_f32(p + 4 * v, y);
            v3[v] = v2[v];
            v2[v] = v1[v];
            v1[v] = y;
        }
    }
}

namespace {

struct C4 {
    float32x4_t r, i;
};

inline C4 cmulScalar(C4 z, float cr, float ci) {
    return {vmlsq_n_f32(vmulq_n_f32(z.r, cr), z.i, ci), vmlaq_n_f32(vmulq_n_f32(z.i, cr), z.r, ci)};
}
inline C4 cadd(C4 a, C4 b) { return {vaddq_f32(a.r, b.r), vaddq_f32(a.i, b.i)}; }
inline C4 csub(C4 a, C4 b) { return {vsubq_f32(a.r, b.r), vsubq_f32(a.i, b.i)}; }

} // namespace

void recursiveComplexBlock(float* re, float* im, int n, const RecursiveFloat& f, bool realInput) {
    const float32x4_t zero = vdupq_n_f32(0.0f);
    C4 u1[kVectors], u2[kVectors], u3[kVectors], last[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const C4 x0{vld1q_f32(at(re, 0) + 4 * v), realInput ? zero : vld1q_f32(at(im, 0) + 4 * v)};
        last[v] = {vld1q_f32(at(re, n - 1) + 4 * v), realInput ? zero : vld1q_f32(at(im, n - 1) + 4 * v)};
        u1[v] = u2[v] = u3[v] = cmulScalar(x0, f.fgr, f.fgi);
    }
    for (int i = 0; i < n; ++i) {
        float* pr = at(re, i);
        float* pi = at(im, i);
        for (int v = 0; v < kVectors; ++v) {
            C4 u{vmulq_n_f32(vld1q_f32(pr + 4 * v), f.B), realInput ? zero : vmulq_n_f32(vld1q_f32(pi + 4 * v), f.B)};
            u = cadd(u, cmulScalar(u1[v], f.ar[0], f.ai[0]));
            u = cadd(u, cmulScalar(u2[v], f.ar[1], f.ai[1]));
            u = cadd(u, cmulScalar(u3[v], f.ar[2], f.ai[2]));
            vst1q_f32(pr + 4 * v, u.r);
            vst1q_f32(pi + 4 * v, u.i);
            u3[v] = u2[v];
            u2[v] = u1[v];
            u1[v] = u;
        }
    }
    C4 v1[kVectors], v2[kVectors], v3[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const C4 uEnd = cmulScalar(last[v], f.fgr, f.fgi);
        const C4 vEnd = cmulScalar(uEnd, f.bgr, f.bgi);
        const C4 d[3] = {csub(u1[v], uEnd), csub(u2[v], uEnd), csub(u3[v], uEnd)};
        C4 s[3];
        for (int j = 0; j < 3; ++j) {
            s[j] = vEnd;
            for (int k = 0; k < 3; ++k) s[j] = cadd(s[j], cmulScalar(d[k], f.mr[j][k], f.mi[j][k]));
        }
        v1[v] = s[0];
        v2[v] = s[1];
        v3[v] = s[2];
    }
    for (int i = n - 1; i >= 0; --i) {
        float* pr = at(re, i);
        float* pi = at(im, i);
        for (int v = 0; v < kVectors; ++v) {
            C4 y{vmulq_n_f32(vld1q_f32(pr + 4 * v), f.B), vmulq_n_f32(vld1q_f32(pi + 4 * v), f.B)};
            y = cadd(y, cmulScalar(v1[v], f.br[0], f.bi[0]));
            y = cadd(y, cmulScalar(v2[v], f.br[1], f.bi[1]));
            y = cadd(y, cmulScalar(v3[v], f.br[2], f.bi[2]));
            vst1q_f32(pr + 4 * v, y.r);
            vst1q_f32(pi + 4 * v, y.i);
            v3[v] = v2[v];
            v2[v] = v1[v];
            v1[v] = y;
        }
    }
}

} // namespace striate::cpu
