#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/coefficients.h"
#include "core/image.h"
#include "core/plan.h"

/// The line engine of the cpu backend. The recursive and box filters (and the Gabor passes) run
/// along a *block*: kLanes lines of one
/// plane stored interleaved, sample i of lane l at block[i * kLanes + l]. A horizontal pass gathers
/// kLanes rows by 4x4 transposes; a vertical pass copies a kLanes-wide column strip. Each kernel is
/// then written once, runs along the block with four NEON vectors per sample (one per four lanes,
/// so the recursions are vectorised across rows or columns as docs/design.md (Backends) asks),
/// and the block stays in cache (16 lanes x 1920 samples = 120 KiB).
namespace striate::cpu {


inline constexpr int kLanes = 16;

/// The block layout's index helpers, shared by lines.cpp and gabor_lines.cpp (a block holds a
/// sample of kLanes lines per position, position i at i x kLanes).
namespace block {
inline constexpr int kVectors = kLanes / 4;
inline int clampIndex(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }
inline const float* at(const float* block, int i) { return block + static_cast<std::ptrdiff_t>(i) * kLanes; }
inline float* at(float* block, int i) { return block + static_cast<std::ptrdiff_t>(i) * kLanes; }
} // namespace block

/// A row as unit floats with `radius` replicated samples on each side, in `line` (width + 2
/// radius floats); returns its first sample.
const float* padRow(const float* in, int width, int radius, float* line);
const float* padRow(const std::uint8_t* in, int width, int radius, float* line);

/// Blocks of kLanes lines that cover n lines.
inline int laneGroups(int n) { return (n + kLanes - 1) / kLanes; }

/// The input sample in the unit range: a float is one already, a code is core's unitValue.
inline float unitValue(float v) { return v; }
using striate::unitValue;

/// Copies lanes [first, first + count) of a plane into a block: rows (horizontal pass) or
/// columns (vertical pass). Lanes past the plane's edge repeat its last row or column.
void gatherRows(ImageView<const float> src, int firstRow, float* block);
void gatherRows(ImageView<const std::uint8_t> src, int firstRow, float* block);
void gatherColumns(ImageView<const float> src, int firstColumn, float* block);
void gatherColumns(ImageView<const std::uint8_t> src, int firstColumn, float* block);
/// Writes the lanes of a block that lie inside the plane back to it.
void scatterRows(const float* block, int firstRow, ImageView<float> dst);
void scatterColumns(const float* block, int firstColumn, ImageView<float> dst);

/// The largest FIR radius: ceil(4 sigma) at the largest sigma (docs/algorithms.md 1).
inline constexpr int kMaxFirRadius = 1024;

/// Sampled Gaussian FIR (the direct method), symmetric taps (taps[0..R]), replicate borders,
/// scheduled row-wise: no transposes. Horizontal: each
/// row of [y0, y1) is copied with R replicated samples per side into `line` (width + 2R floats)
/// and filtered with unaligned loads. Vertical: output row y sums input rows y-R..y+R.
/// wide: the inner loops at AVX2's width (runsAvx2(), cpu/neon/avx2.h), the same floats.
void firRows(ImageView<const float> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
             float* line, bool wide = false);
void firRows(ImageView<const std::uint8_t> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
             float* line, bool wide = false);
void firColumns(ImageView<const float> src, ImageView<float> dst, int y0, int y1, const std::vector<float>& taps,
                bool wide = false);
/// One row of each: the horizontal pass of `in`, and the vertical pass of the rows
/// window[0..2R] (input rows y - R..y + R, clamped at the borders by the caller).
void firRow(const float* in, int width, const std::vector<float>& taps, float* line, float* out, bool wide = false);
void firRow(const std::uint8_t* in, int width, const std::vector<float>& taps, float* line, float* out,
            bool wide = false);
void firColumnRow(const float* const* window, int width, const std::vector<float>& taps, float* out,
                  bool wide = false);

/// Both passes of the direct FIR for one band of output rows, asked for in increasing order:
/// the horizontal pass of each input row once, into a ring of the last 2R + 1 (which stays in
/// cache), and the vertical pass from the ring. The same arithmetic as firRows then firColumns.
/// The workspace holds workspaceFloats(width, R) floats.
template <class T>
class FirBand {
public:
    static std::size_t ringFloats(int width, int radius) {
        return static_cast<std::size_t>(2 * radius + 1) * static_cast<std::size_t>(width);
    }
    static std::size_t workspaceFloats(int width, int radius) {
        return ringFloats(width, radius) + static_cast<std::size_t>(width + 2 * radius);
    }
    /// wide: as firRow's.
    FirBand(ImageView<const T> in, const std::vector<float>& taps, float* workspace, bool wide = false);
    /// Writes output row y (0 <= y < height, not below the previous call's y).
    void rowInto(int y, float* out);

private:
    ImageView<const T> in_;
    const std::vector<float>& taps_;
    int radius_;
    bool wide_;
    float* ring_;
    float* line_;
    const float* window_[2 * kMaxFirRadius + 1];
    int next_ = -1;  // the next input row to filter horizontally
};

/// Complex FIR of a real block (horizontal Gabor pass): (re, im) = sum in[i-t] (c + i s)[t].
void firGaborRealBlock(const float* in, float* re, float* im, int n, const GaborTaps& taps);
/// Complex FIR of a complex block (vertical Gabor pass), in place.
void firGaborComplexBlock(const float* inRe, const float* inIm, float* re, float* im, int n, const GaborTaps& taps);

/// The complex passes of a direct Gabor scheduled row-wise, as firRow and firColumnRow: cosine
/// taps symmetric, sine taps antisymmetric, so re = c[0] x + sum c[k] (a + b) and
/// im = sum s[k] (a - b), a and b the samples k before and after (as firGaborRealBlock).
void firRowComplex(const float* in, int width, const GaborTaps& taps, float* line, float* re, float* im);
void firRowComplex(const std::uint8_t* in, int width, const GaborTaps& taps, float* line, float* re, float* im);
void firColumnRowComplex(const float* const* window, int width, const GaborTaps& taps, float* re, float* im);

/// The direct Gabor at an orientation with one axis free of frequency (0 or 90 degrees), for one
/// band of output rows asked for in increasing order, as FirBand: a complex pass along the axis
/// with the frequency (`along`) and a real one across it (`across`), no transposes. Along y the
/// real horizontal pass of each input row is made once, into a ring of the last 2R + 1 rows, and
/// the complex vertical pass sums them; along x the real vertical pass comes first (the passes
/// commute, borders replicating per axis), so the vertical pass sums one plane, not two. Both tap
/// sets have radius R.
template <class T>
class GaborBand {
public:
    static std::size_t workspaceFloats(int width, int radius) {
        return FirBand<T>::ringFloats(width, radius) + static_cast<std::size_t>(2 * width + 2 * radius);
    }
    /// alongX: the frequency is along x (0 degrees: complex rows, real columns), else along y.
    /// wide: the real passes as firRow's.
    GaborBand(ImageView<const T> in, const GaborTaps& along, const std::vector<float>& across, bool alongX,
              float* workspace, bool wide = false);
    /// Writes output row y (0 <= y < height, not below the previous call's y): width samples each.
    void rowInto(int y, float* re, float* im);

private:
    ImageView<const T> in_;
    const GaborTaps& along_;
    const std::vector<float>& across_;
    bool alongX_;
    bool wide_;
    int radius_;
    float* ring_;
    float* column_;  // alongX: the vertical pass of the output row
    float* line_;
    const float* window_[2 * kMaxFirRadius + 1];
    int next_ = -1;
};

/// Fills the `pad` samples before and after a line of n samples (which starts `pad` samples into
/// the block) with copies of its first and last sample.
void replicateEnds(float* block, int n, int pad);

/// One extended box pass (docs/algorithms.md 2.2) by running sums.
void boxBlock(const float* in, float* out, int n, const ExtendedBox& box);

/// Recursive Gaussian along a block, in place, exact replicate borders.
void recursiveBlock(float* data, int n, const CascadeFloat& f);
/// Recursive Gabor along a block: complex in place. With realInput the imaginary input is taken
/// as zero and `im` need not be initialised.
void recursiveComplexBlock(float* re, float* im, int n, const CascadeFloat& f, bool realInput);
/// A line filtered in two calls, each of which writes one part of it: the first call runs the
/// whole line (samples [0, mid) come out final) and keeps the recursion's states at mid and its
/// anticausal start; the second runs samples [mid, n) alone from them (half the work), reading
/// only those input samples and writing only those outputs.
struct DemodSpan {
    int mid;
    bool second;
    float* state;  ///< 12 x kLanes floats, kept between the calls
};
/// The same pass demodulated (DemodCascade, core/plan.h), in place: sample i is multiplied by
/// e^{-i w i} = cosw[i] - i sinw[i] (none for w = 0), then runs the Gaussian's real recursion; the
/// result is the modulated pass's times e^{-i w i}. With realInput the imaginary input is taken as
/// zero and `im` need not be initialised. With a span, one of the line's two calls.
void demodulatedBlock(float* re, float* im, int n, const DemodCascade& f, const float* cosw, const float* sinw,
                      bool realInput, const DemodSpan* span = nullptr);
/// The recursive Gaussian along a block in place, in demodulatedBlock's second-order form (f:
/// demodCascade at w = 0, or a frequency too small to turn a line: 90 degrees' wx, 1e-17): the
/// real line alone.
void gaussianBlock(float* data, int n, const DemodCascade& f, const DemodSpan* span = nullptr);

} // namespace striate::cpu
