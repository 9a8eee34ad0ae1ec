// The cpu backend's Gabor stages: the row-wise schedule (GaborBand) and the block engine, into
// the stage's sink (one orientation's output, a bank's running maximum, an edge bank's sector).
#include <algorithm>
#include <cmath>

#include "cpu/neon/cpu_backend.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

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

void CpuBackend::planes(const GaborStagePlan& plan, Planes* need) const { gaborPlanes(plan.gabor, need); }

void CpuBackend::gaborPlanes(const GaborPlan& g, Planes* need) const {
    const bool allRowWise = std::all_of(g.bank.begin(), g.bank.end(), [&](const auto& o) { return rowWise(o); });
    const bool complex = !allRowWise || sinkTraits(g.sink).complex;
    need->complex |= complex;
    if (complex) need->halves &= g.demodulated && isBankSink(g.sink);
    if (g.removeDc && !allRowWise) {
        need->gauss = true;
        need->rowPass |= !dcInStrips(g) && blurRows(g.dcBlur);
    }
}

std::string CpuBackend::kernelName(const GaborStagePlan& plan) {
    return plan.gabor.recursive ? "gabor.recursive.yvv3-complex" : "gabor.direct.fir-complex";
}

template <class Src>
void CpuBackend::toFloats(const GaborStagePlan& plan, ImageView<const Src> in, ImageView<float> out) {
    gabor(plan.gabor, in, out);
}

template <class Src>
void CpuBackend::toCodes(const GaborStagePlan& plan, ImageView<const Src> in, ImageView<float> floats, const Output8& out) {
    toFloats(plan, in, floats);
    encodeTo(floats, out);
}

template <class Src>
void CpuBackend::gaborRows(const GaborPlan& plan, const GaborOrientationPlan& o, bool first, ImageView<const Src> in,
                           ImageView<float> out) {
    const int W = in.width, H = in.height, rows = bandRows();
    pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
        Scratch& s = scratch_[worker];
        GaborBand<Src> band(in, o.along, o.across, o.alongX, s.ring.data(), avx2_);
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
                // The winner's sector, a bank of edges only: asked once a row, since a byte store
                // may alias the plan (the sink would be read again after each).
                std::uint8_t* const sec = sinkTraits(plan.sink).sector ? sector_.row(y) : nullptr;
                const std::uint8_t sector = o.sector;
                for (int x = 0; x < W; ++x)
                    if (first || clearlyGreater(m[x], dst[x])) {
                        dst[x] = m[x];
                        if (sec) sec[x] = sector;
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
    // Row-wise orientations remove the DC in their taps; the others subtract a blurred plane. A
    // recursive one is made in column strips, as the vertical passes read it.
    const bool gaussStrips = dcInStrips(plan);
    if (plan.removeDc && !std::all_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); })) {
        if (gaussStrips) {
            const auto line = [&plan](float* block, int n) {
                if (plan.demodulated) gaussianBlock(block, n, plan.dcDemod);
                else recursiveBlock(block, n, std::get<RecursiveBlur>(plan.dcBlur.method).cascade);
            };
            pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
                float* b = scratch_[worker].block[0].data();
                gatherRows(in, g * kLanes, b);
                line(b, W);
                toStrips(b, g * kLanes, gauss_, 0, laneGroups(W));
            });
            pool_.parallelFor(laneGroups(W), [&](int g, int) { line(strip(gauss_, g), H); });
        } else {
            blur(plan.dcBlur, in, gauss_.view());
        }
    }
    const bool bankSink = isBankSink(plan.sink);
    // A bank of block-engine orientations keeps squared magnitudes until its last visit.
    const bool squared = bankSink && std::none_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); });
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        if (rowWise(o)) {
            gaborRows(plan, o, k == 0, in, out);
            continue;
        }
        // A mirror (bankOrder) has the conjugate horizontal pass on a real input: one horizontal
        // pass and one visit of the columns serve both.
        const GaborOrientationPlan* mirror =
            k + 1 < plan.bank.size() && plan.bank[k + 1].mirrorsPrevious && !rowWise(plan.bank[k + 1]) ? &plan.bank[k + 1]
                                                                                                      : nullptr;
        // The horizontal pass goes to the planes as column strips (toStrips), which the vertical
        // pass reads in place, unless the planes are the complex output.
        const bool strips = !sinkTraits(plan.sink).complex;
        // A bank's magnitudes need no remodulation: recursive ones run demodulated.
        const bool demod = plan.demodulated && bankSink;
        // No frequency along x (90 degrees: wx = w cos 90 = 1e-17 w): the horizontal pass is real,
        // its imaginary part not made, and the vertical pass takes a real input.
        const bool realX = demod && !mirror && std::abs(o.wx) < kNoFrequency;
        // halfColumns_: the planes hold half the strips; the columns go in two parts, the
        // horizontal pass in two calls (DemodSpan: the second half of a line costs half again).
        const int groups = laneGroups(W), split = halfColumns_ ? (groups + 1) / 2 : groups;
        const bool last = k + (mirror ? 2 : 1) == plan.bank.size();
        for (int part = 0; part < (split < groups ? 2 : 1); ++part) {
            const int g0 = part == 0 ? 0 : split, g1 = part == 0 ? split : groups;
            pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
                Scratch& s = scratch_[worker];
                float* x = s.block[0].data();
                gatherRows(in, g * kLanes, x);
                float *re = x, *im = s.block[1].data();
                if (demod) {
                    const Phases::Axis& ph = phases_.at(&o).x;
                    const DemodSpan span{split * kLanes, g0 > 0,
                                         halfColumns_ ? spanStates_.data() + static_cast<std::ptrdiff_t>(g) * 12 * kLanes : nullptr};
                    const DemodSpan* half = halfColumns_ ? &span : nullptr;
                    if (realX) gaussianBlock(re, W, o.dx, half);
                    else demodulatedBlock(re, im, W, o.dx, ph.cos.data(), ph.sin.data(), true, half);
                } else if (plan.recursive) {
                    recursiveComplexBlock(re, im, W, o.x, true);
                } else {
                    re = s.block[2].data();
                    firGaborRealBlock(x, re, im, W, o.tx);
                }
                if (strips) {
                    toStrips(re, g * kLanes, re_, g0, g1);
                    if (!realX) toStrips(im, g * kLanes, im_, g0, g1);
                } else {
                    scatterRows(re, g * kLanes, re_.view());
                    scatterRows(im, g * kLanes, im_.view());
                }
            });
            pool_.parallelFor(g1 - g0, [&](int j, int worker) {
                columnsOfBank(plan, {k == 0, last, squared, sinkTraits(plan.sink).sector}, o, mirror,
                              {g0 + j, j, strips, gaussStrips, demod, realX}, scratch_[worker], out);
            });
        }
        if (mirror) ++k;
    }
}

void CpuBackend::columnsOfBank(const GaborPlan& plan, const TailStep& step, const GaborOrientationPlan& o,
                               const GaborOrientationPlan* mirror, const Columns& at, Scratch& s, ImageView<float> out) {
    const int H = out.height, c0 = at.group * kLanes;
    float *re = s.block[0].data(), *im = s.block[1].data();
    if (at.strips) {
        re = strip(re_, at.slot);
        im = strip(im_, at.slot);
    } else {
        gatherColumns(ImageView<const float>(re_.view()), c0, re);
        gatherColumns(ImageView<const float>(im_.view()), c0, im);
    }
    float* gsum = s.block[4].data();
    if (at.gaussStrips) gsum = strip(gauss_, at.group);
    else if (plan.removeDc) gatherColumns(ImageView<const float>(gauss_.view()), c0, gsum);
    // The vertical pass of one orientation from the horizontal pass in (re, im): where its result lies.
    auto vertical = [&](const GaborOrientationPlan& v, float* r, float* i, float* r2, float* i2) -> std::pair<float*, float*> {
        if (at.demod) {
            const Phases::Axis& ph = phases_.at(&v).y;
            demodulatedBlock(r, i, H, v.dy, v.wy == 0 ? nullptr : ph.cos.data(), ph.sin.data(), at.realX);
            return {r, i};
        }
        if (plan.recursive) {
            recursiveComplexBlock(r, i, H, v.y, false);
            return {r, i};
        }
        firGaborComplexBlock(r, i, r2, i2, H, v.ty);
        return {r2, i2};
    };
    const float* dc = plan.removeDc ? gsum : nullptr;
    if (!isBankSink(plan.sink)) {
        auto [r, i] = vertical(o, re, im, s.block[2].data(), s.block[3].data());
        if (dc)
            for (int j = 0; j < H * kLanes; j += 4)
                vst1q_f32(r + j, vmlsq_n_f32(vld1q_f32(r + j), vld1q_f32(dc + j), o.dcGain));
        float* result = s.block[plan.recursive ? 2 : 0].data();  // a block the result no longer needs
        switch (plan.sink) {
        case GaborSink::Real: scatterColumns(r, c0, out); return;
        case GaborSink::Imaginary: scatterColumns(i, c0, out); return;
        case GaborSink::Phase:
            for (int j = 0; j < H * kLanes; ++j) result[j] = std::atan2(i[j], r[j]);
            scatterColumns(result, c0, out);
            return;
        case GaborSink::Complex:
            scatterColumns(r, c0, re_.view());
            scatterColumns(i, c0, im_.view());
            magnitudeBlock(r, i, result, H);
            scatterColumns(result, c0, out);
            return;
        case GaborSink::Magnitude:
            magnitudeBlock(r, i, result, H);
            scatterColumns(result, c0, out);
            return;
        case GaborSink::MaxMagnitude:
        case GaborSink::MaxEnergy: return;  // isBankSink
        }
    }
    auto response = [&](const GaborOrientationPlan& v, const float* r, const float* i) {
        return Response{r, i, v.dcGain, v.sector, at.demod ? &phases_.at(&v) : nullptr};
    };
    if (!mirror) {
        const auto [r, i] = vertical(o, re, im, s.block[2].data(), s.block[3].data());
        bankTail(response(o, r, i), nullptr, dc, step, c0, out);
        return;
    }
    // A mirror's horizontal pass is (re, -im). Recursive passes run in place, so the mirror's
    // input is copied first and both tails run at once; direct ones write elsewhere, so the
    // input is conjugated after the first's tail.
    float *mr = s.block[2].data(), *mi = s.block[3].data();
    if (plan.recursive) {
        for (int j = 0; j < H * kLanes; j += 4) {
            vst1q_f32(mr + j, vld1q_f32(re + j));
            vst1q_f32(mi + j, vnegq_f32(vld1q_f32(im + j)));
        }
        const auto [r, i] = vertical(o, re, im, nullptr, nullptr);
        const auto [r2, i2] = vertical(*mirror, mr, mi, nullptr, nullptr);
        const Response second = response(*mirror, r2, i2);
        bankTail(response(o, r, i), &second, dc, step, c0, out);
        return;
    }
    {
        const auto [r, i] = vertical(o, re, im, mr, mi);
        bankTail(response(o, r, i), nullptr, dc, {step.first, false, step.squared, step.sectors}, c0, out);
    }
    for (int j = 0; j < H * kLanes; j += 4) vst1q_f32(im + j, vnegq_f32(vld1q_f32(im + j)));
    const auto [r, i] = vertical(*mirror, re, im, mr, mi);
    bankTail(response(*mirror, r, i), nullptr, dc, {false, step.last, step.squared, step.sectors}, c0, out);
}

float* CpuBackend::strip(Image<float>& plane, int group) {
    return plane.data() + static_cast<std::ptrdiff_t>(group) * kLanes * plane.height();
}

void CpuBackend::toStrips(float* block, int firstRow, Image<float>& plane, int g0, int g1) const {
    // Plane rows are padded to 16 floats, so the strips fill exactly its storage; the lanes past
    // the last column (of the frame, the block's width) repeat it, as gatherColumns does.
    const int W = format_.width, H = plane.height();
    for (int x = W; x < laneGroups(W) * kLanes; ++x)
        std::copy(block::at(block, W - 1), block::at(block, W - 1) + kLanes, block::at(block, x));
    if (firstRow + kLanes > H) {  // the last rows: a partial tile
        for (int g = g0; g < g1; ++g)
            scatterRows(block::at(block, g * kLanes), firstRow, ImageView<float>{strip(plane, g - g0), kLanes, H, kLanes});
        return;
    }
    // Each strip's rows [firstRow, + kLanes) are one contiguous kLanes x kLanes tile, as are
    // the block's columns: a tile transpose, 4 x 4 at a time.
    for (int g = g0; g < g1; ++g) {
        const float* src = block::at(block, g * kLanes);
        float* dst = strip(plane, g - g0) + static_cast<std::ptrdiff_t>(firstRow) * kLanes;
        for (int c = 0; c < kLanes; c += 4)      // columns of the plane: samples of the block
            for (int r = 0; r < kLanes; r += 4) {  // rows of the plane: lanes of the block
                float32x4_t r0 = vld1q_f32(src + (c + 0) * kLanes + r), r1 = vld1q_f32(src + (c + 1) * kLanes + r);
                float32x4_t r2 = vld1q_f32(src + (c + 2) * kLanes + r), r3 = vld1q_f32(src + (c + 3) * kLanes + r);
                transpose4(r0, r1, r2, r3);
                vst1q_f32(dst + (r + 0) * kLanes + c, r0);
                vst1q_f32(dst + (r + 1) * kLanes + c, r1);
                vst1q_f32(dst + (r + 2) * kLanes + c, r2);
                vst1q_f32(dst + (r + 3) * kLanes + c, r3);
            }
    }
}

void CpuBackend::bankTail(const Response& a, const Response* b, const float* dc, const TailStep& step, int c0,
                          ImageView<float> out) {
    const int valid = std::min(kLanes, out.width - c0);
    // clearlyGreater's factor, squared where the maximum is of squared magnitudes.
    const float up = static_cast<float>(step.squared ? (1 + kTieTolerance) * (1 + kTieTolerance) : 1 + kTieTolerance);
    // |re - K dc, im| (or its square) of one response at row y, lanes [l, l + 4): magnitudeBlock's
    // arithmetic; demodulated, |z - K dc e^{-i(wx x + wy y)}|.
    auto magnitude = [dc, c0, &step](const Response& z, int y, int l) {
        const std::ptrdiff_t j = static_cast<std::ptrdiff_t>(y) * kLanes + l;
        float32x4_t r = vld1q_f32(z.re + j), m = vld1q_f32(z.im + j);
        if (dc && z.phases) {
            const float32x4_t ca = vld1q_f32(z.phases->x.cos.data() + c0 + l), sa = vld1q_f32(z.phases->x.sin.data() + c0 + l);
            const float cb = z.phases->y.cos[y], sb = z.phases->y.sin[y];
            const float32x4_t k = vmulq_n_f32(vld1q_f32(dc + j), z.dcGain);
            r = vmlsq_f32(r, k, vmlsq_n_f32(vmulq_n_f32(ca, cb), sa, sb));  // cos(a + b)
            m = vmlaq_f32(m, k, vmlaq_n_f32(vmulq_n_f32(sa, cb), ca, sb));  // sin(a + b)
        } else if (dc) {
            r = vmlsq_n_f32(r, vld1q_f32(dc + j), z.dcGain);
        }
        const float32x4_t square = vaddq_f32(vmulq_f32(r, r), vmulq_f32(m, m));
        return step.squared ? square : sqrtq(square);
    };
    float m[2][kLanes];
    std::uint32_t wins[2][kLanes];
    for (int y = 0; y < out.height; ++y) {
        float* dst = out.row(y) + c0;
        std::uint8_t* sec = step.sectors ? sector_.row(y) + c0 : nullptr;  // a bank of edges only
        for (int v = 0; v < kLanes; v += 4) {
            vst1q_f32(m[0] + v, magnitude(a, y, v));
            if (b) vst1q_f32(m[1] + v, magnitude(*b, y, v));
        }
        if (valid < kLanes) {
            // The first response initialises the maximum; the mirror's is compared with it.
            for (int l = 0; l < valid; ++l) {
                float d = step.first ? 0.0f : dst[l];
                if (step.first || m[0][l] > d * up) {
                    d = m[0][l];
                    if (sec) sec[l] = a.sector;
                }
                if (b && m[1][l] > d * up) {
                    d = m[1][l];
                    if (sec) sec[l] = b->sector;
                }
                dst[l] = step.squared && step.last ? std::sqrt(d) : d;
            }
            continue;
        }
        for (int v = 0; v < kLanes; v += 4) {
            const float32x4_t n0 = vld1q_f32(m[0] + v);
            float32x4_t d = n0;  // first: the maximum is not read
            uint32x4_t w0 = vdupq_n_u32(~0u);
            if (!step.first) {
                d = vld1q_f32(dst + v);
                w0 = vcgtq_f32(n0, vmulq_n_f32(d, up));
                d = vbslq_f32(w0, n0, d);
            }
            vst1q_u32(wins[0] + v, w0);
            if (b) {
                const float32x4_t n1 = vld1q_f32(m[1] + v);
                const uint32x4_t w1 = vcgtq_f32(n1, vmulq_n_f32(d, up));
                d = vbslq_f32(w1, n1, d);
                vst1q_u32(wins[1] + v, w1);
            }
            vst1q_f32(dst + v, step.squared && step.last ? sqrtq(d) : d);
        }
        if (sec)
            for (int l = 0; l < kLanes; ++l) {
                if (wins[0][l]) sec[l] = a.sector;
                if (b && wins[1][l]) sec[l] = b->sector;
            }
    }
}

// cpu_edges.cpp runs the Gabor energy bank through these.
template void CpuBackend::gabor(const GaborPlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::gabor(const GaborPlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toFloats(const GaborStagePlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::toFloats(const GaborStagePlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toCodes(const GaborStagePlan&, ImageView<const std::uint8_t>, ImageView<float>, const Output8&);
template void CpuBackend::toCodes(const GaborStagePlan&, ImageView<const float>, ImageView<float>, const Output8&);

} // namespace striate::cpu
