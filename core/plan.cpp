#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace striate {

GaborTaps gaborTapsFloat(double sigma, double w) {
    const std::vector<Complex64> t = gaborTaps(sigma, w);
    const int R = static_cast<int>(t.size()) / 2;
    GaborTaps g;
    for (int k = 0; k <= R; ++k) {
        g.c.push_back(static_cast<float>(t[R + k].real()));
        g.s.push_back(static_cast<float>(t[R + k].imag()));
    }
    g.sine = std::any_of(g.s.begin(), g.s.end(), [](float v) { return std::abs(v) >= 1e-9f; });
    return g;
}

CascadeFloat cascadeFloat(const RecursiveCascade& c) {
    CascadeFloat f{};
    f.B = static_cast<float>(c.B);
    Complex64 g = 1, h = 1;
    for (int k = 0; k < 3; ++k) {
        f.pr[k] = static_cast<float>(c.forward[k].real());
        f.pi[k] = static_cast<float>(c.forward[k].imag());
        f.qr[k] = static_cast<float>(c.backward[k].real());
        f.qi[k] = static_cast<float>(c.backward[k].imag());
        g /= 1.0 - c.forward[k];
        h /= 1.0 - c.backward[k];
        f.gr[k] = static_cast<float>(g.real());
        f.gi[k] = static_cast<float>(g.imag());
        f.hr[k] = static_cast<float>(h.real());
        f.hi[k] = static_cast<float>(h.imag());
        for (int j = 0; j < 3; ++j) {
            f.mr[j][k] = static_cast<float>(c.border[j][k].real());
            f.mi[j][k] = static_cast<float>(c.border[j][k].imag());
        }
    }
    return f;
}

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
    return p;
}

namespace {

GaborPlan planBank(const GaborSpec& spec, const std::vector<double>& orientations) {
    GaborPlan p;
    p.recursive = spec.resolvedMethod() == GaborMethod::Recursive;
    p.removeDc = spec.removeDc;
    p.dcBlur = planBlur(BlurSpec{spec.sigma, p.recursive ? BlurMethod::Recursive : BlurMethod::Direct});
    int previous = -1;
    for (int member : bankOrder(orientations)) {
        const double theta = orientations[member];
        const AxisFrequencies w = axisFrequencies(spec.wavelength, theta);
        GaborOrientationPlan o;
        o.member = member;
        o.mirrorsPrevious = previous >= 0 && !p.bank.back().mirrorsPrevious && mirrors(orientations[previous], theta);
        previous = member;
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
    for (GaborOrientationPlan& o : p.bank) o.sector = static_cast<std::uint8_t>(spec.bankSector(o.member));
    return p;
}

EdgeStagePlan::EdgeStagePlan(const EdgeSpec& s) : spec(s) {
    if (s.method == EdgeMethod::Canny) blur = planBlur(s.smoothing());
    else gabor = planEdgeBank(s);
}

StagePlan planStage(const Stage& stage) {
    return std::visit([](const auto& spec) { return StagePlan(spec); }, stage);
}

std::vector<const BlurPlan*> blursOf(const StagePlan& plan) {
    return std::visit([](const auto& p) { return p.blurPlans(); }, plan);
}

const GaborPlan* gaborOf(const StagePlan& plan) {
    return std::visit([](const auto& p) { return p.gaborPlan(); }, plan);
}

} // namespace striate
