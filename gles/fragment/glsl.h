#pragma once

#include <string>

#include "gles/fragment/shader_writer.h"

/// Small helpers of gles-fragment's shader generators and planners: GLSL literals and names,
/// offsets along an axis, and how --explain describes planes and costs.
namespace striate::gles {

inline std::string f(double v) { return glslFloat(v); }
/// "x3": a generated variable name (appended: GCC 12 warns falsely on literal + to_string, PR 105329).
inline std::string named(const char* prefix, int n) {
    std::string s = prefix;
    s += std::to_string(n);
    return s;
}

/// Pixel offset along an axis as a GLSL vec2.
inline std::string along(int axis, double d) { return axis == 0 ? "vec2(" + f(d) + ", 0.0)" : "vec2(0.0, " + f(d) + ")"; }
/// Texel-centre coordinate `c` (an expression, in pixels) along the axis, the fragment's across it.
inline std::string at(int axis, const std::string& c) { return axis == 0 ? "vec2(" + c + ", pos.y)" : "vec2(pos.x, " + c + ")"; }
inline const char* axisName(int axis) { return axis == 0 ? "x" : "y"; }

inline std::string describe(const PlaneFormat& p) {
    std::string s = p.kind == PlaneKind::Float   ? (p.complex ? "RG32F" : "R32F")
                    : p.kind == PlaneKind::Quad  ? "RGBA32F quad"
                    : p.kind == PlaneKind::Quad8 ? "RGBA8 quad of 8-bit codes"
                    : p.kind == PlaneKind::QuadRows ? "RGBA32F quad, rows in 4 layers"
                    : p.kind == PlaneKind::Luma8 ? "L8"
                    : p.kind == PlaneKind::Pair  ? "RGBA8 packed, two pixels a texel,"
                    : p.kind == PlaneKind::RowPair ? "RGBA8 packed, two rows a texel,"
                                                 : "RGBA8 packed";
    s += p.complex ? " complex" : " real";
    if (holdsCodes(p.kind)) s += ", |v| <= " + f(p.bound);
    return s;
}

inline std::string describe(const ShaderCost& c) {
    return std::to_string(c.alu) + " ALU, " + std::to_string(c.fetches) + " fetches" +
           (c.wideFetches ? " (" + std::to_string(c.wideFetches) + " wide)" : std::string()) + ", depth " +
           std::to_string(c.dependentDepth) + ", " + std::to_string(c.uniforms) + " uniforms";
}

inline bool fits(const ShaderCost& c, const ShaderCost& budget) {
    return c.alu <= budget.alu && c.fetches <= budget.fetches && c.dependentDepth <= budget.dependentDepth &&
           c.uniforms <= budget.uniforms && (budget.wideFetches == 0 || c.wideFetches <= budget.wideFetches);
}

/// The largest n in [lo, hi] for which fitsAt(n) holds, or lo - 1 where none does. fitsAt must
/// be monotone: a shader with more taps, rows or columns never costs less. A bisection writes
/// log2(hi - lo) candidate shaders where counting down wrote up to hi - lo of them, each of up to
/// hundreds of lines (a Gabor line of 177 taps planned 31 pairs a pass by writing ~150 shaders
/// for each pass: 56 s of one chain's planning under qemu).
template <class FitsAt> int largestFitting(int lo, int hi, FitsAt fitsAt) {
    if (hi < lo) return lo - 1;
    if (fitsAt(hi)) return hi;
    int yes = lo - 1, no = hi;  // the answer lies in [yes, no)
    while (no - yes > 1) {
        const int mid = yes + (no - yes) / 2;
        (fitsAt(mid) ? yes : no) = mid;
    }
    return yes;
}

} // namespace striate::gles
