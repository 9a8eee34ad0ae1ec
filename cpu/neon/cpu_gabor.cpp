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
                std::uint8_t* sec = plan.sink == GaborSink::MaxEnergy ? sector_.row(y) : nullptr;  // a bank of edges only
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
    // Row-wise orientations remove the DC in their taps; the others subtract a blurred plane. A
    // recursive one is made in column strips, as the vertical passes read it.
    const bool gaussStrips = plan.dcBlur.method == BlurMethod::Recursive && plan.sink != GaborSink::Complex;
    if (plan.removeDc && !std::all_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); })) {
        if (gaussStrips) {
            pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
                float* b = scratch_[worker].block[0].data();
                gatherRows(in, g * kLanes, b);
                recursiveBlock(b, W, plan.dcBlur.recursive);
                toStrips(b, g * kLanes, gauss_);
            });
            pool_.parallelFor(laneGroups(W), [&](int g, int) { recursiveBlock(strip(gauss_, g), H, plan.dcBlur.recursive); });
        } else {
            blur(plan.dcBlur, in, gauss_.view());
        }
    }
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
        const bool strips = plan.sink != GaborSink::Complex;
        pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
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
            if (strips) {
                toStrips(re, g * kLanes, re_);
                toStrips(im, g * kLanes, im_);
            } else {
                scatterRows(re, g * kLanes, re_.view());
                scatterRows(im, g * kLanes, im_.view());
            }
        });
        pool_.parallelFor(laneGroups(W), [&](int g, int worker) {
            columnsOfBank(plan, k == 0, o, mirror, g, strips, gaussStrips, scratch_[worker], out);
        });
        if (mirror) ++k;
    }
}

void CpuBackend::columnsOfBank(const GaborPlan& plan, bool first, const GaborOrientationPlan& o,
                               const GaborOrientationPlan* mirror, int group, bool strips, bool gaussStrips,
                               Scratch& s, ImageView<float> out) {
    const int H = out.height, c0 = group * kLanes;
    float *re = s.block[0].data(), *im = s.block[1].data();
    if (strips) {
        re = strip(re_, group);
        im = strip(im_, group);
    } else {
        gatherColumns(ImageView<const float>(re_.view()), c0, re);
        gatherColumns(ImageView<const float>(im_.view()), c0, im);
    }
    float* gsum = s.block[4].data();
    if (gaussStrips) gsum = strip(gauss_, group);
    else if (plan.removeDc) gatherColumns(ImageView<const float>(gauss_.view()), c0, gsum);
    // The vertical pass of one orientation from the horizontal pass in (re, im): where its result lies.
    auto vertical = [&](const GaborOrientationPlan& v, float* r, float* i, float* r2, float* i2) -> std::pair<float*, float*> {
        if (plan.recursive) {
            recursiveComplexBlock(r, i, H, v.y, false);
            return {r, i};
        }
        firGaborComplexBlock(r, i, r2, i2, H, v.ty);
        return {r2, i2};
    };
    const float* dc = plan.removeDc ? gsum : nullptr;
    const bool bankSink = plan.sink == GaborSink::MaxMagnitude || plan.sink == GaborSink::MaxEnergy;
    if (!bankSink) {
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
        case GaborSink::MaxEnergy: return;  // bankSink
        }
    }
    const bool sectors = plan.sink == GaborSink::MaxEnergy;
    if (!mirror) {
        const auto [r, i] = vertical(o, re, im, s.block[2].data(), s.block[3].data());
        bankTail({r, i, o.dcGain, o.sector}, nullptr, dc, first, sectors, c0, out);
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
        const Response second{r2, i2, mirror->dcGain, mirror->sector};
        bankTail({r, i, o.dcGain, o.sector}, &second, dc, first, sectors, c0, out);
        return;
    }
    {
        const auto [r, i] = vertical(o, re, im, mr, mi);
        bankTail({r, i, o.dcGain, o.sector}, nullptr, dc, first, sectors, c0, out);
    }
    for (int j = 0; j < H * kLanes; j += 4) vst1q_f32(im + j, vnegq_f32(vld1q_f32(im + j)));
    const auto [r, i] = vertical(*mirror, re, im, mr, mi);
    bankTail({r, i, mirror->dcGain, mirror->sector}, nullptr, dc, false, sectors, c0, out);
}

float* CpuBackend::strip(Image<float>& plane, int group) {
    return plane.data() + static_cast<std::ptrdiff_t>(group) * kLanes * plane.height();
}

void CpuBackend::toStrips(float* block, int firstRow, Image<float>& plane) {
    // Plane rows are padded to 16 floats, so the strips fill exactly its storage; the lanes past
    // the last column repeat it, as gatherColumns does.
    const int W = plane.width(), H = plane.height();
    const int groups = laneGroups(W);
    for (int x = W; x < groups * kLanes; ++x)
        std::copy(block::at(block, W - 1), block::at(block, W - 1) + kLanes, block::at(block, x));
    for (int g = 0; g < groups; ++g)
        scatterRows(block::at(block, g * kLanes), firstRow, ImageView<float>{strip(plane, g), kLanes, H, kLanes});
}

void CpuBackend::bankTail(const Response& a, const Response* b, const float* dc, bool first, bool sectors, int c0,
                          ImageView<float> out) {
    const int valid = std::min(kLanes, out.width - c0);
    const float up = static_cast<float>(1 + kTieTolerance);  // clearlyGreater's factor
    // |re - K dc, im| of one response at block offset j: magnitudeBlock's arithmetic.
    auto magnitude = [dc](const Response& z, std::ptrdiff_t j) {
        float32x4_t r = vld1q_f32(z.re + j);
        if (dc) r = vmlsq_n_f32(r, vld1q_f32(dc + j), z.dcGain);
        const float32x4_t m = vld1q_f32(z.im + j);
        return sqrtq(vaddq_f32(vmulq_f32(r, r), vmulq_f32(m, m)));
    };
    float m[2][kLanes];
    std::uint32_t wins[2][kLanes];
    for (int y = 0; y < out.height; ++y) {
        float* dst = out.row(y) + c0;
        const std::ptrdiff_t j0 = static_cast<std::ptrdiff_t>(y) * kLanes;
        std::uint8_t* sec = sectors ? sector_.row(y) + c0 : nullptr;  // a bank of edges only
        for (int v = 0; v < kLanes; v += 4) {
            vst1q_f32(m[0] + v, magnitude(a, j0 + v));
            if (b) vst1q_f32(m[1] + v, magnitude(*b, j0 + v));
        }
        if (valid < kLanes || first) {
            // The first response initialises the maximum; the mirror's is compared with it.
            for (int l = 0; l < valid; ++l) {
                if (first || clearlyGreater(m[0][l], dst[l])) {
                    dst[l] = m[0][l];
                    if (sec) sec[l] = a.sector;
                }
                if (b && clearlyGreater(m[1][l], dst[l])) {
                    dst[l] = m[1][l];
                    if (sec) sec[l] = b->sector;
                }
            }
            continue;
        }
        for (int v = 0; v < kLanes; v += 4) {
            float32x4_t d = vld1q_f32(dst + v);
            const float32x4_t n0 = vld1q_f32(m[0] + v);
            const uint32x4_t w0 = vcgtq_f32(n0, vmulq_n_f32(d, up));
            d = vbslq_f32(w0, n0, d);
            vst1q_u32(wins[0] + v, w0);
            if (b) {
                const float32x4_t n1 = vld1q_f32(m[1] + v);
                const uint32x4_t w1 = vcgtq_f32(n1, vmulq_n_f32(d, up));
                d = vbslq_f32(w1, n1, d);
                vst1q_u32(wins[1] + v, w1);
            }
            vst1q_f32(dst + v, d);
        }
        if (sec)
            for (int l = 0; l < kLanes; ++l) {
                if (wins[0][l]) sec[l] = a.sector;
                if (b && wins[1][l]) sec[l] = b->sector;
            }
    }
}

// cpu_backend.cpp runs Gabor stages and cpu_edges.cpp the Gabor energy bank through these.
template void CpuBackend::gabor(const GaborPlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::gabor(const GaborPlan&, ImageView<const float>, ImageView<float>);

} // namespace striate::cpu
