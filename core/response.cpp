#include "core/response.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace striate {

using C = std::complex<double>;

namespace {

double slowestPole(const CascadePoles& poles) {
    double slowest = 0;
    for (int k = 0; k < 3; ++k) slowest = std::max({slowest, std::abs(poles.causal[k]), std::abs(poles.anticausal[k])});
    return slowest;
}

/// Samples each side of the centre after which an impulse response decaying as slowest^n is
/// below eps (at most cap, plus a margin of 8).
int decayLength(double slowest, double eps, int cap) {
    return std::min(cap, static_cast<int>(std::ceil(std::log(eps) / std::log(std::max(slowest, 1e-3))))) + 8;
}

} // namespace

CascadePoles polesOf(const CascadeFloat& cf) {
    CascadePoles p;
    for (int k = 0; k < 3; ++k) {
        p.causal[k] = C(cf.pr[k], cf.pi[k]);
        p.anticausal[k] = C(cf.qr[k], cf.qi[k]);
    }
    return p;
}

std::array<C, 3> sectionGains(const std::array<C, 3>& poles, double B) {
    const C a1 = 1.0 - poles[0], a2 = 1.0 - poles[1];
    return {a1, a2, B / (a1 * a2)};
}

std::array<double, 6> sectionBounds(const CascadeFloat& cf) {
    const CascadePoles poles = polesOf(cf);
    const auto& [p, q] = poles;
    const std::array<C, 3> a = sectionGains(p, cf.B), b = sectionGains(q, cf.B);
    const int L = decayLength(slowestPole(poles), 1e-12, 200000);
    std::vector<C> x(2 * L + 1, 0.0);
    x[L] = 1.0;
    std::array<double, 6> out{};
    for (int k = 0; k < 3; ++k) {
        C s = 0;
        for (auto& v : x) v = s = a[k] * v + p[k] * s;
        for (const auto& v : x) out[k] += std::abs(v);
    }
    for (int k = 0; k < 3; ++k) {
        C s = 0;
        for (auto it = x.rbegin(); it != x.rend(); ++it) *it = s = b[k] * *it + q[k] * s;
        for (const auto& v : x) out[3 + k] += std::abs(v);
    }
    return out;
}

double cascadeL1(const CascadeFloat& cf) { return sectionBounds(cf)[5]; }

double tapsL1(const GaborTaps& taps) {
    double l1 = std::abs(taps.c[0]);
    for (std::size_t k = 1; k < taps.c.size(); ++k) l1 += 2 * std::hypot(taps.c[k], taps.s[k]);
    return l1;
}

bool responseTaps(const CascadeFloat& cf, double tailCut, GaborTaps* out) {
    const CascadePoles poles = polesOf(cf);
    const auto& [p, q] = poles;
    const double slowest = slowestPole(poles);
    if (!(slowest < 1)) return false;
    const int L = decayLength(slowest, 1e-13, 20000);
    std::vector<C> x(2 * static_cast<std::size_t>(L) + 1, 0.0);
    x[L] = 1.0;
    for (int k = 0; k < 3; ++k) {
        C state = 0;
        for (auto& v : x) v = state = v + p[k] * state;
    }
    for (auto& v : x) v *= static_cast<double>(cf.B);
    for (int k = 0; k < 3; ++k) {
        C state = 0;
        for (auto it = x.rbegin(); it != x.rend(); ++it) *it = state = *it + q[k] * state;
    }
    for (auto& v : x) v *= static_cast<double>(cf.B);
    double tail = 0, peak = 0;
    for (const C& v : x) {
        tail += std::abs(v);
        peak = std::max(peak, std::abs(v));
    }
    tail -= std::abs(x[L]);
    int R = 0;
    while (R < L && tail >= tailCut) {
        ++R;
        tail -= std::abs(x[L + R]) + std::abs(x[L - R]);
        if (std::abs(x[L - R] - std::conj(x[L + R])) > 1e-9 * peak) return false;
    }
    if (R >= L) return false;
    out->c.resize(R + 1);
    out->s.resize(R + 1);
    for (int t = 0; t <= R; ++t) {
        out->c[t] = static_cast<float>(x[L + t].real());
        out->s[t] = static_cast<float>(x[L + t].imag());
    }
    return true;
}

} // namespace striate
