#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "cpu/neon/encode.h"
#include "cpu/neon/fixed.h"
#include "cpu/neon/kernels.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

int groups(int n) { return (n + kLanes - 1) / kLanes; }

/// The input sample in the unit range, rounded as the reference rounds it (value / 255 in double).
float unitValue(float v) { return v; }
float unitValue(std::uint8_t v) { return static_cast<float>(v / 255.0); }

/// Magnitude of four (re, im) lanes at a time over a block.
void magnitudeBlock(const float* re, const float* im, float* out, int n) {
    for (int i = 0; i < n * kLanes; i += 4) {
        const float32x4_t r = vld1q_f32(re + i), m = vld1q_f32(im + i);
        vst1q_f32(out + i, sqrtq(vaddq_f32(vmulq_f32(r, r), vmulq_f32(m, m))));
    }
}

/// magnitudeBlock along a row of n samples.
void magnitudeRow(const float* re, const float* im, float* out, int n) {
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t r = vld1q_f32(re + i), m = vld1q_f32(im + i);
        vst1q_f32(out + i, sqrtq(vaddq_f32(vmulq_f32(r, r), vmulq_f32(m, m))));
    }
    for (; i < n; ++i) out[i] = std::sqrt(re[i] * re[i] + im[i] * im[i]);
}

} // namespace

CpuBackend::CpuBackend(int threads)
    : pool_(threads > 0 ? threads : defaultThreadCount()), fixedAvx2_(fixedRunsAvx2()) {}
CpuBackend::~CpuBackend() = default;

Status CpuBackend::validate(const Chain& chain, const FrameFormat& format) const {
    if (Status s = chain.validate(); !s) return s;
    return validateFrameFormat(format);
}

Status CpuBackend::configure(const Chain& chain, const FrameFormat& format) {
    if (Status s = validate(chain, format); !s) return s;
    chain_ = chain;
    format_ = format;
    plans_.clear();
    kernels_.clear();
    for (const Stage& st : chain.stages) {
        plans_.push_back(planStage(st));
        kernels_.push_back(kernelName(st));
    }
    const auto* blur = std::get_if<BlurSpec>(&chain.stages[0]);
    fixedTaps_ = chain.stages.size() == 1 && blur ? fixedTapsFor(*blur) : std::vector<std::int16_t>{};
    const int W = format.width, H = format.height;
    // A block holds a line plus the box cascade's padding; a direct blur's padded row (firRows)
    // needs W + 2R floats, which exceeds a block on narrow frames with a wide kernel.
    int pad = 0, radius = 0;
    for (const StagePlan& p : plans_) {
        pad = std::max({pad, p.blur.pad, p.gabor.dcBlur.pad});
        radius = std::max({radius, static_cast<int>(p.blur.taps.size()), static_cast<int>(p.gabor.dcBlur.taps.size())});
    }
    const std::size_t blockSize = std::max(static_cast<std::size_t>(std::max(W, H) + 2 * pad) * kLanes,
                                           static_cast<std::size_t>(W + 2 * radius));
    std::size_t ring = 0;
    for (const StagePlan& p : plans_)
        for (const BlurPlan* b : {&p.blur, &p.gabor.dcBlur})
            if (b->method == BlurMethod::Direct && !b->taps.empty() && banded(*b))
                ring = std::max(ring, FirBand<float>::workspaceFloats(W, static_cast<int>(b->taps.size()) - 1));
    for (const StagePlan& p : plans_)
        for (const GaborOrientationPlan& o : p.gabor.bank)
            if (rowWise(o)) ring = std::max(ring, GaborBand<float>::workspaceFloats(W, static_cast<int>(o.across.size()) - 1));
    fixed8_ = !fixedTaps_.empty();
    const std::size_t fixed = fixed8_ ? FixedBand::workspaceShorts(W, static_cast<int>(fixedTaps_.size()) - 1) : 0;
    scratch_.assign(pool_.size(), Scratch{});
    for (Scratch& s : scratch_) {
        for (auto& b : s.block) b.assign(blockSize, 0.0f);
        s.ring.assign(ring, 0.0f);
        s.fixed.assign(fixed, 0);
    }
    for (Image<float>* p : {&stageOut_[0], &stageOut_[1], &rowPass_, &re_, &im_, &gauss_, &strength_}) p->reset(W, H);
    sector_.reset(W, H);
    class_.reset(W, H);
    if (chain.complexOutput()) complex_.reset(W, H);
    stack_.assign(static_cast<std::size_t>(W) * H, 0);
    return {};
}

std::vector<std::string> CpuBackend::kernels() const {
    std::vector<std::string> names = kernels_;
    if (fixed8_) names[0] += fixedAvx2_ ? ", 8-bit output: blur.direct.fixed-q15.avx2" : ", 8-bit output: blur.direct.fixed-q15";
    return names;
}

std::string CpuBackend::explain() const {
    std::string s = std::string("cpu: ") + simdPathName() + ", " + std::to_string(threads()) + " threads\n";
    const std::vector<std::string> names = kernels();
    for (std::size_t i = 0; i < names.size(); ++i)
        s += "  stage " + std::to_string(i + 1) + " " + stageName(chain_.stages[i]) + ": " + names[i] + "\n";
    return s;
}

int CpuBackend::bandRows() const {
    const int bands = 2 * pool_.size();
    return std::max(kLanes, (format_.height + bands - 1) / bands);
}

bool CpuBackend::banded(const BlurPlan& plan) const { return bandedRadius(static_cast<int>(plan.taps.size()) - 1); }

bool CpuBackend::bandedRadius(int radius) const { return 8 * radius <= bandRows(); }

bool CpuBackend::rowWise(const GaborOrientationPlan& o) const {
    return !o.across.empty() && bandedRadius(static_cast<int>(o.across.size()) - 1);
}

template <class Src>
void CpuBackend::blur(const BlurPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
    if (plan.method == BlurMethod::Direct && banded(plan)) {
        const int rows = bandRows();
        pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
            FirBand<Src> band(in, plan.taps, scratch_[worker].ring.data());
            for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.row(y));
        });
        return;
    }
    if (plan.method == BlurMethod::Direct) {
        // Row-wise schedule: no transposes for an FIR (the block engine serves the recursions).
        pool_.parallelFor(groups(H), [&](int g, int worker) {
            firRows(in, rowPass_.view(), g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps,
                    scratch_[worker].block[0].data());
        });
        pool_.parallelFor(groups(H), [&](int g, int) {
            firColumns(ImageView<const float>(rowPass_.view()), out, g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps);
        });
        return;
    }
    // Boxes and recursive run on the block engine. For boxes the block holds `pad` replicated
    // samples before and after the line (replicate borders are defined on the padded copy,
    // ALGORITHMS.md 0). filter() returns where the result's first sample lies.
    const int pad = plan.pad;
    auto filter = [&plan, pad](Scratch& s, int n) -> float* {
        float* a = s.block[0].data();
        if (plan.method != BlurMethod::Boxes) {
            recursiveBlock(a, n, plan.recursive);
            return a;
        }
        float* b = s.block[1].data();
        replicateEnds(a, n, pad);
        for (int p = 0; p < kBoxPasses; ++p) {
            boxBlock(a, b, n + 2 * pad, plan.box);
            std::swap(a, b);
        }
        return a + static_cast<std::ptrdiff_t>(pad) * kLanes;
    };
    const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(pad) * kLanes;
    pool_.parallelFor(groups(H), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherRows(in, g * kLanes, s.block[0].data() + offset);
        scatterRows(filter(s, W), g * kLanes, rowPass_.view());
    });
    pool_.parallelFor(groups(W), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherColumns(ImageView<const float>(rowPass_.view()), g * kLanes, s.block[0].data() + offset);
        scatterColumns(filter(s, H), g * kLanes, out);
    });
}

void CpuBackend::blur8(ImageView<const std::uint8_t> in, const Output8& out) {
    // Bands of at least 4R rows: each band filters its 2R halo rows horizontally too.
    const int H = in.height, rows = std::max(bandRows(), 4 * (static_cast<int>(fixedTaps_.size()) - 1));
    pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
        FixedBand band(in, fixedTaps_, scratch_[worker].fixed.data(), fixedAvx2_);
        for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.data + y * out.stride, out.step);
    });
}

template <class Src>
void CpuBackend::gaborRows(const GaborPlan& plan, const GaborOrientationPlan& o, bool first, ImageView<const Src> in,
                           ImageView<float> out) {
    const int W = in.width, H = in.height, rows = bandRows();
    pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
        Scratch& s = scratch_[worker];
        GaborBand<Src> band(in, o.along, o.across, o.alongX, s.ring.data());
        float *re = s.block[0].data(), *im = s.block[1].data(), *m = s.block[2].data();
        for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) {
            band.rowInto(y, re, im);
            float* dst = out.row(y);
            switch (plan.sink) {
            case GaborSink::Real: std::copy(re, re + W, dst); break;
            case GaborSink::Imaginary: std::copy(im, im + W, dst); break;
            case GaborSink::Phase:
                for (int x = 0; x < W; ++x) dst[x] = std::atan2(im[x], re[x]);
                break;
            case GaborSink::Complex:
                std::copy(re, re + W, re_.row(y));
                std::copy(im, im + W, im_.row(y));
                magnitudeRow(re, im, dst, W);
                break;
            case GaborSink::Magnitude: magnitudeRow(re, im, dst, W); break;
            case GaborSink::MaxMagnitude:
            case GaborSink::MaxEnergy: {
                magnitudeRow(re, im, m, W);
                std::uint8_t* sec = sector_.row(y);
                for (int x = 0; x < W; ++x)
                    if (first || clearlyGreater(m[x], dst[x])) {
                        dst[x] = m[x];
                        if (plan.sink == GaborSink::MaxEnergy) sec[x] = o.sector;
                    }
                break;
            }
            }
        }
    });
}

template <class Src>
void CpuBackend::gabor(const GaborPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
    // Row-wise orientations remove the DC in their taps; the others subtract a blurred plane.
    if (plan.removeDc && !std::all_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); }))
        blur(plan.dcBlur, in, gauss_.view());
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        if (rowWise(o)) {
            gaborRows(plan, o, k == 0, in, out);
            continue;
        }
        pool_.parallelFor(groups(H), [&](int g, int worker) {
            Scratch& s = scratch_[worker];
            float* x = s.block[0].data();
            gatherRows(in, g * kLanes, x);
            float *re = x, *im = s.block[1].data();
            if (plan.recursive) {
                recursiveComplexBlock(re, im, W, o.x, true);
            } else {
                re = s.block[2].data();
                firGaborRealBlock(x, re, im, W, o.tx);
            }
            scatterRows(re, g * kLanes, re_.view());
            scatterRows(im, g * kLanes, im_.view());
        });
        pool_.parallelFor(groups(W), [&](int g, int worker) {
            Scratch& s = scratch_[worker];
            const int c0 = g * kLanes;
            float *re = s.block[0].data(), *im = s.block[1].data();
            gatherColumns(ImageView<const float>(re_.view()), c0, re);
            gatherColumns(ImageView<const float>(im_.view()), c0, im);
            if (plan.recursive) {
                recursiveComplexBlock(re, im, H, o.y, false);
            } else {
                float *r2 = s.block[2].data(), *i2 = s.block[3].data();
                firGaborComplexBlock(re, im, r2, i2, H, o.ty);
                re = r2;
                im = i2;
            }
            if (plan.removeDc) {
                float* gsum = s.block[4].data();
                gatherColumns(ImageView<const float>(gauss_.view()), c0, gsum);
                for (int i = 0; i < H * kLanes; i += 4)
                    vst1q_f32(re + i, vmlsq_n_f32(vld1q_f32(re + i), vld1q_f32(gsum + i), o.dcGain));
            }
            float* result = s.block[4].data();
            switch (plan.sink) {
            case GaborSink::Real: scatterColumns(re, c0, out); return;
            case GaborSink::Imaginary: scatterColumns(im, c0, out); return;
            case GaborSink::Phase:
                for (int i = 0; i < H * kLanes; ++i) result[i] = std::atan2(im[i], re[i]);
                scatterColumns(result, c0, out);
                return;
            case GaborSink::Complex:
                scatterColumns(re, c0, re_.view());
                scatterColumns(im, c0, im_.view());
                magnitudeBlock(re, im, result, H);
                scatterColumns(result, c0, out);
                return;
            case GaborSink::Magnitude:
                magnitudeBlock(re, im, result, H);
                scatterColumns(result, c0, out);
                return;
            case GaborSink::MaxMagnitude:
            case GaborSink::MaxEnergy: break;
            }
            magnitudeBlock(re, im, result, H);
            const int valid = std::min(kLanes, W - c0);
            for (int y = 0; y < H; ++y) {
                float* dst = out.row(y) + c0;
                const float* m = result + static_cast<std::ptrdiff_t>(y) * kLanes;
                std::uint8_t* sec = sector_.row(y) + c0;
                for (int l = 0; l < valid; ++l)
                    if (k == 0 || clearlyGreater(m[l], dst[l])) {
                        dst[l] = m[l];
                        if (plan.sink == GaborSink::MaxEnergy) sec[l] = o.sector;
                    }
            }
        });
    }
}

namespace {

/// Central differences of the smoothed image at x (ALGORITHMS.md 4.1), clamped at the row ends.
inline void gradientAt(const float* up, const float* mid, const float* dn, int W, int x, float* gx, float* gy) {
    *gx = (mid[std::min(x + 1, W - 1)] - mid[std::max(x - 1, 0)]) * 0.5f;
    *gy = (dn[x] - up[x]) * 0.5f;
}

/// The NMS sector of a gradient (kSectorStep).
inline int sectorOf(float gx, float gy) {
    const float ax = std::abs(gx), ay = std::abs(gy);
    return ay <= static_cast<float>(kTan22_5) * ax ? 0 : ay > static_cast<float>(kTan67_5) * ax ? 2 : ((gx > 0) == (gy > 0) ? 1 : 3);
}

/// One row of squared gradient magnitudes.
void squaredMagnitudeRow(const float* up, const float* mid, const float* dn, int W, float* m2) {
    auto scalar = [&](int x) {
        float gx, gy;
        gradientAt(up, mid, dn, W, x, &gx, &gy);
        m2[x] = gx * gx + gy * gy;
    };
    int x = 0;
    if (W > 0) scalar(x++);
    const float32x4_t half = vdupq_n_f32(0.5f);
    for (; x + 4 <= W - 1; x += 4) {
        const float32x4_t gx = vmulq_f32(vsubq_f32(vld1q_f32(mid + x + 1), vld1q_f32(mid + x - 1)), half);
        const float32x4_t gy = vmulq_f32(vsubq_f32(vld1q_f32(dn + x), vld1q_f32(up + x)), half);
        vst1q_f32(m2 + x, vaddq_f32(vmulq_f32(gx, gx), vmulq_f32(gy, gy)));
    }
    for (; x < W; ++x) scalar(x);
}

/// One row of Canny's non-maximum suppression and double threshold (0 none, 1 weak, 2 strong)
/// from the smoothed rows around it (for the gradient's sector) and the squared magnitudes of
/// the rows y - 1, y, y + 1. Squares compare as the magnitudes do: v > b (1 + t) iff
/// v^2 > b^2 (1 + t)^2 for non-negative values, so no square root is taken.
void cannyRow(const float* up, const float* mid, const float* dn, const float* a, const float* m, const float* b, int W,
              float low, float high, std::uint8_t* cls) {
    const float up2 = static_cast<float>((1 + kTieTolerance) * (1 + kTieTolerance));
    const float down2 = static_cast<float>((1 - kTieTolerance) * (1 - kTieTolerance));
    const float low2 = low * low, high2 = high * high;
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
    int x = 0;
    if (W > 0) scalar(x++);
    const float32x4_t half = vdupq_n_f32(0.5f), zero = vdupq_n_f32(0.0f);
    const float t1 = static_cast<float>(kTan22_5), t2 = static_cast<float>(kTan67_5);
    for (; x + 4 <= W - 1; x += 4) {
        // Most pixels lie below the low threshold, where the class is 0 whatever the neighbours.
        const float32x4_t v = vld1q_f32(m + x);
        const uint32x4_t weak = vcgeq_f32(v, vdupq_n_f32(low2));
        if (!anyLane(weak)) {
            std::memset(cls + x, 0, 4);
            continue;
        }
        const float32x4_t gx = vmulq_f32(vsubq_f32(vld1q_f32(mid + x + 1), vld1q_f32(mid + x - 1)), half);
        const float32x4_t gy = vmulq_f32(vsubq_f32(vld1q_f32(dn + x), vld1q_f32(up + x)), half);
        const float32x4_t ax = vabsq_f32(gx), ay = vabsq_f32(gy);
        const uint32x4_t isX = vcleq_f32(ay, vmulq_n_f32(ax, t1));   // sector 0: (x-1, y) / (x+1, y)
        const uint32x4_t isY = vcgtq_f32(ay, vmulq_n_f32(ax, t2));   // sector 2: (x, y-1) / (x, y+1)
        const uint32x4_t diag = vceqq_u32(vcgtq_f32(gx, zero), vcgtq_f32(gy, zero));
        // diag: sector 1, (x-1, y-1) / (x+1, y+1); otherwise sector 3, (x+1, y-1) / (x-1, y+1)
        float32x4_t before = vbslq_f32(diag, vld1q_f32(a + x - 1), vld1q_f32(a + x + 1));
        float32x4_t after = vbslq_f32(diag, vld1q_f32(b + x + 1), vld1q_f32(b + x - 1));
        before = vbslq_f32(isY, vld1q_f32(a + x), before);
        after = vbslq_f32(isY, vld1q_f32(b + x), after);
        before = vbslq_f32(isX, vld1q_f32(m + x - 1), before);
        after = vbslq_f32(isX, vld1q_f32(m + x + 1), after);
        const uint32x4_t isMax =
            vandq_u32(vcgtq_f32(v, vmulq_n_f32(before, up2)), vcgeq_f32(v, vmulq_n_f32(after, down2)));
        const uint32x4_t strong = vcgeq_f32(v, vdupq_n_f32(high2));
        uint32x4_t c = vbslq_u32(strong, vdupq_n_u32(2), vandq_u32(weak, vdupq_n_u32(1)));
        c = vandq_u32(c, isMax);
        const uint8x8_t c8 = vmovn_u16(vcombine_u16(vmovn_u32(c), vmovn_u32(c)));
        const std::uint32_t packed = vget_lane_u32(vreinterpret_u32_u8(c8), 0);
        std::memcpy(cls + x, &packed, 4);
    }
    for (; x < W; ++x) scalar(x);
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
        float32x4_t before = vbslq_f32(s2, vld1q_f32(a + x), vld1q_f32(a + x + 1));
        before = vbslq_f32(s1, vld1q_f32(a + x - 1), before);
        before = vbslq_f32(s0, vld1q_f32(m + x - 1), before);
        float32x4_t after = vbslq_f32(s2, vld1q_f32(b + x), vld1q_f32(b + x - 1));
        after = vbslq_f32(s1, vld1q_f32(b + x + 1), after);
        after = vbslq_f32(s0, vld1q_f32(m + x + 1), after);
        const uint32x4_t isMax =
            vandq_u32(vcgtq_f32(v, vmulq_n_f32(before, up)), vcgeq_f32(v, vmulq_n_f32(after, down)));
        const uint32x4_t strong = vcgeq_f32(v, vdupq_n_f32(high));
        const uint32x4_t weak = vcgeq_f32(v, vdupq_n_f32(low));
        uint32x4_t c = vbslq_u32(strong, vdupq_n_u32(2), vandq_u32(weak, vdupq_n_u32(1)));
        c = vandq_u32(c, isMax);
        const uint8x8_t c8 = vmovn_u16(vcombine_u16(vmovn_u32(c), vmovn_u32(c)));
        packed = vget_lane_u32(vreinterpret_u32_u8(c8), 0);
        std::memcpy(cls + x, &packed, 4);
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
            for (; x + 4 <= W; x += 4) vst1q_f32(out + x, sqrtq(vld1q_f32(m2 + x)));
            for (; x < W; ++x) out[x] = std::sqrt(m2[x]);
        }
    }
}

} // namespace

template <class Src>
void CpuBackend::cannyClasses(const BlurPlan& smoothing, ImageView<const Src> in, const EdgeSpec& spec,
                              bool keepStrength) {
    // A banded smoothing runs inside the bands (FirBand into a ring of five smoothed rows), so
    // the smoothed image never goes to memory; any other method smooths the whole plane first.
    const int W = in.width, H = in.height;
    const bool fused = smoothing.method == BlurMethod::Direct && banded(smoothing);
    if (!fused) blur(smoothing, in, gauss_.view());
    const ImageView<const float> plane = gauss_.view();
    const float low = static_cast<float>(spec.lowThreshold), high = static_cast<float>(spec.highThreshold);
    const ImageView<float> strength = keepStrength ? strength_.view() : ImageView<float>();
    const int rows = bandRows();
    pool_.parallelFor((H + rows - 1) / rows, [&](int band, int worker) {
        Scratch& scratch = scratch_[worker];
        const int y0 = band * rows, y1 = std::min(H, y0 + rows);
        float* magnitudes = scratch.block[1].data();
        if (!fused) {
            cannyBand([&](int y) { return plane.row(y); }, W, H, y0, y1, low, high, magnitudes, class_.view(), strength);
            return;
        }
        FirBand<Src> fir(in, smoothing.taps, scratch.ring.data());
        float* rowsOut = scratch.block[2].data();
        int next = std::max(y0 - 2, 0);
        auto smoothed = [&](int y) -> const float* {
            for (; next <= y; ++next) fir.rowInto(next, rowsOut + (next % 5) * static_cast<std::ptrdiff_t>(W));
            return rowsOut + (y % 5) * static_cast<std::ptrdiff_t>(W);
        };
        cannyBand(smoothed, W, H, y0, y1, low, high, magnitudes, class_.view(), strength);
    });
    trace();
}

void CpuBackend::suppressAndTrace(const EdgeSpec& spec) {
    const int W = format_.width, H = format_.height;
    const float low = static_cast<float>(spec.lowThreshold), high = static_cast<float>(spec.highThreshold);
    pool_.parallelFor(groups(H), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(H, (g + 1) * kLanes); ++y)
            suppressRow(strength_.row(std::max(y - 1, 0)), strength_.row(y), strength_.row(std::min(y + 1, H - 1)),
                        sector_.row(y), W, low, high, class_.row(y));
    });
    trace();
}

namespace {

/// Hysteresis's flood: pops pixels (y * W + x, already marked 3) from stack[0, top) and marks
/// their weak or strong 8-neighbours in rows [y0, y1) with 3, pushing them in turn. Each pixel is
/// pushed once, so the stack needs room for the rows' pixels.
void flood(std::uint8_t* c, std::ptrdiff_t stride, int W, int y0, int y1, std::int32_t* stack, std::size_t top) {
    while (top > 0) {
        const int p = stack[--top];
        const int px = p % W, py = p / W;
        for (int ny = std::max(py - 1, y0); ny <= std::min(py + 1, y1 - 1); ++ny)
            for (int nx = std::max(px - 1, 0); nx <= std::min(px + 1, W - 1); ++nx) {
                std::uint8_t& n = c[ny * stride + nx];
                if (n == 1 || n == 2) {
                    n = 3;
                    stack[top++] = ny * W + nx;
                }
            }
    }
}

} // namespace

void CpuBackend::trace() {
    const int W = format_.width, H = format_.height;
    const std::ptrdiff_t stride = class_.stride();
    std::uint8_t* c = class_.data();
    std::int32_t* stack = stack_.data();
    // Hysteresis marks every weak pixel 8-connected to a strong one; the set does not depend on
    // the order of the floods. First each band of rows floods from its strong seeds within its
    // own rows, in parallel, on the part of the stack at its rows' offset (one entry per pixel).
    // Seeds are sparse, so rows are scanned with memchr (vectorised by the C library).
    const int rows = bandRows(), bands = (H + rows - 1) / rows;
    pool_.parallelFor(bands, [&](int band, int) {
        const int y0 = band * rows, y1 = std::min(H, y0 + rows);
        std::int32_t* own = stack + static_cast<std::ptrdiff_t>(y0) * W;
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* row = c + y * stride;
            for (auto* seed = static_cast<std::uint8_t*>(std::memchr(row, 2, W)); seed;
                 seed = static_cast<std::uint8_t*>(std::memchr(seed + 1, 2, W - (seed + 1 - row)))) {
                *seed = 3;
                own[0] = y * W + static_cast<int>(seed - row);
                flood(c, stride, W, y0, y1, own, 1);
                if (seed + 1 >= row + W) break;
            }
        }
    });
    // Then what crosses a band's edge: an edge pixel beside a weak one in the next band's first
    // row or the previous band's last, flooded through the whole frame (every strong pixel is an
    // edge by now, so only weak ones remain).
    for (int band = 1; band < bands; ++band) {
        const int y = band * rows;
        std::uint8_t *above = c + (y - 1) * stride, *below = c + y * stride;
        std::size_t top = 0;
        for (int x = 0; x < W; ++x)
            for (auto [from, to, ty] : {std::tuple(above, below, y), std::tuple(below, above, y - 1)})
                if (from[x] == 3)
                    for (int nx = std::max(x - 1, 0); nx <= std::min(x + 1, W - 1); ++nx)
                        if (to[nx] == 1) {
                            to[nx] = 3;
                            stack[top++] = ty * W + nx;
                        }
        flood(c, stride, W, 0, H, stack, top);
    }
}

template <class Src>
void CpuBackend::edgeClasses(const StagePlan& plan, const EdgeSpec& spec, ImageView<const Src> in) {
    if (spec.method == EdgeMethod::Canny) {
        cannyClasses(plan.blur, in, spec, spec.output == EdgeOutput::Strength);
    } else {
        gabor(plan.gabor, in, strength_.view());
        suppressAndTrace(spec);
    }
}

template <class Src>
void CpuBackend::writeEdges(const EdgeSpec& spec, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
    pool_.parallelFor(groups(H), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(H, (g + 1) * kLanes); ++y) {
            const std::uint8_t* cls = class_.row(y);
            float* o = out.row(y);
            switch (spec.output) {
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
                for (int x = 0; x < W; ++x) o[x] = cls[x] == 3 ? 1.0f : unitValue(in.row(y)[x]);
                break;
            }
        }
    });
}

template <class Src>
void CpuBackend::writeEdges8(const EdgeSpec& spec, ImageView<const Src> in, const Output8& out) {
    const int W = in.width, H = in.height;
    const std::uint8_t edge = encode8(1.0f, out.encoding), none = encode8(0.0f, out.encoding);
    // Overlay from 8-bit input: the code of each input value, once per frame.
    std::uint8_t lut[256];
    if constexpr (std::is_same_v<Src, std::uint8_t>)
        if (spec.output == EdgeOutput::Overlay)
            for (int v = 0; v < 256; ++v) lut[v] = encode8(unitValue(static_cast<std::uint8_t>(v)), out.encoding);
    pool_.parallelFor(groups(H), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(H, (g + 1) * kLanes); ++y) {
            const std::uint8_t* cls = class_.row(y);
            std::uint8_t* o = out.data + y * out.stride;
            if (spec.output == EdgeOutput::Overlay) {
                const Src* v = in.row(y);
                for (int x = 0; x < W; ++x) {
                    std::uint8_t code;
                    if constexpr (std::is_same_v<Src, std::uint8_t>) code = lut[v[x]];
                    else code = encode8(unitValue(v[x]), out.encoding);
                    o[x * out.step] = cls[x] == 3 ? edge : code;
                }
                continue;
            }
            int x = 0;
            if (out.step == 1)
                for (; x + 16 <= W; x += 16)
                    vst1q_u8(o + x, vbslq_u8(vceqq_u8(vld1q_u8(cls + x), vdupq_n_u8(3)), vdupq_n_u8(edge), vdupq_n_u8(none)));
            for (; x < W; ++x) o[x * out.step] = cls[x] == 3 ? edge : none;
        }
    });
}

template <class Src>
void CpuBackend::runStage(std::size_t index, ImageView<const Src> in, ImageView<float> out) {
    const Stage& stage = chain_.stages[index];
    const StagePlan& plan = plans_[index];
    if (std::holds_alternative<BlurSpec>(stage)) {
        blur(plan.blur, in, out);
    } else if (std::holds_alternative<GaborSpec>(stage)) {
        gabor(plan.gabor, in, out);
    } else if (const auto* e = std::get_if<EdgeSpec>(&stage)) {
        edgeClasses(plan, *e, in);
        writeEdges(*e, in, out);
    }
}

template <class F>
void CpuBackend::runStagesBefore(std::size_t count, ImageView<const std::uint8_t> luma, F&& f) {
    for (std::size_t i = 0; i < count; ++i) {
        ImageView<float> dst = stageOut_[i % 2].view();
        if (i == 0) runStage(i, luma, dst);
        else runStage(i, ImageView<const float>(stageOut_[(i - 1) % 2].view()), dst);
    }
    if (count == 0) f(luma);
    else f(ImageView<const float>(stageOut_[(count - 1) % 2].view()));
}

Status CpuBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    const std::size_t last = chain_.stages.size() - 1;
    ImageView<float> dst = stageOut_[last % 2].view();
    runStagesBefore(last, luma, [&](auto in) { runStage(last, in, dst); });
    *out = ChainOutput{};
    out->real = dst;
    if (chain_.complexOutput()) {
        for (int y = 0; y < format_.height; ++y)
            for (int x = 0; x < format_.width; ++x) complex_.at(x, y) = Complex32(re_.at(x, y), im_.at(x, y));
        out->complex = true;
        out->complexPlane = complex_.view();
    }
    return {};
}

Status CpuBackend::process8(ImageView<const std::uint8_t> luma, const Output8& out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    const std::size_t last = chain_.stages.size() - 1;
    if (const auto* e = std::get_if<EdgeSpec>(&chain_.stages[last]); e && e->output != EdgeOutput::Strength) {
        runStagesBefore(last, luma, [&](auto in) {
            edgeClasses(plans_[last], *e, in);
            writeEdges8(*e, in, out);
        });
        return {};
    }
    if (fixed8_ && out.encoding.scale == 1.0 && out.encoding.offset == 0.0) {
        blur8(luma, out);
        return {};
    }
    ChainOutput r;
    if (Status s = process(luma, &r); !s) return s;
    const int W = format_.width, H = format_.height;
    pool_.parallelFor(groups(H), [&](int g, int) {
        const int y0 = g * kLanes, y1 = std::min(H, y0 + kLanes);
        encodePlane8(ImageView<const float>(r.real.row(y0), W, y1 - y0, r.real.stride), out.encoding,
                     out.data + y0 * out.stride, out.stride, out.step);
    });
    return {};
}

} // namespace striate::cpu
