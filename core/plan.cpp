#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
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

DemodCascade demodCascade(const RecursiveCascade& c, double w) {
    const Complex64 down = std::polar(1.0, -w), up = std::polar(1.0, w);
    Complex64 d[3], g[3], h[3];
    Complex64 gk = 1, hk = 1;
    for (int k = 0; k < 3; ++k) {
        d[k] = c.forward[k] * down;  // the Gaussian's poles (backward[k] * up is the same)
        gk /= 1.0 - c.forward[k];
        hk /= 1.0 - c.backward[k];
        g[k] = gk;
        h[k] = hk;
    }
    DemodCascade f{};
    f.B = static_cast<float>(c.B);
    f.d0 = static_cast<float>(d[0].real());
    f.a1 = static_cast<float>((d[1] + d[2]).real());
    f.a2 = static_cast<float>(-(d[1] * d[2]).real());
    // Causal: the modulated states x0 g_k at n = -1, demodulated (times e^{+i w}); y[-2] from
    // s1[-1] = y[-1] - d2 y[-2].
    const Complex64 start[3] = {up * g[0], up * g[2], up * (g[2] - g[1]) / d[2]};
    // Anticausal: the modulated start (borderStart) in demodulated terms is e^{-i w} times it with
    // demodulated states and sample; s1 = y[N-1] - d2 y[N-2]; then v2[N+1] = (t2 - t1) / d2.
    Complex64 t[3][4];
    for (int j = 0; j < 3; ++j) {
        Complex64 e = c.B * g[2] * h[j];
        for (int k = 0; k < 3; ++k) e -= c.border[j][k] * g[k];
        const Complex64 m0 = down * c.border[j][0], m1 = down * c.border[j][1], m2 = down * c.border[j][2];
        t[j][0] = down * e;
        t[j][1] = m0;
        t[j][2] = m1 + m2;
        t[j][3] = -m1 * d[2];
    }
    for (int k = 0; k < 4; ++k) {
        const Complex64 rows[3] = {t[0][k], t[2][k], (t[2][k] - t[1][k]) / d[2]};
        for (int j = 0; j < 3; ++j) {
            f.qr[j][k] = static_cast<float>(rows[j].real());
            f.qi[j][k] = static_cast<float>(rows[j].imag());
        }
    }
    for (int k = 0; k < 3; ++k) {
        f.cr[k] = static_cast<float>(start[k].real());
        f.ci[k] = static_cast<float>(start[k].imag());
    }
    return f;
}

BlurPlan planBlur(const BlurSpec& spec) {
    BlurPlan p;
    p.sigma = spec.sigma;
    switch (spec.resolvedMethod()) {
    case BlurMethod::Direct: {
        DirectBlur d;
        for (double t : gaussianTaps(spec.sigma)) d.taps.push_back(static_cast<float>(t));
        p.method = std::move(d);
        break;
    }
    case BlurMethod::Boxes: {
        const ExtendedBox box = extendedBox(spec.sigma, kBoxPasses);
        p.method = BoxBlur{box, kBoxPasses * (box.r + 1)};
        break;
    }
    case BlurMethod::Recursive:
    case BlurMethod::Auto:  // resolvedMethod() never returns auto
        p.method = RecursiveBlur{cascadeFloat(recursiveCascade(spec.sigma, 0))};
        break;
    }
    return p;
}

namespace {

GaborPlan planBank(const GaborSpec& spec, const std::vector<double>& orientations) {
    GaborPlan p;
    p.recursive = spec.resolvedMethod() == GaborMethod::Recursive;
    p.demodulated = p.recursive && spec.sigma <= kDemodulatedMaxSigma;
    p.removeDc = spec.removeDc;
    p.dcBlur = planBlur(BlurSpec{spec.sigma, p.recursive ? BlurMethod::Recursive : BlurMethod::Direct});
    if (p.demodulated) p.dcDemod = demodCascade(recursiveCascade(spec.sigma, 0), 0);
    int previous = -1;
    for (int member : bankOrder(orientations)) {
        const double theta = orientations[member];
        const AxisFrequencies w = axisFrequencies(spec.wavelength, theta);
        GaborOrientationPlan o;
        o.member = member;
        o.wx = w.wx;
        o.wy = w.wy;
        o.mirrorsPrevious = previous >= 0 && !p.bank.back().mirrorsPrevious && mirrors(orientations[previous], theta);
        previous = member;
        if (p.recursive) {
            const RecursiveCascade cx = recursiveCascade(spec.sigma, w.wx), cy = recursiveCascade(spec.sigma, w.wy);
            o.x = cascadeFloat(cx);
            o.y = cascadeFloat(cy);
            if (p.demodulated) {
                o.dx = demodCascade(cx, w.wx);
                o.dy = demodCascade(cy, w.wy);
            }
        } else {
            o.tx = gaborTapsFloat(spec.sigma, w.wx);
            o.ty = gaborTapsFloat(spec.sigma, w.wy);
        }
        const double dcGain = spec.removeDc ? gaborAxisDcGain(spec.sigma, w.wx, p.recursive) *
                                                  gaborAxisDcGain(spec.sigma, w.wy, p.recursive)
                                            : 0.0;
        o.dcGain = static_cast<float>(dcGain);
        if (o.mirrorsPrevious) {
            if (p.recursive) o.yOnPartner = cascadeFloat(recursiveCascade(spec.sigma, -w.wy));
            else o.tyOnPartner = gaborTapsFloat(spec.sigma, -w.wy);
        }
        if (!p.recursive && (!o.ty.sine || !o.tx.sine)) {
            o.alongX = !o.ty.sine;
            const GaborTaps& free = o.alongX ? o.ty : o.tx;
            // (c - K g) along, g across: the Gabor less K times the Gaussian, where the free
            // axis's taps are the Gaussian's (its frequency is 0, or a cosine of 1 in double).
            if (!spec.removeDc || free.c == std::get<DirectBlur>(p.dcBlur.method).taps) {
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
    if (p.removeDc) {
        // |K| is even in each axis's frequency and the same with the axes swapped, so the degrees
        // 0..45 give its largest over every orientation.
        const double w = 2 * std::numbers::pi / spec.wavelength;
        for (int degree = 0; degree <= 45; ++degree) {
            const double theta = degree * std::numbers::pi / 180;
            p.dcWeightBound = std::max(p.dcWeightBound, std::abs(gaborAxisDcGain(spec.sigma, w * std::cos(theta), p.recursive) *
                                                                  gaborAxisDcGain(spec.sigma, w * std::sin(theta), p.recursive)));
        }
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

namespace {
std::variant<CannyPlan, GaborEnergyPlan> planEdgeMethod(const EdgeSpec& s) {
    switch (s.method) {
    case EdgeMethod::Canny: return CannyPlan{planBlur(s.smoothing())};
    case EdgeMethod::Gabor: return GaborEnergyPlan{planEdgeBank(s)};
    }
    std::abort();  // not an EdgeMethod (validate() refuses it before any plan)
}
} // namespace

EdgeStagePlan::EdgeStagePlan(const EdgeSpec& s) : spec(s), method(planEdgeMethod(s)) {}

std::vector<const BlurPlan*> EdgeStagePlan::blurPlans() const {
    return std::visit(Overloaded{[](const CannyPlan& c) { return std::vector<const BlurPlan*>{&c.smoothing}; },
                                [](const GaborEnergyPlan& g) { return std::vector<const BlurPlan*>{&g.bank.dcBlur}; }},
                      method);
}

const GaborPlan* EdgeStagePlan::gaborPlan() const {
    return std::visit(Overloaded{[](const CannyPlan&) -> const GaborPlan* { return nullptr; },
                                 [](const GaborEnergyPlan& g) -> const GaborPlan* { return &g.bank; }},
                      method);
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
