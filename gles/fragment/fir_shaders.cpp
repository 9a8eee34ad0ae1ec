#include "gles/fragment/fir_shaders.h"

#include <cmath>
#include <cstdlib>
#include <functional>

#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// Declares the weights (float g0..gR and their sum) and returns tap |k|'s expression for k in
/// [-R, R], "0.0" outside: a named float of the direct Gaussian, a constant of the response.
std::function<std::string(int)> declareWeights(FragmentWriter& w, const QuadWeights& q) {
    const int R = q.radius();
    if (q.direct()) {
        const double r = std::exp(-0.5 / (q.sigma * q.sigma));
        w.line("vec3 g = vec3(1.0, " + f(r) + ", " + f(r * r) + ");", 0);
        w.line("float g0 = 1.0;", 0);
        w.line("float weight = 1.0;", 0);
        for (int k = 1; k <= R; ++k) {
            w.line("g.xy *= g.yz;", 1);
            w.line("float " + named("g", k) + " = g.x;", 0);
            w.line("weight += 2.0 * g.x;", 1);
        }
    }
    return [q, R](int k) -> std::string {
        k = std::abs(k);
        if (k > R) return "0.0";
        if (q.direct()) return named("g", k);
        return f(q.taps[k]);
    };
}

} // namespace

/// The direct Gaussian of one axis with R incremental taps (docs/algorithms.md 2.1), fully unrolled.
/// `shift`: the input pixel under output pixel x is x + shift along the axis (padding and cropping).
FragmentShader directShader(bool es3, double sigma, int R, int axis, const PlaneFormat& in, const PlaneFormat& out,
                            int shift, bool tiled) {
    FragmentWriter w(std::string("blur.direct ") + axisName(axis) + " sigma=" + f(sigma) + " R=" + std::to_string(R) +
                         (shift < 0 ? " (pads)" : shift > 0 ? " (crops)" : "") +
                         (tiled ? (axis == 0 ? ", a tile of rows" : ", from a tile") : ""),
                     es3);
    w.input(0, in, tiled);
    const double q = std::exp(-0.5 / (sigma * sigma));
    w.line("vec3 g = vec3(1.0, " + f(q) + ", " + f(q * q) + ");", 0);
    w.line("float sum = " + w.fetch(0, shift ? along(axis, shift) : "") + ".x;", 0);
    w.line("float weight = 1.0;", 0);
    for (int k = 1; k <= R; ++k) {
        w.line("g.xy *= g.yz;", 1);
        const std::string a = w.fetch(0, along(axis, shift - k)), b = w.fetch(0, along(axis, shift + k));
        w.line("sum += g.x * (" + a + ".x + " + b + ".x);", 2);
        w.line("weight += 2.0 * g.x;", 1);
    }
    return w.finish("vec2(sum / weight, 0.0)", out);
}

FragmentShader pairShader(bool es3, double sigma, int R, int axis, const PlaneFormat& in, const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.direct ") + axisName(axis) + " sigma=" + f(sigma) + " R=" + std::to_string(R) +
                         ", two pixels per fragment",
                     es3);
    w.input(0, in);
    const std::vector<double> g = gaussianTaps(sigma);  // normalised: the taps sum to 1
    const auto tap = [&](int k) { return std::abs(k) <= R ? g[std::abs(k)] : 0.0; };
    const bool codes = holdsCodes(in.kind);
    // Inputs are read at a texture coordinate plus offsets the draw gives scaled (u_offsets,
    // tapsOffsets(-R, ...): tap -R + i at component i % 4 of vector i / 4), one addition a fetch.
    const int offsets = axis == 0 ? 2 * R + 2 : 2 * R + 1;
    w.uniformArray("u_offsets", (offsets + 3) / 4);
    w.line("vec2 sum = vec2(0.0);", 0);
    if (axis == 0) {
        // Pixel x0 + m, m = -R..R + 1, weighs into the first pixel with tap m, the second with
        // tap m - 1: each fetched once, added to both sums as it comes. Past the frame's last
        // column (u_frame.x) both are that column's value.
        w.uniform("u_frame");
        w.line("float x0 = min(2.0 * floor(pos.x), u_frame.x) + 0.5;", 3);
        w.line("vec2 t0 = vec2(x0, pos.y) * u_texel0;", 2);
        for (int m = -R; m <= R + 1; ++m) {
            const std::string at = "vec2(t0.x + " + offsetUniform(m + R) + ", t0.y)";
            const std::string value = (codes ? w.fetchCodesNormalised(0, at) : w.fetchNormalised(0, at)) + ".x";
            w.line("sum += vec2(" + f(tap(m)) + ", " + f(tap(m - 1)) + ") * " + value + ";", 2);
        }
        w.line("sum.y = x0 > u_frame.x ? sum.x : sum.y;", 2);
    } else {
        w.line("vec2 tc = pos * u_texel0;", 2);
        for (int k = -R; k <= R; ++k)
            w.line("sum += " + f(tap(k)) + " * " + w.fetchCodesNormalised(0, "vec2(tc.x, tc.y + " + offsetUniform(k + R) + ")") + ";", 2);
    }
    return w.finish(codes ? "sum * u_code0.x - u_code0.y" : "sum", out);
}

/// Taps first..last of one extended box (docs/algorithms.md 2.2) as a weighted sum, added to an
/// accumulator (slot 1) unless `first` is 0; `shift` maps output to input pixels (padding).
FragmentShader boxTapsShader(bool es3, const ExtendedBox& box, int first, int last, int axis, int shift,
                             const PlaneFormat& in, const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " r=" + std::to_string(box.r) + " taps " +
                         std::to_string(first) + ".." + std::to_string(last) +
                         (shift < 0 ? " (pads)" : shift > 0 ? " (crops)" : ""),
                     es3);
    w.input(0, in);
    std::string sum;
    // Tap t = -r-1 .. r+1 is index t + r + 1; the outer two weigh alpha.
    for (int i = first; i <= last; ++i) {
        const int t = i - box.r - 1;
        const bool end = t == -box.r - 1 || t == box.r + 1;
        sum += (sum.empty() ? "" : " + ") + (end ? f(box.alpha) + " * " : std::string()) + w.fetch(0, along(axis, shift + t)) + ".x";
        w.line("", end ? 2 : 1);
    }
    if (first > 0) {
        w.input(1, out);
        w.line("float acc = " + w.fetch(1, "") + ".x;", 1);
        return w.finish("vec2(acc + (" + sum + ") * " + f(1.0 / box.norm) + ", 0.0)", out);
    }
    return w.finish("vec2((" + sum + ") * " + f(1.0 / box.norm) + ", 0.0)", out);
}

Pyramid pyramidOf(int length) {
    Pyramid p;
    p.offset.assign(1, 0);
    p.size.assign(1, length);
    for (int k = 1; (length >> k) >= 1; ++k) {
        p.levels = k;
        p.offset.push_back(p.atlasSize[k % 2]);
        p.size.push_back(length >> k);  // whole blocks only: a prefix never needs a partial one
        p.atlasSize[k % 2] += length >> k;
    }
    return p;
}

/// One pyramid level from the one below: block i = block 2i + block 2i + 1 below. Level 1 reads
/// the line (slot 0, sample j at texel j + shift, clamped), higher levels the other atlas.
FragmentShader pyramidLevelShader(bool es3, int axis, int level, int shift, int below, int here, const PlaneFormat& in,
                                  const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " sum pyramid level " + std::to_string(level), es3);
    w.input(0, in);
    const std::string c = axis == 0 ? "pos.x" : "pos.y";
    // Block i sits at texel `here` + i; its halves at 2i and 2i + 1 of the level below.
    w.line("float i = " + c + " - " + f(here + 0.5) + ";", 1);
    const std::string base = level == 1 ? f(shift + 0.5) : f(below + 0.5);
    w.line("float lo = " + base + " + 2.0 * i;", 2);
    return w.finish("vec2(" + w.fetchAt(0, at(axis, "lo")) + ".x + " + w.fetchAt(0, at(axis, "lo + 1.0")) + ".x, 0.0)", out);
}

/// One extended box (docs/algorithms.md 2.2) from the pyramid: the |t| <= r part is S(x + r + 1) -
/// S(x - r), each prefix S(n) the sum of one block per set bit of n (coordinates from x alone, no
/// dependent reads), differenced level by level from the top so the common blocks cancel exactly;
/// the two alpha taps are fetched directly. Outside [0, P] the prefix extends by the end samples
/// (the replicate-padded line). Slots: 0 the line (sample j at texel j + shift), 1 the even
/// levels' atlas, 2 the odd levels'.
FragmentShader pyramidBoxShader(bool es3, int axis, const ExtendedBox& box, const Pyramid& p, int length, int shift,
                                int outShift, const PlaneFormat& in, const PlaneFormat& atlas, const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " r=" + std::to_string(box.r) + " from the sum pyramid" +
                         (outShift > 0 ? " (crops)" : ""),
                     es3);
    w.input(0, in);
    w.input(1, atlas);
    w.input(2, atlas);
    const std::string c = axis == 0 ? "pos.x" : "pos.y";
    auto line = [&](const std::string& j) { return w.fetchAt(0, at(axis, "(" + j + ") + " + f(shift + 0.5))) + ".x"; };
    w.line("float x = " + c + " - 0.5 + " + f(outShift) + ";", 2);
    w.line("float na = x - " + f(box.r) + ", nb = x + " + f(box.r + 1) + ";", 2);
    // The line's prefix beyond its ends: the replicated first and last samples.
    w.line("float first = " + line("0.0") + ", last = " + line(f(length - 1)) + ";", 0);
    w.line("float d = (min(nb, 0.0) - min(na, 0.0)) * first + (max(nb - " + f(length) + ", 0.0) - max(na - " + f(length) +
               ", 0.0)) * last;",
           6);
    w.line("float a = clamp(na, 0.0, " + f(length) + "), b = clamp(nb, 0.0, " + f(length) + ");", 2);
    for (int k = p.levels; k >= 0; --k) {
        const double step = std::ldexp(1.0, k), twice = std::ldexp(1.0, k + 1);
        const std::string ka = named("ha", k), kb = named("hb", k);
        // bit k of n: floor(n / 2^k) - 2 floor(n / 2^(k+1)); the block: 2 floor(n / 2^(k+1)).
        w.line("float " + ka + " = floor(a / " + f(twice) + "), " + kb + " = floor(b / " + f(twice) + ");", 4);
        auto block = [&](const std::string& h) {
            // A block past the level (its bit is 0 then) is read within the level: weight 0
            // times a finite value.
            const std::string index = "min(2.0 * " + h + ", " + f(p.size[k] - 1) + ")";
            if (k == 0) return line(index);
            return w.fetchAt(k % 2 == 0 ? 1 : 2, at(axis, index + " + " + f(p.offset[k] + 0.5))) + ".x";
        };
        w.line("d += (floor(b / " + f(step) + ") - 2.0 * " + kb + ") * " + block(kb) + " - (floor(a / " + f(step) +
                   ") - 2.0 * " + ka + ") * " + block(ka) + ";",
               8);
    }
    w.line("d += " + f(box.alpha) + " * (" + line("x - " + f(box.r + 1)) + " + " + line("x + " + f(box.r + 1)) + ");", 3);
    return w.finish("vec2(d * " + f(1.0 / box.norm) + ", 0.0)", out);
}

/// Four neighbouring pixels of a plane (read per pixel) into each texel of a Quad plane with
/// `pad` texels of border on each side: texel t holds pixels 4 (t - pad) + j, which the input's
/// clamp to its edge turns into the first or last pixel past the row's ends (the replicate
/// border, so the horizontal pass needs no border logic).
FragmentShader quadPackShader(bool es3, const PlaneFormat& in, int pad) {
    FragmentWriter w("quad.pack pad=" + std::to_string(pad), es3);
    w.input(0, in);
    w.line("vec2 b = vec2(4.0 * (floor(pos.x) - " + f(pad) + ") + 0.5, pos.y);", 2);
    std::string v = "vec4(";
    for (int j = 0; j < 4; ++j) {
        v += w.fetchAt(0, j ? "(b + vec2(" + f(j) + ", 0.0))" : std::string("b")) + ".x";
        v += j < 3 ? ", " : ")";
    }
    return w.finishRaw(v);
}

FragmentShader phaseShader(const std::string& what, int R, bool complexOut, const PlaneFormat& out) {
    const int P = quadPad(R), texels = 2 * P + 1;
    FragmentWriter w(what + " x " + std::to_string(R) + " tap pairs and the centre, four pixels a fetch, a draw a phase",
                     false);
    w.input(0, PlaneFormat{PlaneKind::Quad8, false, 1, true});
    w.uniformArray("u_wre", texels);
    if (complexOut) w.uniformArray("u_wim", texels);
    w.uniformArray("u_offsets", (texels + 3) / 4);
    w.uniform("u_phase");
    w.line("vec2 tc = vec2(pos.x + u_phase.x, pos.y) * u_texel0;", 3);
    w.line("vec2 z = vec2(0.0);", 0);
    for (int m = 0; m < texels; ++m) {
        const std::string i = std::to_string(m);
        w.line("vec4 " + named("t", m) + " = " +
                   w.fetchRawNormalised(0, "vec2(tc.x + " + offsetUniform(m) + ", tc.y)") +
                   ";",
               0);
        w.line("z.x += dot(" + named("t", m) + ", u_wre[" + i + "]);", 8);
        if (complexOut) w.line("z.y += dot(" + named("t", m) + ", u_wim[" + i + "]);", 8);
    }
    return w.finish(complexOut ? "z" : "vec2(z.x, 0.0)", out);
}

std::vector<float> phaseWeights(const GaborTaps& taps, int k, bool imaginary) {
    const int R = static_cast<int>(taps.c.size()) - 1, P = quadPad(R);
    std::vector<float> u(static_cast<std::size_t>(4 * (2 * P + 1)), 0.0f);
    for (int m = -P; m <= P; ++m)
        for (int l = 0; l < 4; ++l) {
            // tapsShader: c_t (a + b) + i s_t (a - b), a the pixel at -t and b at +t.
            const int d = 4 * m + l - k, t = std::abs(d);
            if (t > R) continue;
            u[static_cast<std::size_t>(4 * (m + P) + l)] = !imaginary ? taps.c[t] : d < 0 ? taps.s[t] : d > 0 ? -taps.s[t] : 0.0f;
        }
    return u;
}

/// The horizontal pass from a padded Quad plane (quadPackShader) into an unpadded one: output
/// texel q holds pixels 4q..4q+3, each the FIR of the pixels around it. Texel q + m brings
/// pixels 4(q + m) + j, which weigh into output lane i with tap 4m + j - i.
FragmentShader quadRowsShader(bool es3, const std::string& what, const QuadWeights& q, bool tiled) {
    const int R = q.radius(), pad = quadPad(R);
    FragmentWriter w(what + " x R=" + std::to_string(R) + " on quads" + (tiled ? ", a tile of rows" : ""), es3);
    w.input(0, PlaneFormat{PlaneKind::Quad, false, 1, false}, tiled);
    const auto tap = declareWeights(w, q);
    w.line("vec4 acc = vec4(0.0);", 0);
    for (int m = -pad; m <= pad; ++m) {
        bool first = true;
        for (int j = 0; j < 4; ++j) {
            const std::string weights[4] = {tap(4 * m + j), tap(4 * m + j - 1), tap(4 * m + j - 2), tap(4 * m + j - 3)};
            if (weights[0] == "0.0" && weights[1] == "0.0" && weights[2] == "0.0" && weights[3] == "0.0") continue;
            if (first) w.line("vec4 " + named("v", m + pad) + " = " + w.fetchRaw(0, along(0, m + pad)) + ";", 0);
            first = false;
            w.line("acc += " + named("v", m + pad) + "." + "xyzw"[j] + " * vec4(" + weights[0] + ", " + weights[1] + ", " +
                       weights[2] + ", " + weights[3] + ");",
                   1);
        }
    }
    return w.finishRaw(q.direct() ? "acc / weight" : "acc");
}

/// The vertical pass of a Quad plane into a QuadRows one: four rows of four columns per
/// fragment, each input texel fetched once for the four (2R + 4 fetches for sixteen outputs).
/// Output texel row Y holds rows 4Y + j in layer j. Where 2R + 4 fetches exceed the budget the
/// pass is split by input rows: this draw sums rows e = e0..e1 (of -R..R + 3 around 4Y) onto the
/// previous draw's sums (slot 1, read raw per layer); the last one also normalises.
FragmentShader quadRowsColumnsShader(bool es3, const std::string& what, const QuadWeights& q, int e0, int e1,
                                     bool tiled) {
    const int R = q.radius();
    const bool whole = e0 == -R && e1 == R + 3, last = e1 == R + 3;
    std::string name = what + " y R=" + std::to_string(R) + " on quads, four rows per fragment";
    if (!whole) name += ", input rows " + std::to_string(e0) + ".." + std::to_string(e1);
    if (tiled) name += ", from a tile";
    FragmentWriter w(name, es3);
    w.input(0, PlaneFormat{PlaneKind::Quad, false, 1, false}, tiled);
    if (e0 > -R) w.input(1, PlaneFormat{PlaneKind::QuadRows, false, 1, false});
    const auto tap = declareWeights(w, q);
    w.line("vec2 b = vec2(pos.x, 4.0 * floor(pos.y) + 0.5);", 2);
    for (int j = 0; j < 4; ++j)
        w.line("vec4 " + named("a", j) + " = " + (e0 > -R ? w.fetchLayerAt(1, "pos", j) : std::string("vec4(0.0)")) + ";", 0);
    for (int e = e0; e <= e1; ++e) {
        w.line("vec4 " + named("t", e + R) + " = " + w.fetchRawAt(0, "(b + " + along(1, e) + ")") + ";", 0);
        for (int j = 0; j < 4; ++j)
            if (std::abs(e - j) <= R) w.line(named("a", j) + " += " + tap(e - j) + " * " + named("t", e + R) + ";", 1);
    }
    auto row = [&](int j) { return q.direct() && last ? named("a", j) + " / weight" : named("a", j); };
    return w.finishRows({row(0), row(1), row(2), row(3)});
}

namespace {

/// Direct Gabor taps of one axis, the centre and `count` pairs, or `count` pairs added to an
/// accumulator (slot 1), in the cpu backend's order: the pair at -/+k summed first
/// (cpu/neon/lines.cpp); then the tail, if any.
FragmentShader tapsShader(bool es3, const std::string& what, int first, int count, bool withCentre, int axis,
                          bool byOffsets, const PlaneFormat& in, const PlaneFormat& acc, const PlaneFormat& out,
                          const ShaderTail* tail) {
    // The taps are uniforms (tapsUniform()), so every orientation shares the program.
    // A real input under real taps (a recursive Gaussian's response) keeps only the real part.
    const bool real = !in.complex && !out.complex && !tail;
    FragmentWriter w(what + " " + axisName(axis) + " " + std::to_string(count) + " tap pairs" +
                         (withCentre                ? " and the centre"
                          : byOffsets               ? " added"  // the same program from any first tap
                                                    : " from " + std::to_string(first) + " added") +
                         (tail ? ", " + tail->name : std::string()),
                     es3);
    w.input(0, in);
    if (!withCentre) w.input(1, acc);
    w.uniformArray("u_taps", 1 + (count + 1) / 2);
    // A packed input is read as its codes, its map taken by the weights (tapsUniform): the codes'
    // offsets summed over the taps are u_taps[0].y, once.
    const bool codes = takesCodes(in);
    // Inputs are read at the pass's texture coordinate plus offsets the draw gives scaled
    // (u_offsets, tapsOffsets(): tap first + i's at component i % 4 of vector i / 4): one
    // addition a fetch.
    if (byOffsets) {
        w.uniformArray("u_offsets", std::max(1, (count + 3) / 4));
        w.line("vec2 tc = pos * u_texel0;", 2);
    }
    // Input 0 at texture coordinate `coordinate` (byOffsets) or pixel offset `offset`.
    const auto at = [&](const std::string& coordinate) {
        return codes ? w.fetchCodesNormalised(0, coordinate) : w.fetchNormalised(0, coordinate);
    };
    const auto atPixel = [&](const std::string& offset) { return codes ? w.fetchCodes(0, offset) : w.fetch(0, offset); };
    const auto offsetAt = [&](int i, const char* sign) {
        if (!byOffsets) {
            const std::string k = std::string(sign) + f(first + i);
            return atPixel(axis == 0 ? "vec2(" + k + ", 0.0)" : "vec2(0.0, " + k + ")");
        }
        const std::string along = std::string("tc.") + "xy"[axis] + " " + sign + " " + offsetUniform(i);
        return at(axis == 0 ? "vec2(" + along + ", tc.y)" : "vec2(tc.x, " + along + ")");
    };
    if (withCentre) w.line("vec2 z = u_taps[0].x * " + (byOffsets ? at("tc") : atPixel("")) + ";", 1);
    else w.line("vec2 z = " + w.fetch(1, "") + ";", 0);
    if (codes) w.line(std::string("z += vec2(u_taps[0].y, ") + (in.complex ? "u_taps[0].y" : "0.0") + ");", 2);
    for (int i = 0; i < count; ++i) {
        const std::string a = named("a", i), b = named("b", i);
        w.line("vec2 " + a + " = " + offsetAt(i, "-") + ", " + b + " = " + offsetAt(i, "+") + ";", 1);
        const std::string tap = "u_taps[" + std::to_string(1 + i / 2) + "]" + (i % 2 ? ".zw" : ".xy");
        if (in.complex) {
            addComplexPair(w, "z", a, b, tap);
        } else {
            w.line("z.x = z.x + (" + a + ".x + " + b + ".x) * " + tap + ".x;", 2);
            if (!real) w.line("z.y = z.y + (" + a + ".x - " + b + ".x) * " + tap + ".y;", 2);
        }
    }
    if (tail) return w.finish(tail->code(w, 2), tail->format);
    return w.finish(real ? "vec2(z.x, 0.0)" : "z", out);
}

} // namespace

FragmentShader tapsShader(bool es3, const std::string& what, int first, int count, bool withCentre, int axis,
                          bool byOffsets, const PlaneFormat& in, const PlaneFormat& acc, const PlaneFormat& out) {
    return tapsShader(es3, what, first, count, withCentre, axis, byOffsets, in, acc, out, nullptr);
}

FragmentShader tapsShader(bool es3, const std::string& what, int first, int count, bool withCentre, int axis,
                          bool byOffsets, const PlaneFormat& in, const PlaneFormat& acc, const ShaderTail& tail) {
    return tapsShader(es3, what, first, count, withCentre, axis, byOffsets, in, acc, tail.format, &tail);
}

bool takesCodes(const PlaneFormat& in) { return in.kind == PlaneKind::Packed; }

void addComplexPair(FragmentWriter& w, const std::string& z, const std::string& a, const std::string& b,
                    const std::string& tap) {
    w.line(z + ".x = " + z + ".x + (" + a + ".x + " + b + ".x) * " + tap + ".x;", 2);
    w.line(z + ".x = " + z + ".x - (" + a + ".y - " + b + ".y) * " + tap + ".y;", 2);
    w.line(z + ".y = " + z + ".y + (" + a + ".y + " + b + ".y) * " + tap + ".x;", 2);
    w.line(z + ".y = " + z + ".y + (" + a + ".x - " + b + ".x) * " + tap + ".y;", 2);
}

std::string offsetUniform(int i) {
    std::string s = "u_offsets[" + std::to_string(i / 4) + "].";
    s += "xyzw"[i % 4];
    return s;
}

bool sameTaps(const GaborTaps& a, const GaborTaps& b, float sine) {
    if (a.c.size() != b.c.size() || a.s.size() != b.s.size()) return false;
    for (std::size_t t = 0; t < a.c.size(); ++t)
        if (std::abs(a.c[t] - b.c[t]) > 1e-7f || std::abs(a.s[t] - sine * b.s[t]) > 1e-7f) return false;
    return true;
}

std::vector<float> tapsOffsets(int first, int count, int texels) {
    std::vector<float> offsets(4 * std::max(1, (count + 3) / 4), 0.0f);
    for (int i = 0; i < count; ++i) offsets[i] = static_cast<float>(first + i) / static_cast<float>(texels);
    return offsets;
}

std::vector<float> tapsUniform(const GaborTaps& taps, int first, int count, bool withCentre, const PlaneFormat& in) {
    // Values are codes x m[0] - m[1] (codeUniform) where the pass reads codes: the taps take
    // m[0], and the offsets -m[1] of the centre and of each pair's sum (the differences have
    // none) add up to one constant.
    const bool codes = takesCodes(in);
    const std::array<float, 2> m = codes ? codeUniform(in) : std::array<float, 2>{1.0f, 0.0f};
    double weights = withCentre ? taps.c[0] : 0.0;
    for (int i = first; i < first + count; ++i) weights += 2.0 * taps.c[i];
    std::vector<float> u = {withCentre ? taps.c[0] * m[0] : 0.0f, codes ? static_cast<float>(-m[1] * weights) : 0.0f,
                            0.0f, 0.0f};
    for (int i = first; i < first + count; ++i) u.insert(u.end(), {taps.c[i] * m[0], taps.s[i] * m[0]});
    if (count % 2) u.insert(u.end(), {0.0f, 0.0f});
    return u;
}

} // namespace striate::gles
