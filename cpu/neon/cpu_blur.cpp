// The blur stage on the cpu (docs/algorithms.md 2): a direct blur row-wise or banded (FirBand),
// boxes and the recursion on the block engine, and the 8-bit fixed-point Gaussian. Canny's
// smoothing, a Gabor's DC and a threshold's mean run through blur() too.
#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <variant>

#include "cpu/neon/fixed.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {

void CpuBackend::planes(const BlurStagePlan& plan, Planes* need) const { need->rowPass |= blurRows(plan.blur); }

std::string CpuBackend::kernelName(const BlurStagePlan& plan) {
    return std::visit(Overloaded{[](const DirectBlur&) { return "blur.direct.fir-symmetric"; },
                                 [](const BoxBlur&) { return "blur.boxes.running-sum-x4"; },
                                 [](const RecursiveBlur&) { return "blur.recursive.yvv3"; }},
                      plan.blur.method);
}

template <class Src>
void CpuBackend::toFloats(const BlurStagePlan& plan, ImageView<const Src> in, ImageView<float> out) {
    blur(plan.blur, in, out);
}

template <class Src>
void CpuBackend::toCodes(const BlurStagePlan& plan, ImageView<const Src> in, ImageView<float> floats, const Output8& out) {
    toFloats(plan, in, floats);
    encodeTo(floats, out);
}

bool CpuBackend::banded(const DirectBlur& plan) const { return bandedRadius(plan.radius()); }

const DirectBlur* CpuBackend::bandedDirect(const BlurPlan& plan) const {
    return std::visit(Overloaded{[&](const DirectBlur& d) { return banded(d) ? &d : nullptr; },
                                 [](const auto&) -> const DirectBlur* { return nullptr; }},
                      plan.method);
}

bool CpuBackend::bandedRadius(int radius) const { return 8 * radius <= bandRows(); }

template <class Src>
void CpuBackend::blur(const BlurPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    std::visit(Overloaded{[&](const DirectBlur& d) { directBlur(d, in, out); },
                          [&](const BoxBlur& b) {
                              blockBlur(in, out, b.pad, [&b](Scratch& s, int n) {
                                  float *a = s.block[0].data(), *c = s.block[1].data();
                                  replicateEnds(a, n, b.pad);
                                  for (int p = 0; p < kBoxPasses; ++p) {
                                      boxBlock(a, c, n + 2 * b.pad, b.box);
                                      std::swap(a, c);
                                  }
                                  return a + static_cast<std::ptrdiff_t>(b.pad) * kLanes;
                              });
                          },
                          [&](const RecursiveBlur& r) {
                              blockBlur(in, out, 0, [&r](Scratch& s, int n) {
                                  recursiveBlock(s.block[0].data(), n, r.cascade);
                                  return s.block[0].data();
                              });
                          }},
               plan.method);
}

template <class Src>
void CpuBackend::directBlur(const DirectBlur& plan, ImageView<const Src> in, ImageView<float> out) {
    const int H = in.height;
    if (banded(plan)) {
        const int rows = bandRows();
        pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
            FirBand<Src> band(in, plan.taps, scratch_[worker].ring.data(), avx2_);
            for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.row(y));
        });
        return;
    }
    // Row-wise schedule: no transposes for an FIR (the block engine serves the recursions).
    pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
        firRows(in, rowPass_, g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps, scratch_[worker].block[0].data(),
                avx2_);
    });
    pool_.parallelFor(laneGroups(H), [&](int g, int) {
        firColumns(ImageView<const float>(rowPass_), out, g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps, avx2_);
    });
}

template <class Src, class Filter>
void CpuBackend::blockBlur(ImageView<const Src> in, ImageView<float> out, int pad, const Filter& filter) {
    // Boxes and recursive run on the block engine: rows, then columns, each group of kLanes lines
    // gathered into a block with `pad` samples free before and after it (a box cascade
    // replicates the ends there: replicate borders are defined on the padded copy,
    // docs/algorithms.md 0). filter() returns where the result's first sample lies.
    const int W = in.width, H = in.height;
    const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(pad) * kLanes;
    pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherRows(in, g * kLanes, s.block[0].data() + offset);
        scatterRows(filter(s, W), g * kLanes, rowPass_);
    });
    pool_.parallelFor(laneGroups(W), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherColumns(ImageView<const float>(rowPass_), g * kLanes, s.block[0].data() + offset);
        scatterColumns(filter(s, H), g * kLanes, out);
    });
}

void CpuBackend::blur8(ImageView<const std::uint8_t> in, const Output8& out) {
    // Bands of at least 4R rows: each band filters its 2R halo rows horizontally too.
    const int H = in.height, rows = std::max(bandRows(), 4 * (static_cast<int>(fixedTaps_.size()) - 1));
    pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
        FixedBand band(in, fixedTaps_, scratch_[worker].fixed.data(), avx2_);
        for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.data + y * out.stride, out.step);
    });
}

// cpu_edges.cpp smooths (Canny), cpu_gabor.cpp removes a Gabor's DC and cpu_threshold.cpp takes
// its mean through these.
template void CpuBackend::blur(const BlurPlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::blur(const BlurPlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toFloats(const BlurStagePlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::toFloats(const BlurStagePlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toCodes(const BlurStagePlan&, ImageView<const std::uint8_t>, ImageView<float>, const Output8&);
template void CpuBackend::toCodes(const BlurStagePlan&, ImageView<const float>, ImageView<float>, const Output8&);

} // namespace striate::cpu
