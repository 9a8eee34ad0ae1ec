// The adaptive threshold on the cpu (docs/algorithms.md 4.3): the local mean (blur()), then the
// strict comparison, to floats or straight to 8-bit codes.
#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <type_traits>

#include "cpu/neon/encode.h"
#include "cpu/neon/lines.h"

namespace striate::cpu {
namespace {

/// One row of the threshold's strict comparison (docs/algorithms.md 4.3): `one` where the input
/// exceeds its local mean less `c`, else `zero`, samples `step` apart.
template <class Src, class T>
void thresholdRow(const Src* v, const float* m, int n, float c, T* o, int step, T zero, T one) {
    const float* units = unitValues().data();  // once a row, not once a sample
    const auto unit = [&](const Src* p, int x) {
        if constexpr (std::is_same_v<Src, std::uint8_t>) return units[p[x]];
        else return p[x];
    };
    if (step == 1)
        for (int x = 0; x < n; ++x) o[x] = unit(v, x) > m[x] - c ? one : zero;
    else
        for (int x = 0; x < n; ++x) o[x * step] = unit(v, x) > m[x] - c ? one : zero;
}

/// The comparison over row bands into `out` (rows `stride` apart), which may be the mean's plane:
/// each sample is read before it is written.
template <class Src, class T>
void thresholdRows(ThreadPool& pool, ImageView<const Src> in, ImageView<const float> mean, double offset, T* out,
                   std::ptrdiff_t stride, int step, T zero, T one) {
    const float c = static_cast<float>(offset);
    pool.parallelFor(laneGroups(in.height), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(in.height, (g + 1) * kLanes); ++y)
            thresholdRow(in.row(y), mean.row(y), in.width, c, out + y * stride, step, zero, one);
    });
}

} // namespace

void CpuBackend::planes(const ThresholdStagePlan& plan, Planes* need) const { need->rowPass |= blurRows(plan.mean); }

std::string CpuBackend::kernelName(const ThresholdStagePlan& plan) {
    return std::visit(Overloaded{[](const DirectBlur&) { return "threshold.direct-mean-compare"; },
                                 [](const BoxBlur&) { return "threshold.boxes-mean-compare"; },
                                 [](const RecursiveBlur&) { return "threshold.recursive-mean-compare"; }},
                      plan.mean.method);
}

template <class Src>
void CpuBackend::toFloats(const ThresholdStagePlan& plan, ImageView<const Src> in, ImageView<float> out) {
    // The local mean into the output plane (never the input's), then the comparison in place.
    blur(plan.mean, in, out);
    thresholdRows(pool_, in, ImageView<const float>(out), plan.spec.offset, out.data, out.stride, 1, 0.0f, 1.0f);
}

template <class Src>
void CpuBackend::toCodes(const ThresholdStagePlan& plan, ImageView<const Src> in, ImageView<float> mean, const Output8& out) {
    blur(plan.mean, in, mean);
    thresholdRows(pool_, in, ImageView<const float>(mean), plan.spec.offset, out.data, out.stride, out.step,
                  encode8(0.0f, out.encoding), encode8(1.0f, out.encoding));
}

template void CpuBackend::toFloats(const ThresholdStagePlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::toFloats(const ThresholdStagePlan&, ImageView<const float>, ImageView<float>);
template void CpuBackend::toCodes(const ThresholdStagePlan&, ImageView<const std::uint8_t>, ImageView<float>, const Output8&);
template void CpuBackend::toCodes(const ThresholdStagePlan&, ImageView<const float>, ImageView<float>, const Output8&);

} // namespace striate::cpu
