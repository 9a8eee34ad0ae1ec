#include "core/coefficients.h"

#include <cmath>
#include <numbers>

namespace striate {

int gaussianRadius(double sigma) { return static_cast<int>(std::ceil(kGaussianTruncation * sigma)); }

std::vector<double> gaussianTaps(double sigma) {
    const int R = gaussianRadius(sigma);
    std::vector<double> taps(R + 1);
    double sum = 0;
    for (int t = 0; t <= R; ++t) {
        taps[t] = std::exp(-double(t) * t / (2 * sigma * sigma));
        sum += t == 0 ? taps[t] : 2 * taps[t];
    }
    for (double& v : taps) v /= sum;
    return taps;
}

ExtendedBox extendedBox(double sigma, int passes) {
    const double v = sigma * sigma / passes;
    ExtendedBox box;
    // Largest r whose plain box (variance r(r+1)/3) does not exceed v; alpha makes up the rest.
    box.r = static_cast<int>(std::floor((std::sqrt(1 + 12 * v) - 1) / 2));
    while ((box.r + 1) * (box.r + 2) / 3.0 <= v) ++box.r;
    while (box.r > 0 && box.r * (box.r + 1) / 3.0 > v) --box.r;
    const double r = box.r;
    box.alpha = (2 * r + 1) * (v - r * (r + 1) / 3) / (2 * ((r + 1) * (r + 1) - v));
    box.norm = 2 * r + 1 + 2 * box.alpha;
    return box;
}

double youngVanVlietQ(double sigma) {
    return sigma < 3.556 ? -0.2568 + 0.5784 * sigma + 0.0561 * sigma * sigma : 2.5091 + 0.9804 * (sigma - 3.556);
}

Recursive3 recursive3(double sigma, double w) {
    const double q = youngVanVlietQ(sigma);
    const double m0 = 1.16680, m1 = 1.10783, m2 = 1.40586;
    const double s = (m0 + q) * (m1 * m1 + m2 * m2 + 2 * m1 * q + q * q);
    Recursive3 f;
    f.b[0] = -q * (2 * m0 * m1 + m1 * m1 + m2 * m2 + (2 * m0 + 4 * m1) * q + 3 * q * q) / s;
    f.b[1] = q * q * (m0 + 2 * m1 + 3 * q) / s;
    f.b[2] = -q * q * q / s;
    // B from the identity B = 1 + b1 + b2 + b3 rather than m0 (m1^2 + m2^2) / s: the two agree to
    // rounding, and this one gives a Gaussian DC gain of exactly 1.
    f.B = 1 + f.b[0] + f.b[1] + f.b[2];
    Complex64 sumF = 0, sumB = 0;
    for (int k = 0; k < 3; ++k) {
        f.forward[k] = -f.b[k] * std::polar(1.0, (k + 1) * w);
        f.backward[k] = -f.b[k] * std::polar(1.0, -(k + 1) * w);
        sumF += f.forward[k];
        sumB += f.backward[k];
    }
    f.forwardGain = f.B / (1.0 - sumF);
    f.backwardGain = f.B / (1.0 - sumB);

    // Anticausal start (docs/algorithms.md 3.3): for each unit causal deviation, run the causal
    // recursion on zero input past the end, then the anticausal one back from zero state. The
    // closed form of Triggs and Sdika only holds when causal and anticausal coefficients agree;
    // this numerical form holds for the Gaussian (w = 0) and the Gabor alike. L is long enough
    // for the slowest pole to decay below 1e-17 (about 32 sigma at sigma 256).
    const int L = static_cast<int>(std::ceil(40 * sigma)) + 60;
    std::vector<Complex64> e(L + 3), v(L + 3);
    for (int k = 0; k < 3; ++k) {
        // e[i + 3] holds the deviation at N + i; e[0..2] are N-3, N-2, N-1.
        std::fill(e.begin(), e.end(), Complex64(0));
        e[2 - k] = 1.0;  // k = 0: u[N-1], k = 1: u[N-2], k = 2: u[N-3]
        for (int i = 3; i < L + 3; ++i) e[i] = f.forward[0] * e[i - 1] + f.forward[1] * e[i - 2] + f.forward[2] * e[i - 3];
        std::fill(v.begin(), v.end(), Complex64(0));
        // v[i] for i = 0..L-1 holds N + i; v[L..L+2] are zero.
        for (int i = L - 1; i >= 0; --i)
            v[i] = f.B * e[i + 3] + f.backward[0] * v[i + 1] + f.backward[1] * v[i + 2] + f.backward[2] * v[i + 3];
        for (int j = 0; j < 3; ++j) f.border[j][k] = v[j];
    }
    return f;
}

std::array<Complex64, 3> gaussianPoles(const Recursive3& r) {
    const double b1 = r.b[0], b2 = r.b[1], b3 = r.b[2];
    auto f = [&](double z) { return ((z + b1) * z + b2) * z + b3; };
    // f(0) = b3 < 0 and f(1) = B > 0: the real pole lies in (0, 1). Bisection, then Newton polish.
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (f(mid) < 0 ? lo : hi) = mid;
    }
    double z = (lo + hi) / 2;
    for (int i = 0; i < 3; ++i) {
        const double d = (3 * z + 2 * b1) * z + b2;
        if (d != 0) z -= f(z) / d;
    }
    // Deflate: z^2 + c1 z + c0 holds the other two.
    const double c1 = b1 + z, c0 = b2 + z * c1;
    const Complex64 disc = std::sqrt(Complex64(c1 * c1 - 4 * c0));
    return {Complex64(z), (-c1 + disc) / 2.0, (-c1 - disc) / 2.0};
}

RecursiveCascade recursiveCascade(double sigma, double w) {
    const Recursive3 r = recursive3(sigma, 0);
    const std::array<Complex64, 3> poles = gaussianPoles(r);
    RecursiveCascade c;
    c.B = r.B;
    for (int k = 0; k < 3; ++k) {
        c.forward[k] = poles[k] * std::polar(1.0, w);
        c.backward[k] = poles[k] * std::polar(1.0, -w);
    }
    // As for the direct form: each unit causal state deviation runs forward on zero input, then
    // back through the anticausal sections from zero state; the anticausal state at N is column k.
    const int L = static_cast<int>(std::ceil(40 * sigma)) + 60;
    std::vector<Complex64> du(L);
    for (int k = 0; k < 3; ++k) {
        Complex64 s[3] = {0, 0, 0};
        s[k] = 1;
        for (int n = 0; n < L; ++n) {
            Complex64 in = 0;
            for (int j = 0; j < 3; ++j) in = s[j] = in + c.forward[j] * s[j];
            du[n] = c.B * s[2];
        }
        Complex64 t[3] = {0, 0, 0};
        for (int n = L - 1; n >= 0; --n) {
            Complex64 in = du[n];
            for (int j = 0; j < 3; ++j) in = t[j] = in + c.backward[j] * t[j];
        }
        for (int j = 0; j < 3; ++j) c.border[j][k] = t[j];
    }
    return c;
}

std::vector<Complex64> gaborTaps(double sigma, double w) {
    std::vector<double> g = gaussianTaps(sigma);
    const int R = static_cast<int>(g.size()) - 1;
    std::vector<Complex64> taps(2 * R + 1);
    for (int t = -R; t <= R; ++t) taps[t + R] = g[std::abs(t)] * std::polar(1.0, w * t);
    return taps;
}

double gaborAxisDcGain(double sigma, double w, bool recursive) {
    if (recursive) return recursive3(sigma, w).dcGain();
    double k = 0;
    for (Complex64 t : gaborTaps(sigma, w)) k += t.real();
    return k;
}

AxisFrequencies axisFrequencies(double wavelength, double orientationDegrees) {
    const double w = 2 * std::numbers::pi / wavelength;
    const double theta = orientationDegrees * std::numbers::pi / 180;
    return {w * std::cos(theta), w * std::sin(theta)};
}

} // namespace striate
