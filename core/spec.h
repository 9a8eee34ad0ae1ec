#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/status.h"

namespace striate {

// Limits shared by every front end (docs/algorithms.md 1, issue 2). Named so the parser, the CLI
// help and the GStreamer property ranges agree.
inline constexpr double kMinSigma = 0.3;
inline constexpr double kMaxSigma = 256.0;
/// Young-van Vliet's q(sigma) (docs/algorithms.md 2.3) is <= 0 below sigma ~0.43; the recursion is
/// then no Gaussian at all, so method=recursive refuses sigma below this.
inline constexpr double kMinRecursiveSigma = 0.5;
inline constexpr double kMinWavelength = 2.0;
inline constexpr double kMaxWavelength = 1e6;
inline constexpr int kMaxOrientations = 16;
/// A Gabor orientation in degrees: one turn either way.
inline constexpr double kMaxOrientationDegrees = 360.0;
inline constexpr double kMaxGain = 1e6;
/// Edge thresholds (gradient of the unit image, or Gabor energy).
inline constexpr double kMaxThreshold = 1e6;
/// Offsets of the adaptive threshold: the normalised image's range, either way.
inline constexpr double kMaxThresholdOffset = 1.0;
/// Box passes per axis for method=boxes (docs/algorithms.md 2.2: n = 3..5, default 4).
inline constexpr int kBoxPasses = 4;
/// Below this sigma method=auto uses direct taps: the recursive shape error is 10% at sigma 2
/// (docs/algorithms.md 2.3), and direct taps are cheap there.
inline constexpr double kAutoDirectBelowSigma = 3.0;

enum class BlurMethod { Auto, Direct, Boxes, Recursive };
enum class GaborMethod { Auto, Recursive, Direct };
enum class GaborOutput { Magnitude, Real, Imaginary, Phase, Complex };
enum class EdgeMethod { Canny, Gabor };
enum class EdgeOutput { Edges, Strength, Overlay };

/// A number as errors, the chain syntax and the help write it (std::ostream's default: "0.02").
std::string formatNumber(double v);
/// A finite value within [lo, hi], or an error naming the parameter and the value.
Status checkRange(const char* name, double v, double lo, double hi);

/// One value of an enumeration: its nick in the chain syntax and the GStreamer enum, and the
/// description gst-inspect-1.0 shows for it.
template <class E>
struct EnumName {
    E value;
    const char* nick;
    const char* description = "";
};

inline constexpr EnumName<BlurMethod> kBlurMethods[] = {
    {BlurMethod::Auto, "auto", "Direct below sigma 3, recursive above (8-bit output on cpu: direct below 10)"},
    {BlurMethod::Direct, "direct", "Direct (sampled taps)"},
    {BlurMethod::Boxes, "boxes", "Repeated extended boxes (constant time)"},
    {BlurMethod::Recursive, "recursive", "Recursive (Young-van Vliet, constant time)"}};
inline constexpr EnumName<GaborMethod> kGaborMethods[] = {
    {GaborMethod::Auto, "auto", "Direct below sigma 3, recursive above"},
    {GaborMethod::Recursive, "recursive", "Recursive (Young, van Vliet, van Ginkel)"},
    {GaborMethod::Direct, "direct", "Direct (sampled complex kernel)"}};
inline constexpr EnumName<GaborOutput> kGaborOutputs[] = {
    {GaborOutput::Magnitude, "magnitude", "Magnitude"},
    {GaborOutput::Real, "real", "Real part (zero is mid-grey)"},
    {GaborOutput::Imaginary, "imaginary", "Imaginary part (zero is mid-grey)"},
    {GaborOutput::Phase, "phase", "Phase (-pi..pi over the output range)"},
    {GaborOutput::Complex, "complex", "Complex"}};
inline constexpr EnumName<EdgeMethod> kEdgeMethods[] = {
    {EdgeMethod::Canny, "canny", "Canny (Gaussian, gradient, NMS, hysteresis)"},
    {EdgeMethod::Gabor, "gabor", "Gabor energy bank"}};
inline constexpr EnumName<EdgeOutput> kEdgeOutputs[] = {
    {EdgeOutput::Edges, "edges", "Edge map (0 or full scale)"},
    {EdgeOutput::Strength, "strength", "Edge strength (high threshold at mid-grey)"},
    {EdgeOutput::Overlay, "overlay", "Edges drawn over the input luma"}};

template <class E, std::size_t N>
const char* nickOf(const EnumName<E> (&table)[N], E value) {
    for (const auto& e : table)
        if (e.value == value) return e.nick;
    return "?";
}

template <class E, std::size_t N>
std::optional<E> fromNick(const EnumName<E> (&table)[N], std::string_view nick) {
    for (const auto& e : table)
        if (nick == e.nick) return e.value;
    return std::nullopt;
}

/// Affine map from a stage's real output to 8 bits: u8 = clamp(round((offset + scale * v) * 255)).
/// docs/algorithms.md 0 gives scale = gain, offset = 0; signed outputs say otherwise (its notes).
struct Encoding {
    double scale = 1.0;
    double offset = 0.0;
};

/// Gaussian blur (docs/algorithms.md 1-2).
struct BlurSpec {
    double sigma = 2.0;
    BlurMethod method = BlurMethod::Auto;

    Status validate() const;
    /// The method that actually runs: auto resolved by sigma.
    BlurMethod resolvedMethod() const;
    Encoding encoding() const { return {}; }
    bool complexOutput() const { return false; }
    bool operator==(const BlurSpec&) const = default;
};

/// Gabor filter or orientation bank (docs/algorithms.md 3).
struct GaborSpec {
    double sigma = 4.0;
    double wavelength = 8.0;
    double orientation = 0.0;  ///< degrees from the x axis toward +y
    int orientations = 1;      ///< bank size; > 1 outputs the maximum magnitude
    GaborOutput output = GaborOutput::Magnitude;
    bool removeDc = true;
    double gain = 1.0;
    GaborMethod method = GaborMethod::Auto;

    Status validate() const;
    GaborMethod resolvedMethod() const;
    Encoding encoding() const;
    bool complexOutput() const;
    /// Orientation of bank member k in degrees: orientation + 180 k / orientations.
    double orientationOf(int k) const { return orientation + 180.0 * k / orientations; }
    bool operator==(const GaborSpec&) const = default;
};

/// Edge detection (docs/algorithms.md 4). Thresholds are in gradient units of the normalised image
/// (canny) or in Gabor energy units (gabor).
struct EdgeSpec {
    EdgeMethod method = EdgeMethod::Canny;
    double sigma = 1.4;
    double wavelength = 4.0;  ///< gabor method only
    int orientations = 6;     ///< gabor method only
    double lowThreshold = 0.02;
    double highThreshold = 0.05;
    EdgeOutput output = EdgeOutput::Edges;

    Status validate() const;
    Encoding encoding() const;
    bool complexOutput() const { return false; }
    /// True where the output is an edge map (hysteresis runs), not the strength.
    bool tracesEdges() const;
    /// True where the output shows the input under the edges (overlay).
    bool showsInput() const;
    /// The smoothing stage of canny.
    BlurSpec smoothing() const { return BlurSpec{sigma, BlurMethod::Auto}; }
    /// Bank member k of the gabor method: DC-free complex response at 180 k / N degrees.
    GaborSpec bankMember(int k) const;
    /// Non-maximum suppression sector of bank member k: its orientation rounded to 45 degrees.
    int bankSector(int k) const { return static_cast<int>((8 * k + orientations) / (2 * orientations)) % 4; }
    bool operator==(const EdgeSpec&) const = default;
};

/// The order every backend and the reference visit a bank's orientations in (thetas in degrees,
/// index order): each orientation, then at once its mirror (the member at 180 - theta, modulo
/// 180, whose frequencies are (-wx, wy)) where the bank has one. On a real input a mirror's
/// horizontal pass is the conjugate of its partner's, so a backend computes it once; visiting the
/// two together keeps the first-of-near-equal-maxima rule (kTieTolerance) the same on every
/// backend. Six orientations: 0, 30, 150, 60, 120, 90.
std::vector<int> bankOrder(const std::vector<double>& thetas);
/// Whether the orientation at `b` degrees mirrors the one at `a` (bankOrder).
bool mirrors(double a, double b);

/// Gradient direction sectors of non-maximum suppression (docs/algorithms.md 4.1). Sector s compares a
/// pixel with its neighbours at -/+ kSectorStep[s]: 0 along x, 1 along (1,1), 2 along y, 3 along (-1,1).
inline constexpr int kSectorStep[4][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}};
/// Strength comparisons (NMS, the bank's winner) treat non-negative values within a relative
/// kTieTolerance as equal. Exact ties are common on synthetic scenes (both sides of a straight
/// edge); double and float round them apart by ~1e-8, so without a tolerance the float backends
/// would break them differently from the reference. 1e-5 is 100x the float error.
inline constexpr double kTieTolerance = 1e-5;
template <class T>
bool clearlyGreater(T a, T b) {
    return a > b * static_cast<T>(1 + kTieTolerance);
}
template <class T>
bool notClearlyLess(T a, T b) {
    return a >= b * static_cast<T>(1 - kTieTolerance);
}
/// Non-maximum suppression (docs/algorithms.md 4.1): greater than the neighbour before, not less than
/// the one after.
template <class T>
bool isLocalMaximum(T v, T before, T after) {
    return clearlyGreater(v, before) && notClearlyLess(v, after);
}

/// tan(22.5 deg) and tan(67.5 deg): the sector boundaries for a gradient (gx, gy).
inline constexpr double kTan22_5 = 0.41421356237309503;
inline constexpr double kTan67_5 = 2.4142135623730949;

/// A real value through an encoding to 8 or 16 bits, in float with a fixed order of operations
/// so the NEON encoder (cpu/neon/encode.h) gives the same codes: u = (offset + scale v) * max,
/// NaN and u <= 0 give 0, u >= max gives max, otherwise floor(u + 0.5).
template <class T, int kMax>
T encodeAs(float v, const Encoding& e) {
    const float u = (static_cast<float>(e.offset) + static_cast<float>(e.scale) * v) * static_cast<float>(kMax);
    if (!(u > 0.0f)) return 0;
    if (u >= static_cast<float>(kMax)) return static_cast<T>(kMax);
    return static_cast<T>(u + 0.5f);
}
inline std::uint8_t encode8(float v, const Encoding& e) { return encodeAs<std::uint8_t, 255>(v, e); }
inline std::uint16_t encode16(float v, const Encoding& e) { return encodeAs<std::uint16_t, 65535>(v, e); }

/// An 8-bit code's unit value, float(c / 255) rounded from the double quotient as the reference
/// rounds it (docs/algorithms.md 0): what every backend starts from.
inline float unitValue(std::uint8_t c) { return static_cast<float>(c / 255.0); }
/// unitValue of every code, as a table (a division per sample costs more than what it feeds, and a
/// shader division need not round correctly).
const std::array<float, 256>& unitValues();

/// Adaptive threshold (docs/algorithms.md 4.3): 1 where the input exceeds its local Gaussian mean
/// less `offset` (in the units of the normalised image), else 0.
struct ThresholdSpec {
    double sigma = 4.0;
    double offset = 0.02;
    BlurMethod method = BlurMethod::Auto;  ///< how the local mean is computed

    Status validate() const {
        if (Status s = mean().validate(); !s) return s;
        return checkRange("offset", offset, -kMaxThresholdOffset, kMaxThresholdOffset);
    }
    /// The local mean's blur.
    BlurSpec mean() const { return BlurSpec{sigma, method}; }
    Encoding encoding() const { return {}; }
    bool complexOutput() const { return false; }
    bool operator==(const ThresholdSpec&) const = default;
};

/// One stage of a chain. Every place that does something per kind of stage visits it with an
/// Overloaded set of one function per kind (or asks the stage's parameter table, core/params.h),
/// so a kind that a backend or a front end misses is a compile error, never a silent default.
using Stage = std::variant<BlurSpec, GaborSpec, EdgeSpec, ThresholdSpec>;

/// The function objects of a visit, one per kind: std::visit(Overloaded{...}, stage).
template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
/// Spelled out for compilers without C++20's aggregate deduction (clang before 17).
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

Status validateStage(const Stage& stage);
/// How the stage's real output maps to 8 bits.
Encoding encodingOf(const Stage& stage);
/// True when the stage's output is complex (gabor output=complex).
bool isComplexOutput(const Stage& stage);

} // namespace striate
