#pragma once

#include <array>
#include <complex>

#include "core/plan.h"

/// The impulse-response mathematics of the recursive filters, in double, for backends that run a
/// cascade in another form (gles-fragment's strips and the FIR of its response) and for the
/// bounds of packed planes (docs/algorithms.md 5).
namespace striate {

/// A cascade's poles as complex numbers: causal p_k and anticausal q_k.
struct CascadePoles {
    std::array<std::complex<double>, 3> causal, anticausal;
};
CascadePoles polesOf(const CascadeFloat& cf);

/// Normalised section gains (docs/algorithms.md, "strips"): a_1 = 1 - p_1, a_2 = 1 - p_2,
/// a_3 = B / (a_1 a_2), so the first two sections have unit DC gain and the third emits the
/// filter's output (B s_3 in the unnormalised form).
std::array<std::complex<double>, 3> sectionGains(const std::array<std::complex<double>, 3>& poles, double B);

/// Bounds of the six sections of a recursive axis (3 causal, 3 anticausal, with sectionGains)
/// per unit input bound: the L1 norm of the impulse response of the cascade up to and including
/// each section (docs/algorithms.md 5: input range times the L1 norm of the pass's impulse response),
/// summed in double over a window long enough for the response to vanish.
std::array<double, 6> sectionBounds(const CascadeFloat& cf);

/// The L1 norm of one axis's whole recursive filter (both directions, all sections).
double cascadeL1(const CascadeFloat& cf);

/// The L1 norm of one axis's direct Gabor taps.
double tapsL1(const GaborTaps& taps);

/// The two-sided impulse response of one recursive axis (both directions, all sections), cut
/// where the L1 mass beyond is below `tail`, as taps c + i s at +t and c - i s at -t (direct
/// Gabor taps). With replicate borders the recursion is exactly the convolution of the
/// replicate-extended line with this response (docs/algorithms.md 3.3), and clamp-to-edge fetches
/// extend the line so: the cut is the only error. False if the response is not of that shape.
bool responseTaps(const CascadeFloat& cf, double tail, GaborTaps* out);

} // namespace striate
