// gles-fragment planners: recursive filters as strips of first-order sections, their block form,
// or the FIR of their response; direct Gabor taps.
#include "gles/fragment/planner.h"

#include <algorithm>
#include <cmath>

#include "core/response.h"
#include "gles/fragment/glsl.h"
#include "gles/fragment/recursive_shaders.h"

namespace striate::gles {
namespace {

/// Recursive filters as FIRs of their response (responseTaps): the L1 mass cut from each axis's
/// response. Both axes' cuts and the float sums stay within docs/algorithms.md 8's 2e-4.
constexpr double kResponseTail = 5e-5;
/// The cut on packed planes, whose budget (docs/algorithms.md 8: 1/255 for a blur, 2/255 for the
/// rest) is 20 to 40 times the float planes': both axes' cuts, 3e-3 of a unit input at most, stay
/// within the tighter one (a blur's, 3.9e-3), with 0.9e-3 left to the 16-bit codes (a few 1e-5
/// a pass). At sigma 4 the response runs 19 tap pairs an axis instead of 29 (the largest error
/// the conformance cases read on packed planes: 2.0e-3, was 2.6e-4).
constexpr double kPackedResponseTail = 1.5e-3;
/// A plane whose result reaches the output times a weight below 1 (a Gabor's DC plane, by its
/// gain K: docs/algorithms.md 3.4) is cut at this share of the cut over the weight: its error,
/// so weighted, a quarter of an axis's. A full share moved Gabor energy's edge classes where its
/// strength lies near a threshold (6 of 221 pixels on tight's 17x13 case, whose budget is 3;
/// a quarter leaves 2, as before); at sigma 4, wavelength 8 on packed planes the DC plane's
/// response runs 11 tap pairs an axis instead of 19.
constexpr double kWeightedShare = 0.25;
/// RecursiveForm::Auto takes the response form in per-pixel passes up to this many taps per axis,
/// strips beyond (docs/performance-history.md: fewer fetches per pixel than the strips' sections, and no
/// strip draws); on quads it is faster than strips at every sigma measured (to 64).
constexpr int kMaxResponseTaps = 257;

} // namespace

using C = std::complex<double>;

FragmentPlanner::Value FragmentPlanner::blockSection(C pole, C gain, int axis, bool anticausal, int S, bool real,
                                                     const Value& in, const Value& start, const PlaneFormat& out) {
    const int N = axis == 0 ? format_.width : format_.height;
    const C steady = gain / (1.0 - pole);
    const Value zero = full(zeroStateShader(!packed_, axis, anticausal, S, N, real, in.format, out), {in}, out,
                            {{"u_coef", vec4Of(pole, gain)}});
    // Carries, strip by strip (only strips that have a successor): carry k goes to plane k % 2.
    const int strips = (N + S - 1) / S;
    const Value carry[2] = {Value{acquire(out), out}, Value{acquire(out), out}};
    const C pS = std::pow(pole, S);
    DrawStep step;
    auto end = [&](int k) { return anticausal ? N - (k + 1) * S : (k + 1) * S - 1; };
    // The first carry's shader and the one every later carry shares, made once.
    const FragmentShader firstCarry = carryShader(!packed_, axis, anticausal, true, out, start.format, out),
                         laterCarry = carryShader(!packed_, axis, anticausal, false, out, start.format, out);
    for (int k = 0; k + 1 < strips; ++k) {
        const bool first = k == 0;
        const std::vector<float> u = {static_cast<float>(end(k) + 0.5), static_cast<float>(first ? 0 : end(k - 1) + 0.5),
                                      static_cast<float>(steady.real()), static_cast<float>(steady.imag())};
        Draw d = makeDraw(first ? firstCarry : laterCarry,
                          {zero, first ? Value{} : carry[(k + 1) % 2], Value{}, first ? start : Value{}}, carry[k % 2],
                          {{"u_start", u}, {"u_coef", vec4Of(pS, 0.0)}});
        if (axis == 0) d.x = end(k), d.y = 0, d.w = 1, d.h = format_.height;
        else d.x = 0, d.y = end(k), d.w = format_.width, d.h = 1;
        step.passes.push_back(std::move(d));
    }
    if (!step.passes.empty()) {
        const std::size_t draws = step.passes.size();
        steps_.push_back(std::move(step));
        passes_.push_back({"recursive.block.carry " + std::string(axisName(axis)), describe(out),
                           std::to_string(draws) + " one-texel-wide draws"});
    }
    const Value fixed = full(fixupShader(!packed_, axis, anticausal, S, N, out, out, start.format, out),
                             {zero, carry[0], carry[1], start}, out,
                             {{"u_start", {0.0f, 0.0f, static_cast<float>(steady.real()), static_cast<float>(steady.imag())}},
                              {"u_coef", {static_cast<float>(std::log(std::abs(pole))), static_cast<float>(std::arg(pole)), 0.0f, 0.0f}}});
    return fixed;
}

FragmentPlanner::Value FragmentPlanner::section(const CascadeFloat& cf, int axis, int k, bool anticausal,
                                                const Value& in, const Value& border, const PlaneFormat& out) {
    const int N = axis == 0 ? format_.width : format_.height;
    const CascadePoles all = polesOf(cf);
    const std::array<C, 3>& poles = anticausal ? all.anticausal : all.causal;
    const std::array<C, 3> gains = sectionGains(poles, cf.B);
    const bool real = !in.format.complex && !out.complex && poles[k].imag() == 0 && gains[k].imag() == 0;
    auto shaderFor = [&](bool first, int width) {
        return sectionShader(!packed_, axis, anticausal, first, width, real, in.format, out, border.format, out);
    };
    // The widest strip, up to the unroll limit, whose shaders (first and carried) fit the budget.
    const std::string key = std::to_string(axis) + (anticausal ? "a" : "c") + (real ? "r" : "z") + std::to_string(N) +
                            describe(in.format) + "|" + describe(out) + "|" + describe(border.format);
    auto [known, added] = stripWidths_->try_emplace(key, 0);
    if (added)
        known->second = std::max(1, largestFitting(2, std::min(limits_.unrollLimit, N), [&](int width) {
                                     return fits(shaderFor(true, width).cost, limits_.budget) &&
                                            fits(shaderFor(false, width).cost, limits_.budget);
                                 }));
    const int S = known->second;
    if (options_.recursiveForm == RecursiveForm::Block)
        return blockSection(poles[k], gains[k], axis, anticausal, S, real, in, anticausal ? border : in, out);
    const C steady = gains[k] / (1.0 - poles[k]);
    DrawStep step;
    const int strips = (N + S - 1) / S;
    const Value target[2] = {Value{acquire(out), out}, Value{acquire(out), out}};
    // The first strip's shader and the one every later strip shares, made once.
    const FragmentShader firstStrip = shaderFor(true, S), carried = shaderFor(false, S);
    for (int i = 0; i < strips; ++i) {
        const bool first = i == 0;
        const int start = anticausal ? N - (i + 1) * S : i * S;
        const std::vector<float> strip = {static_cast<float>(start), 0.0f, static_cast<float>(steady.real()),
                                          static_cast<float>(steady.imag())};
        Draw d = makeDraw(first ? firstStrip : carried,
                          {in, first ? Value{} : target[(i + 1) % 2], first && anticausal ? border : Value{}}, target[i % 2],
                          {{"u_strip", strip}, {"u_coef", vec4Of(poles[k], gains[k])}});
        const int lo = std::max(start, 0), hi = std::min(start + S, N);
        if (axis == 0) d.x = lo, d.y = 0, d.w = hi - lo, d.h = format_.height;
        else d.x = 0, d.y = lo, d.w = format_.width, d.h = hi - lo;
        step.passes.push_back(std::move(d));
    }
    steps_.push_back(std::move(step));
    const FragmentShader& listed = strips == 1 ? firstStrip : carried;
    passes_.push_back({listed.name + " k=" + std::to_string(k + 1), describe(out),
                       std::to_string(strips) + " strip draws; " + describe(listed.cost)});
    // Merge: strip i lies in target i % 2.
    FragmentWriter m(std::string("recursive.merge ") + axisName(axis) + " S=" + std::to_string(S) +
                         (anticausal ? " anticausal" : " causal"),
                     !packed_);
    m.input(0, out);
    m.input(1, out);
    const std::string a = axis == 0 ? "pos.x" : "pos.y";
    const std::string index = anticausal ? "floor((" + f(N - 1) + " - floor(" + a + ")) / " + f(S) + ")"
                                         : "floor(floor(" + a + ") / " + f(S) + ")";
    m.line("float strip = " + index + ";", 3);
    // Both fetched at the top level, then selected (a fetch inside a branch keeps vc4 at 1 thread).
    m.line("vec4 even = " + m.fetchRaw(0, "") + ", odd = " + m.fetchRaw(1, "") + ";", 0);
    m.line("", 2);
    const Value merged = full(m.finishRaw("mod(strip, 2.0) < 0.5 ? even : odd"), {target[0], target[1]}, out);
    return merged;
}

FragmentPlanner::Value FragmentPlanner::recursiveAxis(const CascadeFloat& cf, int axis, const Value& in,
                                                      bool complexOut) {
    const auto [p, q] = polesOf(cf);
    const std::array<C, 3> a = sectionGains(p, cf.B), b = sectionGains(q, cf.B);
    const std::array<double, 6> bounds = sectionBounds(cf);
    // A Gaussian (complexOut false: real input, real poles' pair) has exactly real outputs from
    // its first and third sections; the conjugate pair's first member is complex.
    auto complexAt = [&](int k) { return complexOut || k == 1; };
    Value causal[3];
    Value v = in;
    for (int k = 0; k < 3; ++k) {
        causal[k] = section(cf, axis, k, false, v, Value{}, planeFormat(complexAt(k), in.format.bound * bounds[k]));
        v = causal[k];
    }
    // The anticausal start: one draw per section writes its state at the end of the line to
    // texel 0 (along the axis) of its own plane.
    const int N = axis == 0 ? format_.width : format_.height;
    const std::array<C, 3> A{a[0], a[0] * a[1], a[0] * a[1] * a[2]};
    const std::array<C, 3> Ab{b[0], b[0] * b[1], b[0] * b[1] * b[2]};
    const PlaneFormat causalFormats[3] = {causal[0].format, causal[1].format, causal[2].format};
    const auto g = [&](int k) { return C(cf.gr[k], cf.gi[k]); };
    Value border[3];
    for (int j = 0; j < 3; ++j) {
        const PlaneFormat format = planeFormat(complexAt(j), in.format.bound * bounds[3 + j]);
        border[j] = Value{acquire(format), format};
        const auto m = [&](int k) { return C(cf.mr[j][k], cf.mi[j][k]); };
        const C steady = static_cast<double>(cf.B) * g(2) * C(cf.hr[j], cf.hi[j]);
        std::vector<float> u;
        for (const auto& [x, y] : {std::pair{1.0 / A[0], 1.0 / A[1]}, std::pair{1.0 / A[2], g(0)}, std::pair{g(1), g(2)},
                                   std::pair{m(0), m(1)}, std::pair{m(2), steady}})
            for (float value : vec4Of(x, y)) u.push_back(value);
        u.insert(u.end(), {static_cast<float>(Ab[j].real()), static_cast<float>(Ab[j].imag()), static_cast<float>(N - 0.5), 0.0f});
        const FragmentShader shader = borderShader(!packed_, axis, causalFormats, in.format, border[j].format);
        Draw d = makeDraw(shader, {causal[0], causal[1], causal[2], in}, border[j], {{"u_border", u}});
        if (axis == 0) d.x = 0, d.y = 0, d.w = 1, d.h = format_.height;
        else d.x = 0, d.y = 0, d.w = format_.width, d.h = 1;
        steps_.push_back(DrawStep{{d}, false, -1});
        passes_.push_back({shader.name + " k=" + std::to_string(j + 1), describe(border[j].format),
                           "1 draw of one texel per line; " + describe(shader.cost)});
    }
    v = causal[2];
    for (int k = 0; k < 3; ++k) {
        const Value next = section(cf, axis, k, true, v, border[k], planeFormat(complexAt(k), in.format.bound * bounds[3 + k]));
        v = next;
    }
    return v;
}

FragmentPlanner::Value FragmentPlanner::tapsAxis(const GaborTaps& taps, int axis, const Value& in, bool complexOut,
                                                 const std::string& what, const Tail* tail) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    // |z| <= max |input| x the taps' L1 norm; re and im are each within |z|.
    const PlaneFormat out = planeFormat(complexOut, in.format.bound * tapsL1(taps));
    // As many tap pairs per pass as fit; later passes add to the accumulated sum (same bound:
    // every partial sum is within the L1 norm of all taps). The last one ends in the tail, if
    // that fits with one pair at least; else the tail is a draw of its own.
    Value acc;
    int k0 = 1;
    do {
        const bool centre = k0 == 1;
        const auto shader = [&](int count, bool withTail, bool byOffsets) {
            return withTail ? tapsShader(!packed_, what, k0, count, centre, axis, byOffsets, in.format, out, tail->shader)
                            : tapsShader(!packed_, what, k0, count, centre, axis, byOffsets, in.format, out, out);
        };
        // The pairs this pass takes, and whether the tail fits with them, in either form.
        struct Split {
            int count;
            bool withTail;
        };
        const auto split = [&](bool byOffsets) {
            Split p{R - k0 + 1, tail != nullptr && fits(shader(R - k0 + 1, true, byOffsets).cost, limits_.budget)};
            if (!p.withTail)  // the tail goes with the last pair only
                p.count = largestFitting(1, tail ? p.count - 1 : p.count,
                                         [&](int n) { return fits(shader(n, false, byOffsets).cost, limits_.budget); });
            return p;
        };
        // Packed inputs are read at offsets the draw gives (vc4: one instruction a fetch fewer)
        // unless their uniforms leave the pass fewer pairs (tight's budget); float planes at pixel
        // offsets (llvmpipe ran the offsets' form 10% slower; V3D's passes are bound by fetches).
        Split taken = split(false);
        bool byOffsets = false;
        if (takesCodes(in.format)) {
            const Split offsets = split(true);
            if (offsets.count >= taken.count && offsets.withTail >= taken.withTail) taken = offsets, byOffsets = true;
        }
        const int count = taken.count;
        const bool withTail = taken.withTail;
        if (count == 0 && !centre) {
            fail("gles-fragment: not even one tap pair of " + what + " fits the board's budget");
            break;
        }
        Uniforms uniforms;
        uniforms.push_back({"u_taps", tapsUniform(taps, k0, count, centre, in.format)});
        if (byOffsets) {
            const Plane& plane = planes_[in.plane];
            uniforms.push_back({"u_offsets", tapsOffsets(k0, count, axis == 0 ? plane.width : plane.height)});
        }
        std::vector<Value> inputs{in};
        if (!centre) inputs.push_back(acc);
        if (withTail) {
            inputs.resize(2);  // the tail's inputs from slot 2
            inputs.insert(inputs.end(), tail->inputs.begin(), tail->inputs.end());
            uniforms.insert(uniforms.end(), tail->uniforms.begin(), tail->uniforms.end());
            return full(shader(count, true, byOffsets), inputs, tail->shader.format, uniforms);
        }
        const Value next = full(shader(count, false, byOffsets), inputs, out, uniforms);
        acc = next;
        k0 += count;
    } while (k0 <= R && status_);
    return tail && status_ ? applyTail(acc, *tail) : acc;
}

FragmentPlanner::Value FragmentPlanner::applyTail(const Value& z, const Tail& tail) {
    FragmentWriter w(tail.shader.name, !packed_);
    w.input(0, z.format);
    w.line("vec2 z = " + w.fetch(0, "") + ";", 0);
    const std::string value = tail.shader.code(w, 1);
    std::vector<Value> inputs{z};
    inputs.insert(inputs.end(), tail.inputs.begin(), tail.inputs.end());
    return full(w.finish(value, tail.shader.format), inputs, tail.shader.format, tail.uniforms);
}

bool FragmentPlanner::response(const CascadeFloat& cf, bool onQuads, GaborTaps* taps, double weight) const {
    recursiveFormsApply_ = true;
    const double base = packed_ ? kPackedResponseTail : kResponseTail;
    const double cut = weight < 1 ? kWeightedShare * base / std::max(weight, base) : base;
    if (!responseTaps(cf, cut, taps)) return false;
    switch (options_.recursiveForm) {
    case RecursiveForm::Response: return true;
    case RecursiveForm::Strips:
    case RecursiveForm::Block: return false;
    case RecursiveForm::Auto: break;
    }
    return onQuads || 2 * static_cast<int>(taps->c.size()) - 1 <= kMaxResponseTaps;
}

FragmentPlanner::Value FragmentPlanner::recursive(const CascadeFloat& cf, int axis, const Value& in, bool complexOut,
                                                  const Tail* tail, double weight) {
    GaborTaps taps;
    if (response(cf, false, &taps, weight)) return tapsAxis(taps, axis, in, complexOut, "recursive.response", tail);
    const Value v = recursiveAxis(cf, axis, in, complexOut);
    return tail && status_ ? applyTail(v, *tail) : v;
}

} // namespace striate::gles
