#include "gles/fragment_shaders.h"

#include <cstdio>

namespace striate::gles {

std::string glslFloat(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

double decodePacked(unsigned char hi, unsigned char lo, const PlaneFormat& format) {
    const double code = hi * 256.0 + lo;
    return format.nonNegative ? code / 65535.0 * format.bound : (code / 65535.0 - 0.5) * 2.0 * format.bound;
}

namespace {

/// "f0(arg)": one of the per-input helper functions (built by appending: GCC 12 warns falsely
/// on chains of operator+ that start from a literal, PR 105329).
std::string call(char prefix, int slot, const std::string& arg) {
    std::string s(1, prefix);
    s += std::to_string(slot);
    s += '(';
    s += arg;
    s += ')';
    return s;
}

} // namespace

FragmentWriter::FragmentWriter(std::string name, bool es3) : name_(std::move(name)), es3_(es3) {
}

void FragmentWriter::input(int slot, const PlaneFormat& f) {
    if (static_cast<int>(inputs_.size()) <= slot) inputs_.resize(slot + 1);
    inputs_[slot] = f;
    const std::string s = std::to_string(slot);
    // p is in the input's pixels; u_texelN = 1 / (its width, height).
    const std::string t = "TEX(s" + s + ", p * u_texel" + s + ")";
    declarations_ += "uniform highp sampler2D s" + s + ";\n";  // samplers default to lowp
    declarations_ += "uniform vec2 u_texel" + s + ";\n";
    ++cost_.uniforms;
    std::string value;
    switch (f.kind) {
    case PlaneKind::Luma8: value = "vec2(" + t + ".r, 0.0)"; break;
    case PlaneKind::Float: value = f.complex ? t + ".rg" : "vec2(" + t + ".r, 0.0)"; break;
    case PlaneKind::Packed: {
        // code = 65280 hi + 255 lo from the normalised bytes; value = (code / 65535 - 0.5) 2 bound,
        // or code / 65535 bound for a non-negative plane.
        const std::string scale = glslFloat((f.nonNegative ? 1.0 : 2.0) * f.bound / 65535.0);
        const std::string offset = glslFloat(f.nonNegative ? 0.0 : f.bound);
        declarations_ += "vec2 d" + s + "(vec4 t) { return vec2(dot(t.rg, vec2(65280.0, 255.0)), " +
                         (f.complex ? "dot(t.ba, vec2(65280.0, 255.0))" : std::string("0.0")) + ") * " + scale +
                         " - vec2(" + offset + ", " + (f.complex ? offset : std::string("0.0")) + ");\n}\n";
        value = "d" + s + "(" + t + ")";
        break;
    }
    }
    declarations_ += "vec2 f" + s + "(vec2 p) { return " + value + "; }\n";
    declarations_ += "vec4 r" + s + "(vec2 p) { return " + t + "; }\n";
}

void FragmentWriter::uniform(const std::string& name) {
    declarations_ += "uniform vec4 " + name + ";\n";
    ++cost_.uniforms;
}

std::string FragmentWriter::fetchAt(int slot, const std::string& texel) {
    const PlaneFormat& f = inputs_.at(slot);
    cost_.fetches += 1;
    cost_.alu += 1;  // the coordinate
    if (f.kind == PlaneKind::Packed) cost_.alu += f.complex ? 3 : 2;
    return call('f', slot, texel);
}

std::string FragmentWriter::fetch(int slot, const std::string& offset) {
    return fetchAt(slot, offset.empty() ? "pos" : "(pos + " + offset + ")");
}

std::string FragmentWriter::fetchRaw(int slot, const std::string& offset) {
    cost_.fetches += 1;
    cost_.alu += 1;
    return call('r', slot, offset.empty() ? std::string("pos") : "(pos + " + offset + ")");
}

void FragmentWriter::line(const std::string& code, int alu) {
    body_ += "    " + code + "\n";
    cost_.alu += alu;
}

namespace {

const char* kPrelude100 =
    "#version 100\n"
    "#define TEX texture2D\n"
    "#define OUT_COLOR gl_FragColor\n"
    "precision highp float;\n";
const char* kPrelude300 =
    "#version 300 es\n"
    "#define TEX texture\n"
    "precision highp float;\n"
    "out highp vec4 outColor;\n"
    "#define OUT_COLOR outColor\n";

// Packed codes (ALGORITHMS.md 5): e() for [-bound, bound], u() for non-negative [0, bound].
const char* kEncode =
    "vec2 bytes(float c) {\n"
    "    float hi = floor(c / 256.0);\n"
    "    return vec2(hi, c - 256.0 * hi) / 255.0;\n"
    "}\n"
    "vec2 e(float v, float bound) { return bytes(floor(clamp(v / (2.0 * bound) + 0.5, 0.0, 1.0) * 65535.0 + 0.5)); }\n"
    "vec2 u(float v, float bound) { return bytes(floor(clamp(v / bound, 0.0, 1.0) * 65535.0 + 0.5)); }\n";

} // namespace

FragmentShader FragmentWriter::finish(const std::string& value, const PlaneFormat& out) {
    std::string store;
    if (out.kind == PlaneKind::Packed) {
        const std::string b = glslFloat(out.bound), e = out.nonNegative ? "u" : "e";
        store = out.complex ? "vec4(" + e + "(result.x, " + b + "), " + e + "(result.y, " + b + "))"
                            : "vec4(" + e + "(result.x, " + b + "), 0.0, 1.0)";
        cost_.alu += out.complex ? 14 : 7;
    } else {
        store = "vec4(result, 0.0, 1.0)";
    }
    line("vec2 result = " + value + ";", 0);
    line("OUT_COLOR = " + store + ";", 1);
    return finishRaw("");
}

FragmentShader FragmentWriter::finishRaw(const std::string& value) {
    if (!value.empty()) line("OUT_COLOR = " + value + ";", 1);
    FragmentShader f;
    f.name = name_;
    f.source = std::string(es3_ ? kPrelude300 : kPrelude100) + kEncode + declarations_ + "void main() {\n    vec2 pos = gl_FragCoord.xy;\n" +
               body_ + "}\n";
    f.cost = cost_;
    return f;
}

} // namespace striate::gles
