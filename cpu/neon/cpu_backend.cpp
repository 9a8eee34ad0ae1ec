#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

} // namespace

CpuBackend::CpuBackend(int threads) : pool_(threads > 0 ? threads : defaultThreadCount()) {}
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
    for (const Stage& st : chain.stages) plans_.push_back(planStage(st));
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
    scratch_.assign(pool_.size(), Scratch{});
    for (Scratch& s : scratch_)
        for (auto& b : s.block) b.assign(blockSize, 0.0f);
    for (Image<float>* p : {&stageOut_[0], &stageOut_[1], &rowPass_, &re_, &im_, &gauss_, &strength_}) p->reset(W, H);
    sector_.reset(W, H);
    class_.reset(W, H);
    if (chain.complexOutput()) complex_.reset(W, H);
    stack_.clear();
    stack_.reserve(static_cast<std::size_t>(W) * H);
    return {};
}

std::vector<std::string> CpuBackend::kernels() const {
    std::vector<std::string> names;
    for (const auto& p : plans_) names.push_back(p.kernel);
    return names;
}

template <class Src>
void CpuBackend::blur(const BlurPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
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

template <class Src>
void CpuBackend::gabor(const GaborPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
    if (plan.removeDc) blur(plan.dcBlur, in, gauss_.view());
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
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

/// One row of central-difference gradients: L2 magnitude and NMS sector (ALGORITHMS.md 4.1).
void gradientRow(const float* up, const float* mid, const float* dn, int W, float* m, std::uint8_t* sec) {
    const float t1 = static_cast<float>(kTan22_5), t2 = static_cast<float>(kTan67_5);
    auto scalar = [&](int x) {
        const float gx = (mid[std::min(x + 1, W - 1)] - mid[std::max(x - 1, 0)]) * 0.5f;
        const float gy = (dn[x] - up[x]) * 0.5f;
        m[x] = std::sqrt(gx * gx + gy * gy);
        const float ax = std::abs(gx), ay = std::abs(gy);
        sec[x] = ay <= t1 * ax ? 0 : ay > t2 * ax ? 2 : ((gx > 0) == (gy > 0) ? 1 : 3);
    };
    int x = 0;
    if (W > 0) scalar(x++);
    const float32x4_t half = vdupq_n_f32(0.5f), zero = vdupq_n_f32(0.0f);
    for (; x + 4 <= W - 1; x += 4) {
        const float32x4_t gx = vmulq_f32(vsubq_f32(vld1q_f32(mid + x + 1), vld1q_f32(mid + x - 1)), half);
        const float32x4_t gy = vmulq_f32(vsubq_f32(vld1q_f32(dn + x), vld1q_f32(up + x)), half);
        vst1q_f32(m + x, sqrtq(vaddq_f32(vmulq_f32(gx, gx), vmulq_f32(gy, gy))));
        const float32x4_t ax = vabsq_f32(gx), ay = vabsq_f32(gy);
        const uint32x4_t isX = vcleq_f32(ay, vmulq_n_f32(ax, t1));
        const uint32x4_t isY = vcgtq_f32(ay, vmulq_n_f32(ax, t2));
        const uint32x4_t diag = vceqq_u32(vcgtq_f32(gx, zero), vcgtq_f32(gy, zero));
        uint32x4_t code = vbslq_u32(diag, vdupq_n_u32(1), vdupq_n_u32(3));
        code = vbslq_u32(isY, vdupq_n_u32(2), code);
        code = vbslq_u32(isX, vdupq_n_u32(0), code);
        const uint8x8_t c8 = vmovn_u16(vcombine_u16(vmovn_u32(code), vmovn_u32(code)));
        const std::uint32_t packed = vget_lane_u32(vreinterpret_u32_u8(c8), 0);
        std::memcpy(sec + x, &packed, 4);
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

} // namespace

void CpuBackend::cannyClasses(ImageView<const float> s, const EdgeSpec& spec, bool keepStrength) {
    // Gradient and suppression fused per band: three gradient rows in a per-thread ring, so the
    // strength and sector planes are written only when the strength output needs them.
    const int W = s.width, H = s.height;
    const float low = static_cast<float>(spec.lowThreshold), high = static_cast<float>(spec.highThreshold);
    pool_.parallelFor(groups(H), [&](int g, int worker) {
        Scratch& scratch = scratch_[worker];
        float* m[3] = {scratch.block[1].data(), scratch.block[1].data() + W, scratch.block[1].data() + 2 * W};
        auto* secBase = reinterpret_cast<std::uint8_t*>(scratch.block[2].data());
        std::uint8_t* sec[3] = {secBase, secBase + W, secBase + 2 * W};
        auto gradientOf = [&](int y, int slot) {
            y = std::clamp(y, 0, H - 1);
            gradientRow(s.row(std::max(y - 1, 0)), s.row(y), s.row(std::min(y + 1, H - 1)), W, m[slot], sec[slot]);
        };
        const int y0 = g * kLanes, y1 = std::min(H, y0 + kLanes);
        gradientOf(y0 - 1, 0);
        gradientOf(y0, 1);
        for (int y = y0; y < y1; ++y) {
            const int prev = (y - y0) % 3, cur = (y - y0 + 1) % 3, next = (y - y0 + 2) % 3;
            gradientOf(y + 1, next);
            suppressRow(m[prev], m[cur], m[next], sec[cur], W, low, high, class_.row(y));
            if (keepStrength) std::copy(m[cur], m[cur] + W, strength_.row(y));
        }
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

void CpuBackend::trace() {
    const int W = format_.width, H = format_.height;
    // Hysteresis: flood from each strong seed through weak pixels. Seeds are sparse, so rows are
    // scanned with memchr (vectorised by the C library) rather than pixel by pixel.
    const std::ptrdiff_t stride = class_.stride();
    std::uint8_t* c = class_.data();
    for (int y = 0; y < H; ++y) {
        std::uint8_t* row = c + y * stride;
        for (auto* seed = static_cast<std::uint8_t*>(std::memchr(row, 2, W)); seed;
             seed = static_cast<std::uint8_t*>(std::memchr(seed + 1, 2, W - (seed + 1 - row)))) {
            *seed = 3;
            stack_.push_back(y * W + static_cast<int>(seed - row));
            while (!stack_.empty()) {
                const int p = stack_.back();
                stack_.pop_back();
                const int px = p % W, py = p / W;
                for (int ny = std::max(py - 1, 0); ny <= std::min(py + 1, H - 1); ++ny)
                    for (int nx = std::max(px - 1, 0); nx <= std::min(px + 1, W - 1); ++nx) {
                        std::uint8_t& n = c[ny * stride + nx];
                        if (n == 1 || n == 2) {
                            n = 3;
                            stack_.push_back(ny * W + nx);
                        }
                    }
            }
            if (seed + 1 >= row + W) break;
        }
    }
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
        if (e->method == EdgeMethod::Canny) {
            blur(plan.blur, in, gauss_.view());
            cannyClasses(gauss_.view(), *e, e->output == EdgeOutput::Strength);
        } else {
            gabor(plan.gabor, in, strength_.view());
            suppressAndTrace(*e);
        }
        const int W = in.width, H = in.height;
        pool_.parallelFor(groups(H), [&](int g, int) {
            for (int y = g * kLanes; y < std::min(H, (g + 1) * kLanes); ++y) {
                const std::uint8_t* cls = class_.row(y);
                float* o = out.row(y);
                switch (e->output) {
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
}

Status CpuBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    for (std::size_t i = 0; i < chain_.stages.size(); ++i) {
        ImageView<float> dst = stageOut_[i % 2].view();
        if (i == 0) runStage(i, luma, dst);
        else runStage(i, ImageView<const float>(stageOut_[(i - 1) % 2].view()), dst);
    }
    *out = ChainOutput{};
    out->real = stageOut_[(chain_.stages.size() - 1) % 2].view();
    if (chain_.complexOutput()) {
        for (int y = 0; y < format_.height; ++y)
            for (int x = 0; x < format_.width; ++x) complex_.at(x, y) = Complex32(re_.at(x, y), im_.at(x, y));
        out->complex = true;
        out->complexPlane = complex_.view();
    }
    return {};
}

} // namespace striate::cpu
