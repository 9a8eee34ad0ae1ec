#pragma once

#include <array>
#include <complex>
#include <vector>

namespace striate {

using Complex64 = std::complex<double>;

/// Truncation of sampled Gaussians: R = ceil(k sigma) with k = 4 (docs/algorithms.md 1). Fast paths use
/// the same k: k = 3 breaks the 1e-5 CPU budget by the 0.27% of mass beyond 3 sigma.
inline constexpr double kGaussianTruncation = 4.0;

int gaussianRadius(double sigma);

/// Half of the sampled, normalised Gaussian: taps[t] for t = 0..R, with taps[0] + 2 sum taps[t>0] = 1.
std::vector<double> gaussianTaps(double sigma);

/// One extended box (Gwosdek et al. 2011; docs/algorithms.md 2.2): weight 1/norm on |t| <= r and
/// alpha/norm on |t| = r + 1, with norm = 2r + 1 + 2 alpha. Its variance is exactly `variance`.
struct ExtendedBox {
    int r = 0;
    double alpha = 0;
    double norm = 1;
};
/// The box of one of `passes` passes whose cascade has variance sigma^2.
ExtendedBox extendedBox(double sigma, int passes);

/// Third-order Young-van Vliet recursion (docs/algorithms.md 2.3), modulated by frequency w
/// (docs/algorithms.md 3.2; w = 0 is the Gaussian), with exact replicate borders (3.3).
struct Recursive3 {
    double B = 0;
    std::array<double, 3> b{};          ///< b1, b2, b3
    std::array<Complex64, 3> forward{};   ///< a_k^f = -b_k exp(+i k w)
    std::array<Complex64, 3> backward{};  ///< a_k^b = -b_k exp(-i k w)
    Complex64 forwardGain;   ///< B / (1 - sum a^f): causal steady state per unit input
    Complex64 backwardGain;  ///< B / (1 - sum a^b)
    /// Maps the last three causal deviations (u[N-1], u[N-2], u[N-3] minus their steady state) to the
    /// anticausal start deviations (v[N], v[N+1], v[N+2] minus theirs): border[j][k].
    std::array<std::array<Complex64, 3>, 3> border{};
    /// DC gain of one axis: B^2 / ((1 - sum a^f)(1 - sum a^b)), real (docs/algorithms.md 3.4).
    double dcGain() const { return (forwardGain * backwardGain).real(); }
};
double youngVanVlietQ(double sigma);
Recursive3 recursive3(double sigma, double w);

/// The same filter in pole (cascade) form, for float arithmetic. The direct form above loses its
/// float precision as sigma grows because its three poles nearly coincide (measured against the
/// double reference: 1e-4 at sigma 16, 1e-3 at 64); a cascade of three first-order complex
/// sections keeps 1e-6 at sigma 64 and 7e-6 at 256. Causal: s_k[n] = s_{k-1}[n] + p_k s_k[n-1] with
/// s_0 = x, output u = B s_3; anticausal likewise on u with poles q_k, output v = B t_3.
struct RecursiveCascade {
    double B = 0;
    std::array<Complex64, 3> forward{};   ///< causal poles p_k (Gaussian: real, then a conjugate pair) times exp(+i w)
    std::array<Complex64, 3> backward{};  ///< anticausal poles q_k = Gaussian poles times exp(-i w)
    /// Maps the causal state deviations (s_1, s_2, s_3 after sample N-1, minus their steady state
    /// for the last input) to the anticausal state deviations at sample N.
    std::array<std::array<Complex64, 3>, 3> border{};
};
RecursiveCascade recursiveCascade(double sigma, double w);
/// Poles of the Gaussian recursion: roots of z^3 + b1 z^2 + b2 z + b3 (real one first).
std::array<Complex64, 3> gaussianPoles(const Recursive3& r);

/// Direct Gabor taps along one axis: gaussianTaps(sigma)[|t|] * exp(i w t), t = -R..R
/// (index t + R). Their DC gain (sum) is real: sum g(t) cos(w t).
std::vector<Complex64> gaborTaps(double sigma, double w);

/// DC gain of one Gabor axis as a method computes it: the recursive K of docs/algorithms.md 3.4, or the
/// sum of the direct taps (real: the sine half cancels).
double gaborAxisDcGain(double sigma, double w, bool recursive);

/// Frequency of a Gabor along each axis: w (cos theta, sin theta), w = 2 pi / wavelength.
struct AxisFrequencies {
    double wx;
    double wy;
};
AxisFrequencies axisFrequencies(double wavelength, double orientationDegrees);

} // namespace striate
