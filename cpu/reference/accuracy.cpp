#include "cpu/reference/accuracy.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <variant>

#include "cpu/reference/reference.h"

namespace striate::reference {
namespace {

/// The near-ties packed planes may decide as ties, in strength units (a unit input's gradient or
/// Gabor energy): their suppression ties strengths within 8 codes of the plane's bound (Canny's
/// 0.71: 8.6e-5; a Gabor bank's about 1.1: 1.3e-4), and a code or two of rounding comes on top.
constexpr double kPackedTieSlack = 2e-4;

/// What the last stage's output is compared as, with the spec the measure needs.
enum class Measure { Values, Phase, EdgeMap, Threshold };
struct Measured {
    Measure measure = Measure::Values;
    GaborSpec phase;          ///< Phase: the stage, whose magnitude weighs the arc
    ThresholdSpec threshold;  ///< Threshold: the stage, whose margins excuse a pixel
};

Measured measureOf(const Stage& last) {
    return std::visit(Overloaded{[](const BlurSpec&) { return Measured{}; },
                                 [](const GaborSpec& g) {
                                     switch (g.output) {
                                     case GaborOutput::Phase: return Measured{Measure::Phase, g, {}};
                                     case GaborOutput::Magnitude:
                                     case GaborOutput::Real:
                                     case GaborOutput::Imaginary:
                                     case GaborOutput::Complex: return Measured{};
                                     }
                                     return Measured{};
                                 },
                                 [](const EdgeSpec& e) { return e.tracesEdges() ? Measured{Measure::EdgeMap, {}, {}} : Measured{}; },
                                 [](const ThresholdSpec& t) { return Measured{Measure::Threshold, {}, t}; }},
                      last);
}

/// True where every stage is a Gaussian blur (the tighter budget): errors of any other stage
/// carry through the rest of the chain.
bool onlyBlurs(const Chain& chain) {
    return std::all_of(chain.stages.begin(), chain.stages.end(), [](const Stage& s) {
        return std::visit(Overloaded{[](const BlurSpec&) { return true; }, [](const auto&) { return false; }}, s);
    });
}

/// The reference's real output of `chain` on `input`.
Plane referenceOf(const Chain& chain, ImageView<const std::uint8_t> input) {
    return runChain(fromU8(input), chain, nullptr);
}

} // namespace

Accuracy accuracyOf(const Chain& chain, ImageView<const std::uint8_t> input, const ChainOutput& reference,
                    const ChainOutput& out, const Producer& producer) {
    Accuracy a;
    const int w = reference.real.width, h = reference.real.height;
    const double n = double(w) * h;
    const Measured measured = measureOf(chain.stages.back());
    const Measure measure = measured.measure;
    if (measure == Measure::EdgeMap) {
        // The share of pixels that differ: identical on synthetic scenes; on photos 99.99% (cpu)
        // and 99.9% (GLES float planes); packed planes 99.5%; a golden 99.99% (a strength within
        // rounding of a threshold may fall either way). On frames of a few hundred pixels a share
        // is less than a pixel: the budget is then at least one pixel (a golden), three (packed).
        // Packed planes may also decide near-ties as their departure does (docs/algorithms.md 5:
        // strengths within a few codes tied): a pixel counts where it differs from the reference
        // both as it is and under that departure (kPackedTieSlack), hysteresis run on each.
        Plane tied;
        if (producer.packed) {
            Chain before = chain;
            before.stages.pop_back();
            tied = edges(before.stages.empty() ? fromU8(input) : referenceOf(before, input),
                         std::get<EdgeSpec>(chain.stages.back()), kPackedTieSlack);
        }
        int differ = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float v = out.real.at(x, y);
                differ += reference.real.at(x, y) != v && !(producer.packed && static_cast<float>(tied.at(x, y)) == v);
            }
        a.error = differ / n;
        a.budget = producer.golden ? std::max(1e-4, 1 / n)
                   : producer.packed ? std::max(0.005, 3 / n)
                   : !producer.photo ? 0.0
                   : producer.gpu    ? 1e-3
                                     : 1e-4;
        a.pass = a.error <= a.budget;
        return a;
    }
    if (measure == Measure::Threshold) {
        // Every backend and path: identical except where the stage's input lies within one code
        // of its threshold, |I - t| <= 1/255 (docs/algorithms.md 4.3).
        const ThresholdSpec& spec = measured.threshold;
        Chain before = chain;
        before.stages.pop_back();
        const Plane in = before.stages.empty() ? fromU8(input) : referenceOf(before, input);
        const Plane mean = blur(in, spec.mean());
        int beyond = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (reference.real.at(x, y) != out.real.at(x, y))
                    beyond += std::abs(in.at(x, y) - (mean.at(x, y) - spec.offset)) > 1.0 / 255;
        a.error = beyond;
        a.budget = 0;
        a.pass = beyond == 0;
        return a;
    }
    // docs/algorithms.md 8: cpu 1e-5; GLES float planes blur 2e-4, the rest 5e-4; packed 8-bit 1/255,
    // 2/255; a golden 1e-5 (the reference on two machines: libm and compilers differ in the last
    // bits).
    const bool blurs = onlyBlurs(chain);
    a.budget = producer.golden || !producer.gpu ? 1e-5 : producer.packed ? (blurs ? 1.0 : 2.0) / 255 : blurs ? 2e-4 : 5e-4;
    Plane magnitude;
    if (measure == Measure::Phase) {
        // A phase is only as defined as its magnitude: the arc across z counts.
        Chain m = chain;
        GaborSpec g = measured.phase;
        g.output = GaborOutput::Magnitude;
        m.stages.back() = g;
        magnitude = referenceOf(m, input);
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double v = std::abs(double(reference.real.at(x, y)) - double(out.real.at(x, y)));
            if (measure == Measure::Phase) v = std::min(v, 2 * std::numbers::pi - v) * magnitude.at(x, y);
            if (reference.complex && out.complex)
                v = std::max(v, double(std::abs(reference.complexPlane.at(x, y) - out.complexPlane.at(x, y))));
            if (!(v <= a.error)) a.error = v;  // NaN fails
        }
    a.pass = a.error <= a.budget;
    return a;
}

} // namespace striate::reference
