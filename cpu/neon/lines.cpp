#include "cpu/neon/lines.h"

#include <algorithm>
#include <cmath>

#include "cpu/neon/avx2.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

using namespace block;

/// A row as unit floats with R replicated samples on each side, in line (W + 2R floats); returns
/// its first sample.
template <class T>
const float* padRowImpl(const T* in, int W, int R, float* line) {
    for (int i = 0; i < R; ++i) line[i] = loadScalar(in);
    int x = 0;
    for (; x + 16 <= W; x += 16) loadLane16(in + x, line + R + x);
    for (; x + 4 <= W; x += 4) vst1q_f32(line + R + x, loadLane4(in + x));
    for (; x < W; ++x) line[R + x] = loadScalar(in + x);
    for (int i = 0; i < R; ++i) line[R + W + i] = loadScalar(in + W - 1);
    return line + R;
}

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

const float* padRow(const float* in, int width, int radius, float* line) { return padRowImpl(in, width, radius, line); }
const float* padRow(const std::uint8_t* in, int width, int radius, float* line) { return padRowImpl(in, width, radius, line); }

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

namespace {

/// N vectors of a symmetric FIR: out[i] = taps[0] c[i] + sum_k taps[k] pair(k, i), where
/// pair(k, i) loads the two samples k before and after output i and adds them. N independent
/// accumulators keep the adds' latency hidden; each output's order of operations is the same
/// for every N.
template <int N, class Pair>
inline void symmetricTaps(const float* c, float* out, const std::vector<float>& taps, Pair pair) {
    const int R = static_cast<int>(taps.size()) - 1;
    float32x4_t acc[N];
    for (int q = 0; q < N; ++q) acc[q] = vmulq_n_f32(vld1q_f32(c + 4 * q), taps[0]);
    for (int k = 1; k <= R; ++k) {
        const float t = taps[k];
        for (int q = 0; q < N; ++q) acc[q] = vmlaq_n_f32(acc[q], pair(k, 4 * q), t);
    }
    for (int q = 0; q < N; ++q) vst1q_f32(out + 4 * q, acc[q]);
}


template <class T>
void firRowImpl(const T* in, int W, const std::vector<float>& taps, float* line, float* out, bool wide) {
    const int R = static_cast<int>(taps.size()) - 1;
    const float* c = padRow(in, W, R, line);
    int x = 0;
#if STRIATE_AVX2
    if (wide) {
        x = W / avx2::kFloatStep * avx2::kFloatStep;
        avx2::firRowFloat(c, taps.data(), R, x, out);
    }
#else
    (void)wide;
#endif
    auto pair = [&](int k, int i) { return vaddq_f32(vld1q_f32(c + x + i - k), vld1q_f32(c + x + i + k)); };
    for (; x + 16 <= W; x += 16) symmetricTaps<4>(c + x, out + x, taps, pair);
    for (; x + 4 <= W; x += 4) symmetricTaps<1>(c + x, out + x, taps, pair);
    for (; x < W; ++x) {
        float acc = c[x] * taps[0];
        for (int k = 1; k <= R; ++k) acc += (c[x - k] + c[x + k]) * taps[k];
        out[x] = acc;
    }
}

} // namespace

void firRow(const float* in, int width, const std::vector<float>& taps, float* line, float* out, bool wide) {
    firRowImpl(in, width, taps, line, out, wide);
}
void firRow(const std::uint8_t* in, int width, const std::vector<float>& taps, float* line, float* out, bool wide) {
    firRowImpl(in, width, taps, line, out, wide);
}

void firColumnRow(const float* const* window, int W, const std::vector<float>& taps, float* out, bool wide) {
    const int R = static_cast<int>(taps.size()) - 1;
    const float* c = window[R];
    // Chunks of 256 columns keep the 2R + 1 input row segments in L1.
    constexpr int kChunk = 256;
    for (int x0 = 0; x0 < W; x0 += kChunk) {
        const int x1 = std::min(W, x0 + kChunk);
        int x = x0;
#if STRIATE_AVX2
        if (wide) {
            const int n = (x1 - x0) / avx2::kFloatStep * avx2::kFloatStep;
            avx2::firColumnFloat(window, taps.data(), R, x0, n, out);
            x += n;
        }
#else
        (void)wide;
#endif
        auto pair = [&](int k, int i) { return vaddq_f32(vld1q_f32(window[R - k] + x + i), vld1q_f32(window[R + k] + x + i)); };
        for (; x + 16 <= x1; x += 16) symmetricTaps<4>(c + x, out + x, taps, pair);
        for (; x + 4 <= x1; x += 4) symmetricTaps<1>(c + x, out + x, taps, pair);
        for (; x < x1; ++x) {
            float acc = c[x] * taps[0];
            for (int k = 1; k <= R; ++k) acc += (window[R - k][x] + window[R + k][x]) * taps[k];
            out[x] = acc;
        }
    }
}

void firRows(ImageView<const float> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
             float* line, bool wide) {
    for (int y = y0; y < y1; ++y) firRow(src.row(y), src.width, taps, line, dst.row(y), wide);
}
void firRows(ImageView<const std::uint8_t> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
             float* line, bool wide) {
    for (int y = y0; y < y1; ++y) firRow(src.row(y), src.width, taps, line, dst.row(y), wide);
}

void firColumns(ImageView<const float> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
                bool wide) {
    const int R = static_cast<int>(taps.size()) - 1;
    const float* window[2 * kMaxFirRadius + 1];  // rows y - R..y + R, clamped at the borders
    for (int y = y0; y < y1; ++y) {
        for (int j = -R; j <= R; ++j) window[R + j] = src.row(clampIndex(y + j, src.height));
        firColumnRow(window, src.width, taps, dst.row(y), wide);
    }
}

template <class T>
FirBand<T>::FirBand(ImageView<const T> in, const std::vector<float>& taps, float* workspace, bool wide)
    : in_(in), taps_(taps), radius_(static_cast<int>(taps.size()) - 1), wide_(wide), ring_(workspace),
      line_(workspace + ringFloats(in.width, radius_)) {}

template <class T>
void FirBand<T>::rowInto(int y, float* out) {
    const int R = radius_, H = in_.height, W = in_.width;
    const std::ptrdiff_t lines = 2 * R + 1;
    auto slot = [&](int r) { return ring_ + (r % lines) * static_cast<std::ptrdiff_t>(W); };
    if (next_ < 0) next_ = std::max(y - R, 0);
    for (; next_ <= std::min(y + R, H - 1); ++next_) firRow(in_.row(next_), W, taps_, line_, slot(next_), wide_);
    for (int j = -R; j <= R; ++j) window_[R + j] = slot(clampIndex(y + j, H));
    firColumnRow(window_, W, taps_, out, wide_);
}

template class FirBand<float>;
template class FirBand<std::uint8_t>;

void replicateEnds(float* block, int n, int pad) {
    const float* first = at(block, pad);
    const float* last = at(block, pad + n - 1);
    for (int i = 0; i < pad; ++i) {
        std::copy(first, first + kLanes, at(block, i));
        std::copy(last, last + kLanes, at(block, pad + n + i));
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

namespace {

struct C4 {
    float32x4_t r, i;
};

inline C4 cmulScalar(C4 z, float cr, float ci) {
    return {vmlsq_n_f32(vmulq_n_f32(z.r, cr), z.i, ci), vmlaq_n_f32(vmulq_n_f32(z.i, cr), z.r, ci)};
}
inline C4 cadd(C4 a, C4 b) { return {vaddq_f32(a.r, b.r), vaddq_f32(a.i, b.i)}; }
inline C4 csub(C4 a, C4 b) { return {vsubq_f32(a.r, b.r), vsubq_f32(a.i, b.i)}; }
/// One first-order section: s = in + p s.
inline C4 section(C4 in, C4 s, float pr, float pi) { return cadd(in, cmulScalar(s, pr, pi)); }

/// Border start of the anticausal sections from the causal states after the last sample.
void borderStart(const CascadeFloat& f, C4 last, const C4 s[3], C4 t[3]) {
    C4 d[3], steady[3];
    for (int k = 0; k < 3; ++k) d[k] = csub(s[k], cmulScalar(last, f.gr[k], f.gi[k]));
    // Anticausal steady state for the constant causal output u = B x G_3.
    const C4 u = cmulScalar(cmulScalar(last, f.gr[2], f.gi[2]), f.B, 0.0f);
    for (int k = 0; k < 3; ++k) steady[k] = cmulScalar(u, f.hr[k], f.hi[k]);
    for (int j = 0; j < 3; ++j) {
        t[j] = steady[j];
        for (int k = 0; k < 3; ++k) t[j] = cadd(t[j], cmulScalar(d[k], f.mr[j][k], f.mi[j][k]));
    }
}

} // namespace

void recursiveComplexBlock(float* re, float* im, int n, const CascadeFloat& f, bool realInput) {
    // Each group of four lanes is an independent recursion; the loop over v sits inside the sample
    // loop for instruction-level parallelism, so the states live in arrays.
    const float32x4_t zero = vdupq_n_f32(0.0f);
    C4 s[kVectors][3], last[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const C4 x0{vld1q_f32(at(re, 0) + 4 * v), realInput ? zero : vld1q_f32(at(im, 0) + 4 * v)};
        last[v] = {vld1q_f32(at(re, n - 1) + 4 * v), realInput ? zero : vld1q_f32(at(im, n - 1) + 4 * v)};
        for (int k = 0; k < 3; ++k) s[v][k] = cmulScalar(x0, f.gr[k], f.gi[k]);
    }
    for (int i = 0; i < n; ++i) {
        float* pr = at(re, i);
        float* pi = at(im, i);
        for (int v = 0; v < kVectors; ++v) {
            const C4 x{vld1q_f32(pr + 4 * v), realInput ? zero : vld1q_f32(pi + 4 * v)};
            s[v][0] = section(x, s[v][0], f.pr[0], f.pi[0]);
            s[v][1] = section(s[v][0], s[v][1], f.pr[1], f.pi[1]);
            s[v][2] = section(s[v][1], s[v][2], f.pr[2], f.pi[2]);
            vst1q_f32(pr + 4 * v, vmulq_n_f32(s[v][2].r, f.B));
            vst1q_f32(pi + 4 * v, vmulq_n_f32(s[v][2].i, f.B));
        }
    }
    C4 t[kVectors][3];
    for (int v = 0; v < kVectors; ++v) borderStart(f, last[v], s[v], t[v]);
    for (int i = n - 1; i >= 0; --i) {
        float* pr = at(re, i);
        float* pi = at(im, i);
        for (int v = 0; v < kVectors; ++v) {
            const C4 u{vld1q_f32(pr + 4 * v), vld1q_f32(pi + 4 * v)};
            t[v][0] = section(u, t[v][0], f.qr[0], f.qi[0]);
            t[v][1] = section(t[v][0], t[v][1], f.qr[1], f.qi[1]);
            t[v][2] = section(t[v][1], t[v][2], f.qr[2], f.qi[2]);
            vst1q_f32(pr + 4 * v, vmulq_n_f32(t[v][2].r, f.B));
            vst1q_f32(pi + 4 * v, vmulq_n_f32(t[v][2].i, f.B));
        }
    }
}

namespace {

/// One component (real or imaginary) of the second-order form at one sample: s0 = x + d0 s0, then
/// y = s0 + a2 y[n-2] + a1 y[n-1], y[n-1] entering last (one multiply-add on the critical path).
inline float32x4_t secondOrder(float32x4_t x, float32x4_t& s0, float32x4_t& y1, float32x4_t& y2, const DemodCascade& f) {
    s0 = vmlaq_n_f32(x, s0, f.d0);
    const float32x4_t y = vmlaq_n_f32(vmlaq_n_f32(s0, y2, f.a2), y1, f.a1);
    y2 = y1;
    y1 = y;
    return y;
}

/// demodulatedBlock over the vectors [v0, v0 + V) of the block's lanes; !kComplex: a real line
/// (the Gaussian, w = 0), whose imaginary part is neither read nor written. With a span, one of
/// the line's two calls (DemodSpan).
template <int V, bool kComplex>
void demodulatedVectors(float* re, float* im, int n, const DemodCascade& f, const float* cosw, const float* sinw,
                        bool realInput, int v0, const DemodSpan* span) {
    const float32x4_t zero = vdupq_n_f32(0.0f);
    // Sample i demodulated: (r c + m s, m c - r s), c + i s = e^{i w i}.
    auto load = [&](int i, int v) -> C4 {
        const float32x4_t r = vld1q_f32(at(re, i) + 4 * (v0 + v));
        const float32x4_t m = !kComplex || realInput ? zero : vld1q_f32(at(im, i) + 4 * (v0 + v));
        if (!cosw) return {r, m};
        const float c = cosw[i], s = sinw[i];
        return {vmlaq_n_f32(vmulq_n_f32(r, c), m, s), vmlsq_n_f32(vmulq_n_f32(m, c), r, s)};
    };
    // A span's saved states: six complex values a lane (causal s0, y1, y2 after sample mid - 1,
    // then the anticausal start), each as kLanes real parts then kLanes imaginary ones.
    auto saved = [&](int k, int v) -> C4 {
        const float* p = span->state + static_cast<std::ptrdiff_t>(k) * 2 * kLanes + 4 * (v0 + v);
        return {vld1q_f32(p), vld1q_f32(p + kLanes)};
    };
    auto save = [&](int k, int v, C4 z) {
        float* p = span->state + static_cast<std::ptrdiff_t>(k) * 2 * kLanes + 4 * (v0 + v);
        vst1q_f32(p, z.r);
        vst1q_f32(p + kLanes, z.i);
    };
    const bool second = span && span->second;
    const int begin = second ? span->mid : 0;
    // The causal states (s0, y[n-1], y[n-2]) and the anticausal ones (v0, v2[n+1], v2[n+2]) of
    // each vector; a span saves them as its states 0..2 and 3..5.
    C4 c[3][V], a[3][V], last[V];
    for (int v = 0; v < V; ++v) {
        if (second) {
            for (int k = 0; k < 3; ++k) c[k][v] = saved(k, v);
            continue;
        }
        const C4 x0 = load(0, v);  // e^{0} = 1: the sample as given
        last[v] = load(n - 1, v);
        for (int k = 0; k < 3; ++k) c[k][v] = cmulScalar(x0, f.cr[k], f.ci[k]);
    }
    auto causal = [&](int from, int to) {
        for (int i = from; i < to; ++i)
            for (int v = 0; v < V; ++v) {
                const C4 x = load(i, v);
                vst1q_f32(at(re, i) + 4 * (v0 + v), vmulq_n_f32(secondOrder(x.r, c[0][v].r, c[1][v].r, c[2][v].r, f), f.B));
                if constexpr (kComplex)
                    vst1q_f32(at(im, i) + 4 * (v0 + v), vmulq_n_f32(secondOrder(x.i, c[0][v].i, c[1][v].i, c[2][v].i, f), f.B));
            }
    };
    if (span && !second) {
        causal(0, span->mid);
        for (int v = 0; v < V; ++v)
            for (int k = 0; k < 3; ++k) save(k, v, c[k][v]);
        causal(span->mid, n);
    } else {
        causal(begin, n);
    }
    for (int v = 0; v < V; ++v)
        for (int j = 0; j < 3; ++j) {
            if (second) {
                a[j][v] = saved(3 + j, v);
                continue;
            }
            const C4 state[4] = {last[v], c[0][v], c[1][v], c[2][v]};
            a[j][v] = cmulScalar(state[0], f.qr[j][0], f.qi[j][0]);
            for (int k = 1; k < 4; ++k) a[j][v] = cadd(a[j][v], cmulScalar(state[k], f.qr[j][k], f.qi[j][k]));
            if (span) save(3 + j, v, a[j][v]);
        }
    for (int i = n - 1; i >= begin; --i) {
        for (int v = 0; v < V; ++v) {
            float* pr = at(re, i) + 4 * (v0 + v);
            vst1q_f32(pr, vmulq_n_f32(secondOrder(vld1q_f32(pr), a[0][v].r, a[1][v].r, a[2][v].r, f), f.B));
            if constexpr (kComplex) {
                float* pi = at(im, i) + 4 * (v0 + v);
                vst1q_f32(pi, vmulq_n_f32(secondOrder(vld1q_f32(pi), a[0][v].i, a[1][v].i, a[2][v].i, f), f.B));
            }
        }
    }
}

} // namespace

void demodulatedBlock(float* re, float* im, int n, const DemodCascade& f, const float* cosw, const float* sinw,
                      bool realInput, const DemodSpan* span) {
    // The states of four vectors (24 registers) fit AArch64's 32; with 16 (x86, ARMv7) the
    // vectors go two at a time, the block staying in cache.
#if defined(__aarch64__)
    demodulatedVectors<kVectors, true>(re, im, n, f, cosw, sinw, realInput, 0, span);
#else
    for (int v0 = 0; v0 < kVectors; v0 += 2) demodulatedVectors<2, true>(re, im, n, f, cosw, sinw, realInput, v0, span);
#endif
}

void gaussianBlock(float* data, int n, const DemodCascade& f, const DemodSpan* span) {
    demodulatedVectors<kVectors, false>(data, nullptr, n, f, nullptr, nullptr, true, 0, span);
}

void recursiveBlock(float* data, int n, const CascadeFloat& f) {
    // The Gaussian's first pole is real and its input real, so the first section stays real; the
    // conjugate pair runs complex and the output is the real part.
    const float32x4_t zero = vdupq_n_f32(0.0f);
    C4 s[kVectors][3];
    float32x4_t last[kVectors];
    for (int v = 0; v < kVectors; ++v) {
        const C4 x0{vld1q_f32(at(data, 0) + 4 * v), zero};
        last[v] = vld1q_f32(at(data, n - 1) + 4 * v);
        for (int k = 0; k < 3; ++k) s[v][k] = cmulScalar(x0, f.gr[k], f.gi[k]);
    }
    for (int i = 0; i < n; ++i) {
        float* p = at(data, i);
        for (int v = 0; v < kVectors; ++v) {
            s[v][0].r = vmlaq_n_f32(vld1q_f32(p + 4 * v), s[v][0].r, f.pr[0]);
            s[v][1] = section(s[v][0], s[v][1], f.pr[1], f.pi[1]);
            s[v][2] = section(s[v][1], s[v][2], f.pr[2], f.pi[2]);
            vst1q_f32(p + 4 * v, vmulq_n_f32(s[v][2].r, f.B));
        }
    }
    C4 t[kVectors][3];
    for (int v = 0; v < kVectors; ++v) {
        borderStart(f, C4{last[v], zero}, s[v], t[v]);
        t[v][0].i = zero;
    }
    for (int i = n - 1; i >= 0; --i) {
        float* p = at(data, i);
        for (int v = 0; v < kVectors; ++v) {
            t[v][0].r = vmlaq_n_f32(vld1q_f32(p + 4 * v), t[v][0].r, f.qr[0]);
            t[v][1] = section(t[v][0], t[v][1], f.qr[1], f.qi[1]);
            t[v][2] = section(t[v][1], t[v][2], f.qr[2], f.qi[2]);
            vst1q_f32(p + 4 * v, vmulq_n_f32(t[v][2].r, f.B));
        }
    }
}

} // namespace striate::cpu
