#include "gles/fragment/shader_writer.h"

#include <cstdio>

#include "gles/fragment/glsl.h"

namespace striate::gles {

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

void FragmentWriter::input(int slot, const PlaneFormat& f, bool shifted) {
    if (static_cast<int>(inputs_.size()) <= slot) inputs_.resize(slot + 1), shifted_.resize(slot + 1), normalised_.resize(slot + 1);
    inputs_[slot] = f;
    shifted_[slot] = shifted;
    const std::string s = std::to_string(slot);
    // p is in the input's pixels (shifted: the frame's, moved into the window's); u_texelN =
    // 1 / (its width, height).
    if (shifted) {
        declarations_ += "uniform vec4 u_shift" + s + ";\n";
        ++cost_.uniforms;
    }
    const std::string t = "TEX(s" + s + (shifted ? ", (p + u_shift" + s + ".xy) * u_texel" : ", p * u_texel") + s + ")";
    // Samplers default to lowp.
    declarations_ += std::string("uniform highp ") + (f.kind == PlaneKind::QuadRows ? "sampler2DArray s" : "sampler2D s") + s + ";\n";
    declarations_ += "uniform vec2 u_texel" + s + ";\n";
    ++cost_.uniforms;
    std::string value;
    switch (f.kind) {
    case PlaneKind::Quad:
    case PlaneKind::Quad8:
        // Read raw, a texel (four pixels) at a time, by the quad passes.
        declarations_ += "vec4 r" + s + "(vec2 p) { return " + t + "; }\n";
        return;
    case PlaneKind::QuadRows:
        // Pixel p, clamped to the plane's last (u_wN = (width, height) - 0.5): component
        // mod(floor(x), 4) of texel floor(x / 4) at row floor(y / 4) of layer mod(floor(y), 4).
        declarations_ += "uniform vec2 u_w" + s + ";\n";
        ++cost_.uniforms;
        declarations_ += "vec2 f" + s + "(vec2 p) {\n    vec2 c = clamp(p, vec2(0.5), u_w" + s + ");\n    vec4 t = TEX(s" + s +
                         ", vec3((floor(c * 0.25) + 0.5) * u_texel" + s + ", mod(floor(c.y), 4.0)));\n" +
                         "    return vec2(dot(t, vec4(equal(vec4(mod(floor(c.x), 4.0)), vec4(0.0, 1.0, 2.0, 3.0)))), 0.0);\n}\n";
        // Texel t of layer l, raw (fetchLayerAt: a quad pass that accumulates rows).
        declarations_ += "vec4 l" + s + "(vec2 t, float l) { return TEX(s" + s + ", vec3(t * u_texel" + s + ", l)); }\n";
        return;
    case PlaneKind::Pair:
    case PlaneKind::RowPair:
        // Read a texel at a time (p in texels): cN, both pixels' codes; rN the raw texel.
        declarations_ += "vec4 r" + s + "(vec2 p) { return " + t + "; }\n";
        declarations_ += "uniform vec2 u_code" + s + ";\n";
        ++cost_.uniforms;
        declarations_ += "vec2 k" + s + "(vec4 t) { return vec2(dot(t.rg, vec2(65280.0, 255.0)), dot(t.ba, vec2(65280.0, 255.0))); }\n";
        declarations_ += "vec2 c" + s + "(vec2 p) { return k" + s + "(" + t + "); }\n";
        normalised_[slot] = "vec2 n" + s + "(vec2 t) { return k" + s + "(TEX(s" + s + ", t)); }\n";
        return;
    case PlaneKind::Luma8: value = "vec2(TEXEL.r, 0.0)"; break;
    case PlaneKind::Float: value = f.complex ? "TEXEL.rg" : "vec2(TEXEL.r, 0.0)"; break;
    case PlaneKind::Packed: {
        // code = 65280 hi + 255 lo from the normalised bytes; value = code u_codeN.x - u_codeN.y
        // (codeUniform(): the plane's bound is a uniform, so one program serves every bound).
        declarations_ += "uniform vec2 u_code" + s + ";\n";
        ++cost_.uniforms;
        declarations_ += "vec2 k" + s + "(vec4 t) { return vec2(dot(t.rg, vec2(65280.0, 255.0)), " +
                         (f.complex ? "dot(t.ba, vec2(65280.0, 255.0))" : std::string("0.0")) + ");\n}\n";
        declarations_ += "vec2 d" + s + "(vec4 t) { return k" + s + "(t) * u_code" + s + ".x - vec2(u_code" + s + ".y, " +
                         (f.complex ? "u_code" + s + ".y" : std::string("0.0")) + ");\n}\n";
        declarations_ += "vec2 c" + s + "(vec2 p) { return k" + s + "(" + t + "); }\n";
        normalised_[slot] = "vec2 n" + s + "(vec2 t) { return k" + s + "(TEX(s" + s + ", t)); }\n";
        value = "d" + s + "(TEXEL)";
        break;
    }
    }
    // f: at pixel p; g: at texture coordinate t (normalised).
    const auto at = [&](const std::string& texel) {
        std::string v = value;
        v.replace(v.find("TEXEL"), 5, texel);
        return v;
    };
    declarations_ += "vec2 f" + s + "(vec2 p) { return " + at(t) + "; }\n";
    normalised_[slot] += "vec2 g" + s + "(vec2 t) { return " + at("TEX(s" + s + ", t)") + "; }\n";
    declarations_ += "vec4 r" + s + "(vec2 p) { return " + t + "; }\n";
}

void FragmentWriter::uniform(const std::string& name) {
    declarations_ += "uniform vec4 " + name + ";\n";
    cost_.uniforms += 1;
}

void FragmentWriter::uniformArray(const std::string& name, int vectors) {
    declarations_ += "uniform vec4 " + name + "[" + std::to_string(vectors) + "];\n";
    cost_.uniforms += vectors;
}

std::array<float, 2> codeUniform(const PlaneFormat& f) {
    if (f.nonNegative) return {static_cast<float>(f.bound / 65535.0), 0.0f};
    return {static_cast<float>(2.0 * f.bound / 65535.0), static_cast<float>(f.bound)};
}

std::array<float, 2> outUniform(const PlaneFormat& f) {
    if (f.nonNegative) return {static_cast<float>(1.0 / f.bound), 0.0f};
    return {static_cast<float>(0.5 / f.bound), 0.5f};
}

std::string FragmentWriter::fetchAt(int slot, const std::string& texel) {
    const PlaneFormat& f = inputs_.at(slot);
    cost_.fetches += 1;
    if (f.complex || f.kind == PlaneKind::QuadRows) cost_.wideFetches += 1;
    cost_.alu += shifted_.at(slot) ? 2 : 1;  // the coordinate
    if (f.kind == PlaneKind::Packed) cost_.alu += f.complex ? 3 : 2;
    if (f.kind == PlaneKind::QuadRows) cost_.alu += 6;  // clamp, texel, layer, component
    return call('f', slot, texel);
}

std::string FragmentWriter::fetch(int slot, const std::string& offset) {
    return fetchAt(slot, offset.empty() ? "pos" : "(pos + " + offset + ")");
}

std::string FragmentWriter::fetchCodes(int slot, const std::string& offset) {
    return fetchCodesAt(slot, offset.empty() ? std::string("pos") : "(pos + " + offset + ")");
}

std::string FragmentWriter::fetchCodesAt(int slot, const std::string& texel) {
    const PlaneFormat& f = inputs_.at(slot);
    cost_.fetches += 1;
    if (f.complex) cost_.wideFetches += 1;
    cost_.alu += (shifted_.at(slot) ? 2 : 1) + (f.complex || holdsTwoCodes(f.kind) ? 2 : 1);  // the coordinate, the bytes' sums
    return call('c', slot, texel);
}

std::string FragmentWriter::fetchNormalised(int slot, const std::string& coordinate) {
    const PlaneFormat& f = inputs_.at(slot);
    return atNormalised(slot, 'g', coordinate, f.kind == PlaneKind::Packed ? (f.complex ? 3 : 2) : 0);
}

std::string FragmentWriter::fetchCodesNormalised(int slot, const std::string& coordinate) {
    const PlaneFormat& f = inputs_.at(slot);
    return atNormalised(slot, 'n', coordinate, f.complex || holdsTwoCodes(f.kind) ? 2 : 1);  // the bytes' sums
}

std::string FragmentWriter::atNormalised(int slot, char function, const std::string& coordinate, int decodeAlu) {
    declarations_ += normalised_.at(slot);
    normalised_[slot].clear();
    cost_.fetches += 1;
    if (inputs_[slot].complex) cost_.wideFetches += 1;
    cost_.alu += 1 + decodeAlu;  // the coordinate, the decode
    return call(function, slot, coordinate);
}

std::string FragmentWriter::fetchRaw(int slot, const std::string& offset) {
    return fetchRawAt(slot, offset.empty() ? std::string("pos") : "(pos + " + offset + ")");
}

std::string FragmentWriter::fetchRawAt(int slot, const std::string& texel) {
    cost_.fetches += 1;
    if (inputs_.at(slot).complex) cost_.wideFetches += 1;
    cost_.alu += shifted_.at(slot) ? 2 : 1;
    return call('r', slot, texel);
}

std::string FragmentWriter::fetchRawNormalised(int slot, const std::string& coordinate) {
    cost_.fetches += 1;
    cost_.alu += 1;  // the coordinate
    std::string s = "TEX(s" + std::to_string(slot) + ", ";
    s += coordinate;
    s += ')';
    return s;
}

std::string FragmentWriter::fetchLayerAt(int slot, const std::string& texel, int layer) {
    return fetchLayerAt(slot, texel, glslFloat(layer));
}

std::string FragmentWriter::fetchLayerAt(int slot, const std::string& texel, const std::string& layer) {
    cost_.fetches += 1;
    cost_.alu += 1;
    std::string arg = texel;
    arg += ", ";
    arg += layer;
    return call('l', slot, arg);
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
    "precision highp float;\n"
    "precision highp int;\n";
const char* kPrelude300 =
    "#version 300 es\n"
    "#define TEX texture\n"
    "precision highp float;\n"
    "precision highp int;\n"
    "out highp vec4 outColor;\n"
    "#define OUT_COLOR outColor\n";

const char* kPrelude300Rows =
    "#version 300 es\n"
    "#define TEX texture\n"
    "precision highp float;\n"
    "precision highp int;\n";

// Packed codes (docs/algorithms.md 5): e() maps v to its 16-bit code through u_out (outUniform():
// [-bound, bound] or, for non-negative planes, [0, bound]) and splits it into two bytes. The
// values it rounds are not negative, so a conversion to int (truncation) is their floor: vc4
// emulates floor() in five instructions, a conversion there and back in two. cmul() multiplies
// complex numbers.
const char* kHelpers =
    "vec2 e(float v, vec2 map) {\n"
    "    float c = float(int(clamp(v * map.x + map.y, 0.0, 1.0) * 65535.0 + 0.5));\n"
    "    float hi = float(int(c * 0.00390625));\n"
    "    return vec2(hi, c - 256.0 * hi) / 255.0;\n"
    "}\n"
    "vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n";

} // namespace

FragmentShader FragmentWriter::finish(const std::string& value, const PlaneFormat& out) {
    std::string store;
    if (holdsCodes(out.kind)) {
        // A Pair stores its two pixels (re, im of `value`) as a complex plane its two values.
        declarations_ += "uniform vec2 u_out;\n";
        ++cost_.uniforms;
        const bool two = out.complex || holdsTwoCodes(out.kind);
        store = two ? "vec4(e(result.x, u_out), e(result.y, u_out))" : "vec4(e(result.x, u_out), 0.0, 1.0)";
        cost_.alu += two ? 12 : 6;
    } else {
        store = "vec4(result, 0.0, 1.0)";
    }
    line("vec2 result = " + value + ";", 0);
    line("OUT_COLOR = " + store + ";", 1);
    return finishRaw("");
}

FragmentShader FragmentWriter::finishRows(const std::array<std::string, 4>& values) {
    for (int j = 0; j < 4; ++j) line(named("o", j) + " = " + values[j] + ";", 1);
    rows_ = true;
    return finishRaw("");
}

FragmentShader FragmentWriter::finishRaw(const std::string& value) {
    if (!value.empty()) line("OUT_COLOR = " + value + ";", 1);
    FragmentShader f;
    f.name = name_;
    std::string prelude = es3_ ? kPrelude300 : kPrelude100;
    if (rows_) {
        prelude = kPrelude300Rows;
        for (int j = 0; j < 4; ++j) prelude += "layout(location = " + std::to_string(j) + ") out highp vec4 " + named("o", j) + ";\n";
    }
    f.source = prelude + kHelpers + declarations_ + "void main() {\n    vec2 pos = gl_FragCoord.xy;\n" + body_ + "}\n";
    f.cost = cost_;
    return f;
}

} // namespace striate::gles
