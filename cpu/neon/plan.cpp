#include "cpu/neon/plan.h"

#include <variant>

#include "core/coefficients.h"
#include "cpu/neon/fixed.h"

namespace striate::cpu {

BlurPlan planBlur(const BlurSpec& spec) {
    BlurPlan p;
    p.method = spec.resolvedMethod();
    p.sigma = spec.sigma;
    switch (p.method) {
    case BlurMethod::Direct:
        for (double t : gaussianTaps(spec.sigma)) p.taps.push_back(static_cast<float>(t));
        break;
    case BlurMethod::Boxes:
        p.box = extendedBox(spec.sigma, kBoxPasses);
        p.pad = kBoxPasses * (p.box.r + 1);
        break;
    case BlurMethod::Recursive:
    case BlurMethod::Auto: p.recursive = cascadeFloat(recursiveCascade(spec.sigma, 0)); break;
    }
    if (p.method == BlurMethod::Direct || (spec.method == BlurMethod::Auto && spec.sigma < kAutoFixedBelowSigma))
        p.fixedTaps = fixedGaussianTaps(gaussianTaps(spec.sigma));
    return p;
}

namespace {

GaborPlan planBank(const GaborSpec& spec, const std::vector<double>& orientations) {
    GaborPlan p;
    p.recursive = spec.resolvedMethod() == GaborMethod::Recursive;
    p.removeDc = spec.removeDc;
    p.dcBlur = planBlur(BlurSpec{spec.sigma, p.recursive ? BlurMethod::Recursive : BlurMethod::Direct});
    for (double theta : orientations) {
        const AxisFrequencies w = axisFrequencies(spec.wavelength, theta);
        GaborOrientationPlan o;
        if (p.recursive) {
            o.x = cascadeFloat(recursiveCascade(spec.sigma, w.wx));
            o.y = cascadeFloat(recursiveCascade(spec.sigma, w.wy));
        } else {
            o.tx = gaborTapsFloat(spec.sigma, w.wx);
            o.ty = gaborTapsFloat(spec.sigma, w.wy);
        }
        const double dcGain = spec.removeDc ? gaborAxisDcGain(spec.sigma, w.wx, p.recursive) *
                                                  gaborAxisDcGain(spec.sigma, w.wy, p.recursive)
                                            : 0.0;
        o.dcGain = static_cast<float>(dcGain);
        if (!p.recursive && (!o.ty.sine || !o.tx.sine)) {
            o.alongX = !o.ty.sine;
            const GaborTaps& free = o.alongX ? o.ty : o.tx;
            // (c - K g) along, g across: the Gabor less K times the Gaussian, where the free
            // axis's taps are the Gaussian's (its frequency is 0, or a cosine of 1 in double).
            if (!spec.removeDc || free.c == p.dcBlur.taps) {
                const std::vector<Complex64> t = gaborTaps(spec.sigma, o.alongX ? w.wx : w.wy);
                const std::vector<double> g = gaussianTaps(spec.sigma);
                const int R = static_cast<int>(g.size()) - 1;
                for (int k = 0; k <= R; ++k) {
                    o.along.c.push_back(static_cast<float>(t[R + k].real() - dcGain * g[k]));
                    o.along.s.push_back(static_cast<float>(t[R + k].imag()));
                }
                o.across = free.c;
            }
        }
        p.bank.push_back(o);
    }
    return p;
}

} // namespace

GaborPlan planGabor(const GaborSpec& spec) {
    std::vector<double> thetas;
    for (int k = 0; k < spec.orientations; ++k) thetas.push_back(spec.orientationOf(k));
    GaborPlan p = planBank(spec, thetas);
    if (spec.orientations > 1) {
        p.sink = GaborSink::MaxMagnitude;
    } else {
        switch (spec.output) {
        case GaborOutput::Magnitude: p.sink = GaborSink::Magnitude; break;
        case GaborOutput::Real: p.sink = GaborSink::Real; break;
        case GaborOutput::Imaginary: p.sink = GaborSink::Imaginary; break;
        case GaborOutput::Phase: p.sink = GaborSink::Phase; break;
        case GaborOutput::Complex: p.sink = GaborSink::Complex; break;
        }
    }
    return p;
}

GaborPlan planEdgeBank(const EdgeSpec& spec) {
    std::vector<double> thetas;
    for (int k = 0; k < spec.orientations; ++k) thetas.push_back(spec.bankMember(k).orientation);
    GaborPlan p = planBank(spec.bankMember(0), thetas);
    p.sink = GaborSink::MaxEnergy;
    for (int k = 0; k < spec.orientations; ++k) p.bank[k].sector = static_cast<std::uint8_t>(spec.bankSector(k));
    return p;
}

namespace {

/// The cpu kernels, most specialised first (STYLE.md 2): the first entry whose selector accepts a
/// stage runs it, and its name is what logs and --explain show.
struct KernelEntry {
    const char* name;
    bool (*selects)(const Stage&);
};

template <class S>
const S* as(const Stage& s) {
    return std::get_if<S>(&s);
}

constexpr KernelEntry kKernels[] = {
    {"blur.direct.fir-symmetric", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Direct; }},
    {"blur.boxes.running-sum-x4", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Boxes; }},
    {"blur.recursive.yvv3", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Recursive; }},
    {"gabor.recursive.yvv3-complex", [](const Stage& s) { auto g = as<GaborSpec>(s); return g && g->resolvedMethod() == GaborMethod::Recursive; }},
    {"gabor.direct.fir-complex", [](const Stage& s) { auto g = as<GaborSpec>(s); return g && g->resolvedMethod() == GaborMethod::Direct; }},
    {"edges.canny.fir-nms-hysteresis", [](const Stage& s) { auto e = as<EdgeSpec>(s); return e && e->method == EdgeMethod::Canny; }},
    {"edges.gabor-energy.bank-nms-hysteresis", [](const Stage& s) { auto e = as<EdgeSpec>(s); return e && e->method == EdgeMethod::Gabor; }},
};

} // namespace

StagePlan planStage(const Stage& stage) {
    StagePlan p;
    for (const auto& k : kKernels)
        if (k.selects(stage)) {
            p.kernel = k.name;
            break;
        }
    if (const auto* b = std::get_if<BlurSpec>(&stage)) p.blur = planBlur(*b);
    if (const auto* g = std::get_if<GaborSpec>(&stage)) p.gabor = planGabor(*g);
    if (const auto* e = std::get_if<EdgeSpec>(&stage)) {
        if (e->method == EdgeMethod::Canny) p.blur = planBlur(e->smoothing());
        else p.gabor = planEdgeBank(*e);
    }
    return p;
}

} // namespace striate::cpu
