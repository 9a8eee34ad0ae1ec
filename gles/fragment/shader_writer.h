#pragma once

#include <array>
#include <string>
#include <vector>

#include "gles/limits.h"
#include "gles/program_cache.h"

namespace striate::gles {

/// How a plane's texels hold its values (docs/algorithms.md 5 for packed).
enum class PlaneKind {
    Luma8,   ///< the 8-bit input: value = texel.r
    Float,   ///< R32F real, RG32F complex
    Packed,  ///< RGBA8: a 16-bit code per value, hi and lo bytes; real in rg, complex in rgba
    /// RGBA32F holding four neighbours of a real plane: pixel 4i + j of a row in component j of
    /// texel i (the texture is ceil(width / 4) wide). FIR passes then fetch a quarter of the
    /// texels per output and run a quarter of the fragments; read raw only (fetchRaw).
    Quad,
    /// A Quad plane of 8-bit codes (the input packed four to a texel) in RGBA8: exact, and a
    /// quarter of Quad's memory; read raw as Quad (the normalised bytes are the unit values).
    Quad8,
    /// A Quad plane split by rows over the four layers of an RGBA32F array texture: layer j holds
    /// rows 4Y + j in its texel row Y (ceil(height / 4) rows), so one draw with four colour
    /// attachments writes four rows per fragment (GLES 3.0). Per-pixel fetches pick layer and
    /// component; raw reads name the layer (fetchLayerAt).
    QuadRows,
    /// Two neighbours of a packed real plane a texel: pixel 2i + j of a row as the 16-bit code in
    /// rg (j = 0) or ba (j = 1) of RGBA8 texel i, encoded as a complex packed plane's two values
    /// (FragmentPlanner::pairGaussian draws them into the left part of a frame-sized plane). Read
    /// a texel at a time: fetchCodes gives both pixels' codes.
    Pair,
    /// Two rows of a packed real plane a texel: pixel (x, 2i + j) as the 16-bit code in rg
    /// (j = 0) or ba (j = 1) of RGBA8 texel (x, i), a plane of ceil(H / 2) rows
    /// (FragmentPlanner::rowPairVertical: a packed bank's running maximum and its DC plane).
    /// Read a texel at a time: fetchCodes gives both pixels' codes.
    RowPair,
};

struct PlaneFormat {
    PlaneKind kind = PlaneKind::Float;
    bool complex = false;
    double bound = 1;  ///< packed: |value| <= bound, derived per pass (input bound x L1 norm)
    bool nonNegative = false;  ///< packed: codes span [0, bound] instead of [-bound, bound]
};

/// A generated GLSL ES 1.00 fragment shader and its cost.
struct FragmentShader {
    std::string name;  ///< what it computes, for --explain
    std::string source;
    ShaderCost cost;
};

/// Builds a fragment shader: declares inputs with their decoding, counts every fetch and
/// operation it emits, and encodes the result for the output plane.
class FragmentWriter {
public:
    /// es3: GLSL ES 3.00 (a highp output, for float render targets; GLSL ES 1.00's gl_FragColor
    /// is mediump), else GLSL ES 1.00 (any GLES 2.0 context).
    FragmentWriter(std::string name, bool es3);
    /// Declares sampler `slot` holding a plane of `format`; fetches decode to vec2 (re, im).
    /// `shifted`: the plane holds a window of the frame, so every fetch adds the draw's uniform
    /// u_shiftN.xy (the frame position of the window's texel 0, negated) to its coordinate: the
    /// tiles of a pass cut into bands (FragmentPlanner::banded).
    void input(int slot, const PlaneFormat& format, bool shifted = false);
    /// A uniform vec4 the draw sets: coefficients, strip origins. Values live in uniforms, not in
    /// the source, so one program serves every sigma, orientation and bound of its shape.
    void uniform(const std::string& name);
    /// An array of `vectors` uniform vec4s, indexed as name[i] (declared an array even when
    /// `vectors` is 1, so the indexing compiles for every size).
    void uniformArray(const std::string& name, int vectors);
    /// An expression fetching input `slot` at the pixel offset by `offset` (in pixels, a GLSL
    /// vec2 expression), decoded; counts one fetch and the decode's ALU.
    std::string fetch(int slot, const std::string& offset);
    /// Fetches at an absolute texel coordinate expression (texel units, a GLSL vec2).
    std::string fetchAt(int slot, const std::string& texel);
    /// Fetches at a texture coordinate expression (normalised: 0 to 1 across the plane), where
    /// the pass adds offsets the draw gives already scaled: one addition a fetch where a pixel
    /// offset takes an addition and a multiplication (Luma8, Float and Packed inputs).
    std::string fetchNormalised(int slot, const std::string& coordinate);
    /// A packed input's 16-bit codes at the pixel offset by `offset` (vec2: re, im; 0 to 65535),
    /// not mapped to values: a pass whose weights take the map (u_codeN) does that once.
    std::string fetchCodes(int slot, const std::string& offset);
    /// The same at an absolute texel coordinate expression.
    std::string fetchCodesAt(int slot, const std::string& texel);
    /// The same at a texture coordinate expression (fetchNormalised).
    std::string fetchCodesNormalised(int slot, const std::string& coordinate);
    /// The raw texel of input `slot` at the pixel (no decoding; copying passes; the four pixels
    /// of a Quad texel).
    std::string fetchRaw(int slot, const std::string& offset);
    /// The raw texel at an absolute texel coordinate expression.
    std::string fetchRawAt(int slot, const std::string& texel);
    /// The raw texel at a texture coordinate expression (normalised; a Quad or Quad8 input).
    std::string fetchRawNormalised(int slot, const std::string& coordinate);
    /// The raw texel of layer `layer` of a QuadRows input at an absolute texel coordinate.
    std::string fetchLayerAt(int slot, const std::string& texel, int layer);
    /// The same at a layer given by an expression (a float, 0.0 to 3.0).
    std::string fetchLayerAt(int slot, const std::string& texel, const std::string& layer);
    /// One statement of `alu` operations.
    void line(const std::string& code, int alu);
    /// Writes `value` (a vec2 expression: re, im) in the output format; returns the shader.
    FragmentShader finish(const std::string& value, const PlaneFormat& out);
    /// Writes a raw vec4 (copies, classes) and returns the shader.
    FragmentShader finishRaw(const std::string& value);
    /// Writes one raw vec4 to each of four colour attachments (GLSL ES 3.00 only: a QuadRows
    /// target) and returns the shader.
    FragmentShader finishRows(const std::array<std::string, 4>& values);
    const ShaderCost& cost() const { return cost_; }

private:
    /// fetchNormalised and fetchCodesNormalised: input `slot` through its function gN or nN.
    std::string atNormalised(int slot, char function, const std::string& coordinate, int decodeAlu);

    std::string name_;
    bool es3_;
    bool rows_ = false;  // four outputs (finishRows)
    std::string declarations_, body_;
    std::vector<PlaneFormat> inputs_;
    std::vector<bool> shifted_;
    /// Per input, the declaration of its fetch at a normalised coordinate (gN, nN), added to the
    /// source when a fetch first uses it (then cleared).
    std::vector<std::string> normalised_;
    ShaderCost cost_;
};

/// Whether a plane of `kind` holds 16-bit codes (Packed, Pair, RowPair): its draws set u_codeN as an input
/// and u_out as the output.
inline bool holdsCodes(PlaneKind kind) {
    return kind == PlaneKind::Packed || kind == PlaneKind::Pair || kind == PlaneKind::RowPair;
}
/// Two codes a texel: a Pair or RowPair plane.
inline bool holdsTwoCodes(PlaneKind kind) { return kind == PlaneKind::Pair || kind == PlaneKind::RowPair; }

/// Uniforms a draw sets for a packed plane: u_codeN of an input (decode: code x - y) and u_out
/// of the output (encode: clamp(v x + y) 65535).
std::array<float, 2> codeUniform(const PlaneFormat& f);
std::array<float, 2> outUniform(const PlaneFormat& f);

/// The value of a packed code (docs/algorithms.md 5; [0, bound] for non-negative planes), on the host,
/// as the shaders decode it.
double decodePacked(unsigned char hi, unsigned char lo, const PlaneFormat& format);

} // namespace striate::gles
