#include "gles/fragment/recursive_shaders.h"

#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// The unrolled body shared by the strip shaders: the section runs over the strip's S samples
/// (from `start`, in processing order) from the state `s`, and the fragment keeps step j.
FragmentShader finishStrip(FragmentWriter& w, int axis, bool anticausal, int S, bool real, const std::string& start,
                           const PlaneFormat& out) {
    w.line("vec2 acc = vec2(0.0);", 0);
    for (int i = 0; i < S; ++i) {
        const int t = anticausal ? S - 1 - i : i;
        const std::string x = w.fetchAt(0, at(axis, start + " + " + f(t + 0.5)));
        if (real) w.line("s = u_coef.z * " + x + " + u_coef.x * s;", 2);
        else w.line("s = cmul(u_coef.zw, " + x + ") + cmul(u_coef.xy, s);", 5);
        w.line("acc += s * step(abs(j - " + f(t) + "), 0.5);", 3);
    }
    return w.finish(out.complex ? "acc" : "vec2(acc.x, 0.0)", out);
}

/// The state the first strip starts from: the causal steady state (u_start.zw times the first
/// input, slot 3) or the anticausal border state (texel 0 of slot 3).
std::string startState(FragmentWriter& w, int axis, bool anticausal) {
    const std::string first = w.fetchAt(3, at(axis, "0.5"));
    return anticausal ? first : "cmul(u_start.zw, " + first + ")";
}

} // namespace

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
                             const PlaneFormat& prev, const PlaneFormat& border, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.section ") + axisName(axis) + " " + (anticausal ? "anticausal" : "causal") +
                         (first ? " first" : "") + (real ? " real" : " complex") + " S=" + std::to_string(S),
                     es3);
    w.input(0, in);
    if (!first) w.input(1, prev);
    if (first && anticausal) w.input(2, border);
    w.uniform("u_strip");  // x: the strip's first sample; zw: causal steady-state gain a / (1 - p)
    w.uniform("u_coef");   // xy: the pole p; zw: the gain a
    const std::string a = axis == 0 ? "pos.x" : "pos.y";
    w.line("float j = floor(" + a + ") - u_strip.x;", 2);
    if (!first) {
        w.line("vec2 s = " + w.fetchAt(1, at(axis, anticausal ? "u_strip.x + " + f(S + 0.5) : "u_strip.x - 0.5")) + ";", 0);
    } else if (anticausal) {
        w.line("vec2 s = " + w.fetchAt(2, at(axis, "0.5")) + ";", 0);
    } else {
        w.line("vec2 s = cmul(u_strip.zw, " + w.fetchAt(0, at(axis, "0.5")) + ");", 2);
    }
    return finishStrip(w, axis, anticausal, S, real, "u_strip.x", out);
}

std::vector<float> vec4Of(std::complex<double> a, std::complex<double> b) {
    return {static_cast<float>(a.real()), static_cast<float>(a.imag()), static_cast<float>(b.real()),
            static_cast<float>(b.imag())};
}

/// The anticausal start of section j (docs/algorithms.md 3.3 with the numerical border matrix): from
/// the three causal section outputs at the last sample (slots 0..2, normalised) and the last input
/// (slot 3), the normalised anticausal state of section j. Every coefficient is in u_border, so
/// the three sections and every orientation share the program.
FragmentShader borderShader(bool es3, int axis, const PlaneFormat (&causal)[3], const PlaneFormat& in,
                            const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.border ") + axisName(axis), es3);
    for (int k = 0; k < 3; ++k) w.input(k, causal[k]);
    w.input(3, in);
    // [0] 1/A_0, 1/A_1 · [1] 1/A_2, g_0 · [2] g_1, g_2 · [3] M_j0, M_j1 · [4] M_j2, steady_j ·
    // [5] A'_j and the last sample's coordinate
    w.uniformArray("u_border", 6);
    const std::string last = at(axis, "u_border[5].z");
    w.line("vec2 xl = " + w.fetchAt(3, last) + ";", 0);
    w.line("vec2 d0 = cmul(u_border[0].xy, " + w.fetchAt(0, last) + ") - cmul(u_border[1].zw, xl);", 5);
    w.line("vec2 d1 = cmul(u_border[0].zw, " + w.fetchAt(1, last) + ") - cmul(u_border[2].xy, xl);", 5);
    w.line("vec2 d2 = cmul(u_border[1].xy, " + w.fetchAt(2, last) + ") - cmul(u_border[2].zw, xl);", 5);
    w.line("vec2 t = cmul(u_border[4].zw, xl) + cmul(u_border[3].xy, d0) + cmul(u_border[3].zw, d1) + "
           "cmul(u_border[4].xy, d2);",
           11);
    w.line("", 2);
    return w.finish("cmul(u_border[5].xy, t)", out);
}

/// The block form's first draw (Nehab et al. 2011): every strip's zero-state response at once.
/// Each fragment finds its strip from its own position (causal strips from 0, anticausal ones
/// anchored at the end: N - S, N - 2S, ...) and runs the section over the strip's S samples from
/// a zero state.
FragmentShader zeroStateShader(bool es3, int axis, bool anticausal, int S, int N, bool real, const PlaneFormat& in,
                               const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.zero-state ") + axisName(axis) + " " +
                         (anticausal ? "anticausal" : "causal") + (real ? " real" : " complex") + " S=" + std::to_string(S),
                     es3);
    w.input(0, in);
    w.uniform("u_coef");  // xy: the pole p; zw: the gain a
    const std::string a = axis == 0 ? "floor(pos.x)" : "floor(pos.y)";
    if (anticausal)
        w.line("float start = " + f(N) + " - (floor((" + f(N - 1) + " - " + a + ") / " + f(S) + ") + 1.0) * " + f(S) + ";", 5);
    else
        w.line("float start = floor(" + a + " / " + f(S) + ") * " + f(S) + ";", 3);
    w.line("float j = " + a + " - start;", 1);
    w.line("vec2 s = vec2(0.0);", 0);
    return finishStrip(w, axis, anticausal, S, real, "start", out);
}

/// One carry of the block form: the true state at the end of strip k (texel u_start.x along the
/// axis) is the zero-state response there (slot 0) plus p^S (u_start... u_coef.xy) times the
/// previous strip's true state (slot 1 at u_start.y, or the start state for the first strip).
FragmentShader carryShader(bool es3, int axis, bool anticausal, bool first, const PlaneFormat& zero,
                           const PlaneFormat& start, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.carry ") + axisName(axis) + (first ? " first" : ""), es3);
    w.input(0, zero);
    if (!first) w.input(1, out);
    if (first) w.input(3, start);
    w.uniform("u_start");  // x: this strip's end, y: the previous strip's end; zw: steady-state gain
    w.uniform("u_coef");   // xy: p^S
    const std::string previous = first ? startState(w, axis, anticausal) : w.fetchAt(1, at(axis, "u_start.y"));
    w.line("vec2 carried = " + w.fetchAt(0, at(axis, "u_start.x")) + " + cmul(u_coef.xy, " + previous + ");", 3);
    return w.finish(out.complex ? "carried" : "vec2(carried.x, 0.0)", out);
}

/// The block form's last draw: every sample's true value, its zero-state response (slot 0) plus
/// p^(j+1) times the true state before its strip: the carry of the previous strip (slot 1 for
/// even strips' predecessors, slot 2 for odd) or the start state (slot 3) in the first strip.
FragmentShader fixupShader(bool es3, int axis, bool anticausal, int S, int N, const PlaneFormat& zero,
                           const PlaneFormat& carry, const PlaneFormat& start, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.fix-up ") + axisName(axis) + " " + (anticausal ? "anticausal" : "causal") +
                         " S=" + std::to_string(S),
                     es3);
    w.input(0, zero);
    w.input(1, carry);
    w.input(2, carry);
    w.input(3, start);
    w.uniform("u_start");  // zw: steady-state gain
    w.uniform("u_coef");   // x: log |p|, y: arg p
    const std::string a = axis == 0 ? "floor(pos.x)" : "floor(pos.y)";
    if (anticausal) {
        w.line("float k = floor((" + f(N - 1) + " - " + a + ") / " + f(S) + ");", 3);
        w.line("float j = " + f(N - 1) + " - k * " + f(S) + " - " + a + ";", 2);
        w.line("float before = " + f(N + 0.5) + " - k * " + f(S) + ";", 1);
    } else {
        w.line("float k = floor(" + a + " / " + f(S) + ");", 2);
        w.line("float j = " + a + " - k * " + f(S) + ";", 1);
        w.line("float before = k * " + f(S) + " - 0.5;", 1);
    }
    w.line("vec2 even = " + w.fetchAt(1, at(axis, "before")) + ", odd = " + w.fetchAt(2, at(axis, "before")) + ";", 0);
    // Every fetch at the top level, then a select: vc4 runs a fragment shader at 2 threads only
    // where no texture fetch sits inside a branch (docs/boards.md).
    w.line("vec2 started = " + startState(w, axis, anticausal) + ";", 0);
    w.line("vec2 previous = k < 0.5 ? started : (mod(k, 2.0) > 0.5 ? even : odd);", 4);
    w.line("float n = j + 1.0;", 1);
    w.line("vec2 power = exp(n * u_coef.x) * vec2(cos(n * u_coef.y), sin(n * u_coef.y));", 6);
    w.line("vec2 value = " + w.fetch(0, "") + " + cmul(power, previous);", 3);
    return w.finish(out.complex ? "value" : "vec2(value.x, 0.0)", out);
}

} // namespace striate::gles
