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
    // Row-wise orientations remove the DC in their taps; the others subtract a blurred plane.
    if (plan.removeDc && !std::all_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); }))
        blur(plan.dcBlur, in, gauss_.view());
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        if (rowWise(o)) {
            gaborRows(plan, o, k == 0, in, out);
            continue;
        }
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
            scatterRows(re, g * kLanes, re_.view());
            scatterRows(im, g * kLanes, im_.view());
        });
        pool_.parallelFor(laneGroups(W), [&](int g, int worker) {
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
                std::uint8_t* sec = plan.sink == GaborSink::MaxEnergy ? sector_.row(y) + c0 : nullptr;  // a bank of edges only
                for (int l = 0; l < valid; ++l)
                    if (k == 0 || clearlyGreater(m[l], dst[l])) {
                        dst[l] = m[l];
                        if (plan.sink == GaborSink::MaxEnergy) sec[l] = o.sector;
                    }
            }
        });
    }
}


// cpu_backend.cpp runs Gabor stages and cpu_edges.cpp the Gabor energy bank through these.
template void CpuBackend::gabor(const GaborPlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::gabor(const GaborPlan&, ImageView<const float>, ImageView<float>);

} // namespace striate::cpu
