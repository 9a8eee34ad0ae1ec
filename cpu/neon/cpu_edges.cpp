// The cpu backend's edge stages: Canny's gradient, suppression and double threshold in bands
// (fused with a banded smoothing), the Gabor-energy suppression, hysteresis (banded floods, then
// across the bands), and the stage's output as floats or codes.
#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/hysteresis.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {

namespace {

/// Central differences of the smoothed image at x (docs/algorithms.md 4.1), clamped at the row ends.
inline void gradientAt(const float* up, const float* mid, const float* dn, int W, int x, float* gx, float* gy) {
    *gx = (mid[std::min(x + 1, W - 1)] - mid[std::max(x - 1, 0)]) * 0.5f;
    *gy = (dn[x] - up[x]) * 0.5f;
}

/// The NMS sector of a gradient (kSectorStep).
inline int sectorOf(float gx, float gy) {
    const float ax = std::abs(gx), ay = std::abs(gy);
    return ay <= static_cast<float>(kTan22_5) * ax ? 0 : ay > static_cast<float>(kTan67_5) * ax ? 2 : ((gx > 0) == (gy > 0) ? 1 : 3);
}

/// One row of squared gradient magnitudes, times 4: the squares of twice the gradient, the
/// central differences without their halving (scaling by powers of two is exact, so every
/// comparison of them, against neighbours or against 4 t^2, is the unscaled one's).
void squaredMagnitudeRow(const float* up, const float* mid, const float* dn, int W, float* m2) {
    auto scalar = [&](int x) {
        float gx, gy;
        gradientAt(up, mid, dn, W, x, &gx, &gy);
        gx *= 2;
        gy *= 2;
        m2[x] = gx * gx + gy * gy;
    };
    int x = 0;
    if (W > 0) scalar(x++);
    for (; x + 4 <= W - 1; x += 4) {
        const float32x4_t gx = vsubq_f32(vld1q_f32(mid + x + 1), vld1q_f32(mid + x - 1));
        const float32x4_t gy = vsubq_f32(vld1q_f32(dn + x), vld1q_f32(up + x));
        vst1q_f32(m2 + x, vaddq_f32(vmulq_f32(gx, gx), vmulq_f32(gy, gy)));
    }
    for (; x < W; ++x) scalar(x);
}

/// Four pixels' classes (0 none, 1 weak, 2 strong; 0 unless a local maximum): v against the
/// neighbours before and after it across the edge, scaled by up and down (the tie tolerance), and
/// against the thresholds. The class is 0 - weak - strong: masks are -1, and strong implies weak
/// (low <= high).
inline uint32x4_t classLanes(float32x4_t v, float32x4_t before, float32x4_t after, float up, float down, float low,
                             float high) {
    const uint32x4_t isMax = vandq_u32(vcgtq_f32(v, vmulq_n_f32(before, up)), vcgeq_f32(v, vmulq_n_f32(after, down)));
    const uint32x4_t weak = vcgeq_f32(v, vdupq_n_f32(low)), strong = vcgeq_f32(v, vdupq_n_f32(high));
    return vandq_u32(vsubq_u32(vsubq_u32(vdupq_n_u32(0), weak), strong), isMax);
}

/// One row of Canny's non-maximum suppression and double threshold (0 none, 1 weak, 2 strong)
/// from the smoothed rows around it (for the gradient's sector) and the squared magnitudes of
/// the rows y - 1, y, y + 1 (times 4, squaredMagnitudeRow). Squares compare as the magnitudes
/// do: v > b (1 + t) iff v^2 > b^2 (1 + t)^2 for non-negative values, so no square root is taken.
void cannyRow(const float* up, const float* mid, const float* dn, const float* a, const float* m, const float* b, int W,
              float low, float high, std::uint8_t* cls) {
    const float up2 = static_cast<float>((1 + kTieTolerance) * (1 + kTieTolerance));
    const float down2 = static_cast<float>((1 - kTieTolerance) * (1 - kTieTolerance));
    const float low2 = (2 * low) * (2 * low), high2 = (2 * high) * (2 * high);
    const float* rows[3] = {a, m, b};
    auto scalar = [&](int x) {
        float gx, gy;
        gradientAt(up, mid, dn, W, x, &gx, &gy);
        const int sec = sectorOf(gx, gy);
        const int dx = kSectorStep[sec][0], dy = kSectorStep[sec][1];
        const float v = m[x];
        const float before = rows[1 - dy][std::clamp(x - dx, 0, W - 1)];
        const float after = rows[1 + dy][std::clamp(x + dx, 0, W - 1)];
        const bool isMax = v > before * up2 && v >= after * down2;
        cls[x] = !isMax ? 0 : v >= high2 ? 2 : v >= low2 ? 1 : 0;
    };
    if (W > 0) scalar(0);
    const float32x4_t zero = vdupq_n_f32(0.0f), lowest = vdupq_n_f32(low2);
    const float t1 = static_cast<float>(kTan22_5), t2 = static_cast<float>(kTan67_5);
    // Four pixels of the interior from x.
    auto vector = [&](int x) {
        const float32x4_t v = vld1q_f32(m + x);
        // Twice the gradient: the sector depends on its direction alone, and doubling is exact.
        const float32x4_t gx = vsubq_f32(vld1q_f32(mid + x + 1), vld1q_f32(mid + x - 1));
        const float32x4_t gy = vsubq_f32(vld1q_f32(dn + x), vld1q_f32(up + x));
        const float32x4_t ax = vabsq_f32(gx), ay = vabsq_f32(gy);
        const uint32x4_t isX = vcleq_f32(ay, vmulq_n_f32(ax, t1));   // sector 0: (x-1, y) / (x+1, y)
        const uint32x4_t isY = vcgtq_f32(ay, vmulq_n_f32(ax, t2));   // sector 2: (x, y-1) / (x, y+1)
        const uint32x4_t diag = vceqq_u32(vcgtq_f32(gx, zero), vcgtq_f32(gy, zero));
        // diag: sector 1, (x-1, y-1) / (x+1, y+1); otherwise sector 3, (x+1, y-1) / (x-1, y+1)
        float32x4_t before = selectLanes(diag, vld1q_f32(a + x - 1), vld1q_f32(a + x + 1));
        float32x4_t after = selectLanes(diag, vld1q_f32(b + x + 1), vld1q_f32(b + x - 1));
        before = selectLanes(isY, vld1q_f32(a + x), before);
        after = selectLanes(isY, vld1q_f32(b + x), after);
        before = selectLanes(isX, vld1q_f32(m + x - 1), before);
        after = selectLanes(isX, vld1q_f32(m + x + 1), after);
        storeLowBytes(classLanes(v, before, after, up2, down2, low2, high2), cls + x);
    };
    // The interior's vectors of four, x = 1 + 4 j for j < n. Most pixels lie below the low
    // threshold, where the class is 0 whatever the neighbours; which vectors hold one above it
    // follows no pattern a branch predictor learns, so the vectors to work on are found first,
    // 64 at a time into a mask without a branch, and the loop visits the mask's bits.
    const int n = std::max(0, (W - 2) / 4);
    std::memset(cls + 1, 0, 4 * static_cast<std::size_t>(n));
    for (int j0 = 0; j0 < n; j0 += 64) {
        std::uint64_t work = 0;
        for (int j = 0; j < std::min(64, n - j0); ++j)
            work |= static_cast<std::uint64_t>(anyLane(vcgeq_f32(vld1q_f32(m + 1 + 4 * (j0 + j)), lowest))) << j;
        for (; work != 0; work &= work - 1) vector(1 + 4 * (j0 + std::countr_zero(work)));
    }
    for (int x = 1 + 4 * n; x < W; ++x) scalar(x);
}

/// One row of non-maximum suppression and double threshold: 0 none, 1 weak, 2 strong.
void suppressRow(const float* a, const float* m, const float* b, const std::uint8_t* sec, int W, float low,
                 float high, std::uint8_t* cls) {
    const float up = static_cast<float>(1 + kTieTolerance), down = static_cast<float>(1 - kTieTolerance);
    const float* rows[3] = {a, m, b};
    auto scalar = [&](int x) {
        const int dx = kSectorStep[sec[x]][0], dy = kSectorStep[sec[x]][1];
        const float v = m[x];
        const float before = rows[1 - dy][std::clamp(x - dx, 0, W - 1)];
        const float after = rows[1 + dy][std::clamp(x + dx, 0, W - 1)];
        cls[x] = !isLocalMaximum(v, before, after) ? 0 : v >= high ? 2 : v >= low ? 1 : 0;
    };
    int x = 0;
    if (W > 0) scalar(x++);
    // Interior: all four sectors' neighbours are loaded and the pixel's sector selects.
    for (; x + 4 <= W - 1; x += 4) {
        std::uint32_t packed;
        std::memcpy(&packed, sec + x, 4);
        const uint32x4_t s = vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(packed)))));
        const uint32x4_t s0 = vceqq_u32(s, vdupq_n_u32(0)), s1 = vceqq_u32(s, vdupq_n_u32(1));
        const uint32x4_t s2 = vceqq_u32(s, vdupq_n_u32(2));
        const float32x4_t v = vld1q_f32(m + x);
        // sector 0: (x-1, y) / (x+1, y); 1: (x-1, y-1) / (x+1, y+1); 2: (x, y-1) / (x, y+1);
        // 3: (x+1, y-1) / (x-1, y+1)
        float32x4_t before = selectLanes(s2, vld1q_f32(a + x), vld1q_f32(a + x + 1));
        before = selectLanes(s1, vld1q_f32(a + x - 1), before);
        before = selectLanes(s0, vld1q_f32(m + x - 1), before);
        float32x4_t after = selectLanes(s2, vld1q_f32(b + x), vld1q_f32(b + x - 1));
        after = selectLanes(s1, vld1q_f32(b + x + 1), after);
        after = selectLanes(s0, vld1q_f32(m + x + 1), after);
        storeLowBytes(classLanes(v, before, after, up, down, low, high), cls + x);
    }
    for (; x < W; ++x) scalar(x);
}

/// Canny's classes of rows [y0, y1) from the smoothed rows, which smoothed(y) returns (rows
/// asked for in increasing order, each one within four of the latest). The squared gradient
/// magnitudes of the rows y - 1..y + 1 sit in a ring of three rows (`ring`, 3W floats).
template <class Smoothed>
void cannyBand(Smoothed&& smoothed, int W, int H, int y0, int y1, float low, float high, float* ring,
               ImageView<std::uint8_t> cls, ImageView<float> strength) {
    auto slot = [&](int y) { return ring + (y % 3) * static_cast<std::ptrdiff_t>(W); };
    int next = std::max(y0 - 1, 0);
    auto magnitudes = [&](int y) {
        for (; next <= y; ++next)
            squaredMagnitudeRow(smoothed(std::max(next - 1, 0)), smoothed(next), smoothed(std::min(next + 1, H - 1)), W,
                                slot(next));
        return slot(y);
    };
    for (int y = y0; y < y1; ++y) {
        const int above = std::max(y - 1, 0), below = std::min(y + 1, H - 1);
        const float* b = magnitudes(below);
        cannyRow(smoothed(above), smoothed(y), smoothed(below), slot(above), slot(y), b, W, low, high, cls.row(y));
        if (!strength.empty()) {
            const float* m2 = slot(y);
            float* out = strength.row(y);
            int x = 0;
            for (; x + 4 <= W; x += 4) vst1q_f32(out + x, vmulq_n_f32(sqrtq(vld1q_f32(m2 + x)), 0.5f));
            for (; x < W; ++x) out[x] = std::sqrt(m2[x]) * 0.5f;
        }
    }
}

} // namespace

template <class Src>
void CpuBackend::canny(const BlurPlan& smoothing, ImageView<const Src> in, const EdgeSpec& spec, bool keepStrength,
                       const EdgeWriter& out) {
    // A banded smoothing runs inside the bands (FirBand into a ring of five smoothed rows), so
    // the smoothed image never goes to memory; any other method smooths the whole plane first.
    const int W = in.width, H = in.height;
    const DirectBlur* fused = bandedDirect(smoothing);
    if (!fused) blur(smoothing, in, gauss_.view());
    const ImageView<const float> plane = gauss_.view();
    const float low = static_cast<float>(spec.lowThreshold), high = static_cast<float>(spec.highThreshold);
    const ImageView<float> strength = keepStrength ? strength_.view() : ImageView<float>();
    // Twice bandRows()'s bands: a band's hysteresis takes as long as its edges do, and the
    // smaller bands spread it more evenly over the workers (at 1080p on two, four bands' floods
    // took 0.51, 0.50, 0.61 and 0.13 ms).
    const int rows = std::max(kLanes, bandRows() / 2);
    pool_.parallelFor((H + rows - 1) / rows, [&](int band, int worker) {
        Scratch& scratch = scratch_[worker];
        const int y0 = band * rows, y1 = std::min(H, y0 + rows);
        float* magnitudes = scratch.block[1].data();
        if (!fused) {
            cannyBand([&](int y) { return plane.row(y); }, W, H, y0, y1, low, high, magnitudes, class_.view(), strength);
        } else {
            FirBand<Src> fir(in, fused->taps, scratch.ring.data(), avx2_);
            float* rowsOut = scratch.block[2].data();
            int next = std::max(y0 - 2, 0);
            auto smoothed = [&](int y) -> const float* {
                for (; next <= y; ++next) fir.rowInto(next, rowsOut + (next % 5) * static_cast<std::ptrdiff_t>(W));
                return rowsOut + (y % 5) * static_cast<std::ptrdiff_t>(W);
            };
            cannyBand(smoothed, W, H, y0, y1, low, high, magnitudes, class_.view(), strength);
        }
        // The band's own hysteresis and output while its classes are in cache.
        floodBand(y0, y1);
        out.rows(y0, y1);
    });
    floodAcross(rows, out);
}

void CpuBackend::suppressAndTrace(const EdgeSpec& spec, const EdgeWriter& out) {
    const int W = format_.width, H = format_.height;
    const float low = static_cast<float>(spec.lowThreshold), high = static_cast<float>(spec.highThreshold);
    pool_.parallelFor(laneGroups(H), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(H, (g + 1) * kLanes); ++y)
            suppressRow(strength_.row(std::max(y - 1, 0)), strength_.row(y), strength_.row(std::min(y + 1, H - 1)),
                        sector_.row(y), W, low, high, class_.row(y));
    });
    trace(out);
}

void CpuBackend::floodBand(int y0, int y1) {
    // Hysteresis marks every weak pixel 8-connected to a strong one; the set does not depend on
    // the order of the floods, so bands of rows flood from their strong seeds within their own
    // rows in parallel, each on its rows' part of the queue (a row's pixels and one more a row),
    // and floodAcross joins them.
    const int W = format_.width;
    floodFromStrong(class_.data(), class_.stride(), W, y0, y1, queue_.get() + static_cast<std::ptrdiff_t>(y0) * (W + 1));
}

void CpuBackend::floodAcross(int rows, const EdgeWriter& out) {
    // What crosses a band's edge: an edge pixel beside a weak one in the next band's first row
    // or the previous band's last, flooded through the whole frame (every strong pixel is an
    // edge by now, so only weak ones remain). The bands' rows are written already: the pixels
    // marked here are written one by one.
    const int W = format_.width, H = format_.height;
    const std::ptrdiff_t stride = class_.stride();
    std::uint8_t* c = class_.data();
    std::int32_t* queue = queue_.get();
    for (int y = rows; y < H; y += rows) {
        std::uint8_t *above = c + (y - 1) * stride, *below = c + y * stride;
        std::size_t tail = 0;
        for (int x = 0; x < W; ++x)
            for (auto [from, to, ty] : {std::tuple(above, below, y), std::tuple(below, above, y - 1)})
                if (from[x] == 3)
                    for (int nx = std::max(x - 1, 0); nx <= std::min(x + 1, W - 1); ++nx)
                        if (to[nx] == 1) {
                            to[nx] = 3;
                            queue[tail++] = packedPixel(nx, ty);
                        }
        tail = flood(c, stride, W, 0, H, queue, tail);
        for (std::size_t i = 0; i < tail; ++i) out.edge(queue[i] & ((1 << kPackShift) - 1), queue[i] >> kPackShift);
    }
}

void CpuBackend::trace(const EdgeWriter& out) {
    const int H = format_.height, rows = bandRows();
    pool_.parallelFor((H + rows - 1) / rows, [&](int band, int) {
        const int y0 = band * rows, y1 = std::min(H, y0 + rows);
        floodBand(y0, y1);
        out.rows(y0, y1);
    });
    floodAcross(rows, out);
}

template <class Src>
void CpuBackend::edges(const EdgeStagePlan& plan, ImageView<const Src> in, const EdgeWriter& out) {
    const EdgeSpec& spec = plan.spec;
    std::visit(Overloaded{[&](const CannyPlan& c) { canny(c.smoothing, in, spec, !spec.tracesEdges(), out); },
                          [&](const GaborEnergyPlan& g) {
                              gabor(g.bank, in, strength_.view());
                              suppressAndTrace(spec, out);
                          }},
               plan.method);
}

namespace {

/// An edges stage's output as floats: the strength, 0/1 edges, or the input under 1s.
template <class Src>
class FloatEdges final : public EdgeWriter {
public:
    FloatEdges(EdgeOutput output, ImageView<const std::uint8_t> cls, ImageView<const float> strength,
               ImageView<const Src> in, ImageView<float> out)
        : output_(output), cls_(cls), strength_(strength), in_(in), out_(out) {}

    void rows(int y0, int y1) const override {
        const int W = in_.width;
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* cls = cls_.row(y);
            float* o = out_.row(y);
            switch (output_) {
            case EdgeOutput::Strength: std::copy(strength_.row(y), strength_.row(y) + W, o); break;
            case EdgeOutput::Edges: {
                int x = 0;
                const uint32x4_t one = vreinterpretq_u32_f32(vdupq_n_f32(1.0f));
                for (; x + 8 <= W; x += 8) {
                    // All-ones lanes where the class is 3, widened with sign extension.
                    const int16x8_t mask = vmovl_s8(vreinterpret_s8_u8(vceq_u8(vld1_u8(cls + x), vdup_n_u8(3))));
                    const uint32x4_t lo = vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(mask)));
                    const uint32x4_t hi = vreinterpretq_u32_s32(vmovl_s16(vget_high_s16(mask)));
                    vst1q_f32(o + x, vreinterpretq_f32_u32(vandq_u32(lo, one)));
                    vst1q_f32(o + x + 4, vreinterpretq_f32_u32(vandq_u32(hi, one)));
                }
                for (; x < W; ++x) o[x] = cls[x] == 3 ? 1.0f : 0.0f;
                break;
            }
            case EdgeOutput::Overlay:
                for (int x = 0; x < W; ++x) o[x] = cls[x] == 3 ? 1.0f : unitValue(in_.row(y)[x]);
                break;
            }
        }
    }
    void edge(int x, int y) const override {
        switch (output_) {
        case EdgeOutput::Edges:
        case EdgeOutput::Overlay: out_.row(y)[x] = 1.0f; break;
        case EdgeOutput::Strength: break;  // the strength marks no edge
        }
    }

private:
    EdgeOutput output_;
    ImageView<const std::uint8_t> cls_;
    ImageView<const float> strength_;
    ImageView<const Src> in_;
    ImageView<float> out_;
};

/// An edges stage's 0/1 edges, or the input under 1s, as 8-bit codes (not the strength: that
/// goes through floats).
template <class Src>
class CodeEdges final : public EdgeWriter {
public:
    /// `overlay`: the input under the edges (EdgeSpec::showsInput), else 0/1 edges.
    CodeEdges(bool overlay, ImageView<const std::uint8_t> cls, ImageView<const Src> in, const Output8& out)
        : overlay_(overlay), cls_(cls), in_(in), out_(out), edge_(encode8(1.0f, out.encoding)),
          none_(encode8(0.0f, out.encoding)) {
        // Overlay from 8-bit input: the code of each input value, once per frame.
        if constexpr (std::is_same_v<Src, std::uint8_t>)
            if (overlay_)
                for (int v = 0; v < 256; ++v) lut_[v] = encode8(unitValue(static_cast<std::uint8_t>(v)), out.encoding);
    }

    void rows(int y0, int y1) const override {
        const int W = in_.width;
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* cls = cls_.row(y);
            std::uint8_t* o = out_.data + y * out_.stride;
            if (overlay_) {
                const Src* v = in_.row(y);
                for (int x = 0; x < W; ++x) {
                    std::uint8_t code;
                    if constexpr (std::is_same_v<Src, std::uint8_t>) code = lut_[v[x]];
                    else code = encode8(unitValue(v[x]), out_.encoding);
                    o[x * out_.step] = cls[x] == 3 ? edge_ : code;
                }
                continue;
            }
            int x = 0;
            if (out_.step == 1)
                for (; x + 16 <= W; x += 16)
                    vst1q_u8(o + x, vbslq_u8(vceqq_u8(vld1q_u8(cls + x), vdupq_n_u8(3)), vdupq_n_u8(edge_), vdupq_n_u8(none_)));
            for (; x < W; ++x) o[x * out_.step] = cls[x] == 3 ? edge_ : none_;
        }
    }
    void edge(int x, int y) const override { out_.data[y * out_.stride + x * out_.step] = edge_; }

private:
    bool overlay_;
    ImageView<const std::uint8_t> cls_;
    ImageView<const Src> in_;
    Output8 out_;
    std::uint8_t edge_, none_;
    std::uint8_t lut_[256];
};

} // namespace

void CpuBackend::planes(const EdgeStagePlan& plan, Planes* need) const {
    need->edges = true;
    need->strength |= !plan.spec.tracesEdges();
    std::visit(Overloaded{[&](const CannyPlan& c) {
                              if (blurRows(c.smoothing)) need->gauss = need->rowPass = true;
                          },
                          [&](const GaborEnergyPlan& g) {
                              need->strength = need->sector = true;
                              gaborPlanes(g.bank, need);
                          }},
               plan.method);
}

std::string CpuBackend::kernelName(const EdgeStagePlan& plan) {
    return std::visit(Overloaded{[](const CannyPlan&) { return "edges.canny.fir-nms-hysteresis"; },
                                 [](const GaborEnergyPlan&) { return "edges.gabor-energy.bank-nms-hysteresis"; }},
                      plan.method);
}

template <class Src>
void CpuBackend::toFloats(const EdgeStagePlan& plan, ImageView<const Src> in, ImageView<float> out) {
    edges(plan, in, FloatEdges<Src>(plan.spec.output, class_.view(), strength_.view(), in, out));
}

template <class Src>
void CpuBackend::toCodes(const EdgeStagePlan& plan, ImageView<const Src> in, ImageView<float> floats, const Output8& out) {
    // An edge map's codes straight from the classes (no float plane, no encoding pass); the
    // strength through floats.
    if (plan.spec.tracesEdges()) {
        edges(plan, in, CodeEdges<Src>(plan.spec.showsInput(), class_.view(), in, out));
    } else {
        toFloats(plan, in, floats);
        encodeTo(floats, out);
    }
}

template void CpuBackend::toFloats(const EdgeStagePlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::toFloats(const EdgeStagePlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toCodes(const EdgeStagePlan&, ImageView<const std::uint8_t>, ImageView<float>, const Output8&);
template void CpuBackend::toCodes(const EdgeStagePlan&, ImageView<const float>, ImageView<float>, const Output8&);

} // namespace striate::cpu
