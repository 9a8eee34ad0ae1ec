#pragma once

#include <complex>
#include <vector>

#include "gles/fragment/shader_writer.h"

/// The recursive family of gles-fragment's shader generators (docs/algorithms.md, "strips"):
/// first-order sections over strips, the anticausal border start, and the block form's
/// zero-state, carry and fix-up draws. Poles and gains are uniforms, so one program serves every
/// sigma and orientation of its shape.
namespace striate::gles {

/// One first-order section over a strip of S samples (docs/algorithms.md, "strips"): the
/// fragment at offset j in the strip runs the recursion over all S samples from the carried state
/// and keeps step j (everything unrolled; S + 1 fetches). Causal strips start at u_strip.x and run
/// forward; anticausal ones run backward from u_strip.x + S - 1. The carried state is the
/// previous strip's last output (slot 1), or for the first strip the steady state of the first
/// input (causal: u_strip.zw times it) or the border state (anticausal: texel 0 of slot 2). The
/// pole and gain are uniforms (u_coef), so every section of every sigma and orientation with the
/// same shape shares the program; `real` sections (a real pole on real data) skip the complex
/// products.
FragmentShader sectionShader(bool es3, int axis, bool anticausal, bool first, int S, bool real, const PlaneFormat& in,
                             const PlaneFormat& prev, const PlaneFormat& border, const PlaneFormat& out);

/// Two complex numbers as one vec4 uniform (re, im, re, im).
std::vector<float> vec4Of(std::complex<double> a, std::complex<double> b);

/// The anticausal start of section j (docs/algorithms.md 3.3 with the numerical border matrix): from
/// the three causal section outputs at the last sample (slots 0..2, normalised) and the last input
/// (slot 3), the normalised anticausal state of section j. Every coefficient is in u_border, so
/// the three sections and every orientation share the program.
FragmentShader borderShader(bool es3, int axis, const PlaneFormat (&causal)[3], const PlaneFormat& in,
                            const PlaneFormat& out);

/// The block form's first draw (Nehab et al. 2011): every strip's zero-state response at once.
/// Each fragment finds its strip from its own position (causal strips from 0, anticausal ones
/// anchored at the end: N - S, N - 2S, ...) and runs the section over the strip's S samples from
/// a zero state.
FragmentShader zeroStateShader(bool es3, int axis, bool anticausal, int S, int N, bool real, const PlaneFormat& in,
                               const PlaneFormat& out);

/// One carry of the block form: the true state at the end of strip k (texel u_start.x along the
/// axis) is the zero-state response there (slot 0) plus p^S (u_start... u_coef.xy) times the
/// previous strip's true state (slot 1 at u_start.y, or the start state for the first strip).
FragmentShader carryShader(bool es3, int axis, bool anticausal, bool first, const PlaneFormat& zero,
                           const PlaneFormat& start, const PlaneFormat& out);

/// The block form's last draw: every sample's true value, its zero-state response (slot 0) plus
/// p^(j+1) times the true state before its strip: the carry of the previous strip (slot 1 for
/// even strips' predecessors, slot 2 for odd) or the start state (slot 3) in the first strip.
FragmentShader fixupShader(bool es3, int axis, bool anticausal, int S, int N, const PlaneFormat& zero,
                           const PlaneFormat& carry, const PlaneFormat& start, const PlaneFormat& out);

} // namespace striate::gles
