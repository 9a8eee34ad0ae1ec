#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/coefficients.h"
#include "core/plan.h"
#include "gles/fragment/shader_writer.h"

/// The FIR family of gles-fragment's shader generators: the direct Gaussian's incremental taps,
/// the boxes' taps and sum pyramid, the four-pixel Quad planes, and the direct Gabor (or a
/// recursive response's) taps held in uniforms. Each returns the shader and its cost; the
/// planners (plan_*.cpp) split work until it fits the board's budget.
namespace striate::gles {

/// The weights of a symmetric FIR on Quad planes: the direct Gaussian's, generated in the shader
/// by forward quotients (docs/algorithms.md 2.1; the output divided by their sum), or given taps (a
/// recursive filter's response) as constants of the source: from a uniform array, v3d spilled the
/// four-rows pass at R = 3 and 4 (69 registers at 2 threads; as constants 45 and 51, docs/boards.md).
struct QuadWeights {
    double sigma = 0;          ///< direct
    std::vector<float> taps;   ///< response: taps[0..R]
    int radius() const { return taps.empty() ? gaussianRadius(sigma) : static_cast<int>(taps.size()) - 1; }
    bool direct() const { return taps.empty(); }
};

/// The sum pyramid of one line (docs/algorithms.md 2.4): level k holds the sums of 2^k consecutive
/// samples, block i covering samples [i 2^k, (i + 1) 2^k) of the line. Levels 1.. live side by
/// side along the axis in two atlas planes (odd levels in one, even in the other, so no draw reads
/// the plane it writes); level 0 is the line itself.
struct Pyramid {
    int levels = 0;                 // K: levels 1..K are built
    std::vector<int> offset, size;  // per level: first texel in its atlas, blocks
    int atlasSize[2] = {0, 0};      // along the axis: [0] even levels, [1] odd levels
};

/// The direct Gaussian of one axis with R incremental taps (docs/algorithms.md 2.1), fully unrolled.
/// `shift`: the input pixel under output pixel x is x + shift along the axis (padding and cropping).
/// `tiled`: the input is a window of rows, read through u_shift0 (FragmentWriter::input).
FragmentShader directShader(bool es3, double sigma, int R, int axis, const PlaneFormat& in, const PlaneFormat& out,
                            int shift, bool tiled = false);

/// The direct Gaussian of one axis, two pixels a fragment into a Pair plane (`out`: texel i holds
/// pixels 2i and 2i + 1 of a row), its normalised taps constants of the source. Axis 0 reads a
/// plane per pixel (L8 or packed, clamped to its edge): 2R + 2 fetches for the two, pixels past
/// the frame's last column (u_frame.x) that column's value. Axis 1
/// reads a Pair plane's texels: 2R + 1 fetches, each both pixels' codes, the codes' map applied
/// once to the sums.
FragmentShader pairShader(bool es3, double sigma, int R, int axis, const PlaneFormat& in, const PlaneFormat& out);

/// Taps first..last of one extended box (docs/algorithms.md 2.2) as a weighted sum, added to an
/// accumulator (slot 1) unless `first` is 0; `shift` maps output to input pixels (padding).
FragmentShader boxTapsShader(bool es3, const ExtendedBox& box, int first, int last, int axis, int shift,
                             const PlaneFormat& in, const PlaneFormat& out);

Pyramid pyramidOf(int length);

/// One pyramid level from the one below: block i = block 2i + block 2i + 1 below. Level 1 reads
/// the line (slot 0, sample j at texel j + shift, clamped), higher levels the other atlas.
FragmentShader pyramidLevelShader(bool es3, int axis, int level, int shift, int below, int here, const PlaneFormat& in,
                                  const PlaneFormat& out);

/// One extended box (docs/algorithms.md 2.2) from the pyramid: the |t| <= r part is S(x + r + 1) -
/// S(x - r), each prefix S(n) the sum of one block per set bit of n (coordinates from x alone, no
/// dependent reads), differenced level by level from the top so the common blocks cancel exactly;
/// the two alpha taps are fetched directly. Outside [0, P] the prefix extends by the end samples
/// (the replicate-padded line). Slots: 0 the line (sample j at texel j + shift), 1 the even
/// levels' atlas, 2 the odd levels'.
FragmentShader pyramidBoxShader(bool es3, int axis, const ExtendedBox& box, const Pyramid& p, int length, int shift,
                                int outShift, const PlaneFormat& in, const PlaneFormat& atlas, const PlaneFormat& out);

/// The texels of replicate border a Quad plane's horizontal pass reads on each side.
inline int quadPad(int R) { return (R + 3) / 4; }

/// Four neighbouring pixels of a plane (read per pixel) into each texel of a Quad plane with
/// `pad` texels of border on each side: texel t holds pixels 4 (t - pad) + j, which the input's
/// clamp to its edge turns into the first or last pixel past the row's ends (the replicate
/// border, so the horizontal pass needs no border logic).
FragmentShader quadPackShader(bool es3, const PlaneFormat& in, int pad);

/// The horizontal pass from a padded Quad plane (quadPackShader) into an unpadded one: output
/// texel q holds pixels 4q..4q+3, each the FIR of the pixels around it. Texel q + m brings
/// pixels 4(q + m) + j, which weigh into output lane i with tap 4m + j - i. `tiled`: the output
/// is a window of rows, the input read through u_shift0 (FragmentWriter::input).
FragmentShader quadRowsShader(bool es3, const std::string& what, const QuadWeights& q, bool tiled = false);

/// The variants of a packed bank's vertical pass two rows a fragment (FragmentPlanner::rowPairVertical).
struct RowPairForm {
    bool realTaps = false;    ///< no frequency along y: the Gaussian's taps
    bool withMirror = false;  ///< the mirror's response too, from its conjugated taps
    bool values = false;      ///< the two rows' real values into a RowPair plane (the DC plane), no tail
};

/// Pixels x = 0 .. W - 1 of a row by phase, x mod 4: phase k's (x = 4j + k) in columns
/// phaseStart(W, k) + j, so each phase a run of columns (phaseShader's draws write them so).
inline int phaseCount(int W, int k) { return (W - k + 3) / 4; }
inline int phaseStart(int W, int k) {
    int start = 0;
    for (int i = 0; i < k; ++i) start += phaseCount(W, i);
    return start;
}
inline int phaseColumn(int W, int x) { return phaseStart(W, x % 4) + x / 4; }

/// A horizontal FIR of R tap pairs (complex weights, or real: `complexOut` false) from a padded
/// Quad8 plane of the frame (quadPackShader, a pad of quadPad(R) texels or more), a pixel a
/// fragment in phase order (phaseColumn): one draw a phase x mod 4, whose weights (u_wre,
/// u_wim: phaseWeights) place each tap in the lane of the 2 quadPad(R) + 1 texels around the
/// pixel's, four pixels a fetch. u_phase.x: the pad less the phase's first column (the texel
/// of the pixel's quad is then pos.x + u_phase.x).
FragmentShader phaseShader(const std::string& what, int R, bool complexOut, const PlaneFormat& out);
/// phaseShader's weights for phase k: lane l of texel m (-P .. P) weighs pixel 4m + l - k from
/// the centre (the real parts, or the imaginary ones), as tapsShader weighs it.
std::vector<float> phaseWeights(const GaborTaps& taps, int k, bool imaginary);

/// The vertical pass of a Quad plane into a QuadRows one: four rows of four columns per
/// fragment, each input texel fetched once for the four (2R + 4 fetches for sixteen outputs).
/// Output texel row Y holds rows 4Y + j in layer j. Where 2R + 4 fetches exceed the budget the
/// pass is split by input rows: this draw sums rows e = e0..e1 (of -R..R + 3 around 4Y) onto the
/// previous draw's sums (slot 1, read raw per layer); the last one also normalises. `tiled`: the
/// input is a window of rows, read through u_shift0.
FragmentShader quadRowsColumnsShader(bool es3, const std::string& what, const QuadWeights& q, int e0, int e1,
                                     bool tiled = false);

/// Direct Gabor taps of one axis, the centre and `count` pairs from pair `first` on (offsets
/// -/+first .. -/+(first + count - 1)), or those pairs added to an accumulator (slot 1), in the cpu
/// backend's order: the pair at -/+k summed first (cpu/neon/lines.cpp). The offsets are constants
/// of the source (pixel offsets, scaled by u_texel in the shader), or with `byOffsets` the
/// uniforms u_offsets (tapsOffsets()) added to the pass's texture coordinate: one addition a
/// fetch, and one program from any first pair. (Offsets once derived from a single uniform made
/// vc4 compute every coordinate ahead and keep it live: 47 fetches failed to register-allocate,
/// 33 ran at 1 thread; read from u_offsets, every program stays at 2 threads, docs/boards.md.)
FragmentShader tapsShader(bool es3, const std::string& what, int first, int count, bool withCentre, int axis,
                          bool byOffsets, const PlaneFormat& in, const PlaneFormat& acc, const PlaneFormat& out);

/// Whether tapsShader reads `in` as its 16-bit codes (a packed plane), the map in the weights.
bool takesCodes(const PlaneFormat& in);
/// Adds to complex `z` the symmetric tap pair `tap` (vec2: c, s) over complex samples `a` at -k
/// and `b` at +k (GLSL names), as tapsShader and the bank's row pairs sum them.
void addComplexPair(FragmentWriter& w, const std::string& z, const std::string& a, const std::string& b,
                    const std::string& tap);
/// tapsShader's `u_taps` for pairs first..first + count - 1 of `taps` read from `in`: (c_0 or 0,
/// the codes' summed offset or 0, 0, 0), then (c, s) of two pairs a vector; on codes the taps
/// times the codes' scale (codeUniform()).
std::vector<float> tapsUniform(const GaborTaps& taps, int first, int count, bool withCentre, const PlaneFormat& in);
/// tapsShader's u_offsets: taps first .. first + count - 1 as texture-coordinate offsets along an
/// axis of `texels` texels.
std::vector<float> tapsOffsets(int first, int count, int texels);
/// Offset i of u_offsets in GLSL: component i % 4 of vector i / 4 (tapsOffsets' layout).
std::string offsetUniform(int i);
/// Whether two taps' cosine parts agree tap by tap (to 1e-7), and their sine parts times `sine`
/// (1: the same taps; -1: conjugates): the same recursion's responses.
bool sameTaps(const GaborTaps& a, const GaborTaps& b, float sine);

/// What a pass does with its value `vec2 z` before storing it (the Gabor combine, fused into the
/// vertical pass's last draw so that z is never stored): `code` declares its inputs from the
/// slot it is given on, adds its lines, and returns the value to store in `format`.
struct ShaderTail {
    std::string name;
    std::function<std::string(FragmentWriter& w, int slot)> code;
    PlaneFormat format;
};

/// tapsShader whose value goes through `tail` (its inputs from slot 2) before it is stored.
FragmentShader tapsShader(bool es3, const std::string& what, int first, int count, bool withCentre, int axis,
                          bool byOffsets, const PlaneFormat& in, const PlaneFormat& acc, const ShaderTail& tail);

} // namespace striate::gles
