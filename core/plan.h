#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "core/coefficients.h"
#include "core/spec.h"

/// The coefficients of a chain's stages in the form every backend's kernels take (float taps,
/// cascades, per-orientation plans), computed once at configure time from the specs. The cpu
/// kernels, the compute shaders' uniforms and the fragment planner all read these.
namespace striate {

/// Direct Gabor taps along one axis: c[t] = g[t] cos(w t), s[t] = g[t] sin(w t), t = 0..R.
struct GaborTaps {
    std::vector<float> c;
    std::vector<float> s;
    /// False along an axis without frequency (0 or 90 degrees): every sine tap is below 1e-9 (at
    /// 90 degrees cos(pi / 2) leaves them near 1e-17), the pass is a real Gaussian, and the
    /// kernels skip the sine terms, which change no sum by more than 1e-8.
    bool sine = true;
};
GaborTaps gaborTapsFloat(double sigma, double w);

/// Young-van Vliet recursion in cascade (pole) form, float coefficients for the kernels; see
/// RecursiveCascade for why not the direct form.
struct CascadeFloat {
    float B;
    float pr[3], pi[3];  ///< causal poles
    float qr[3], qi[3];  ///< anticausal poles
    float gr[3], gi[3];  ///< causal steady state of section k per unit input: prod_{j<=k} 1 / (1 - p_j)
    float hr[3], hi[3];  ///< anticausal steady state of section k per unit input
    float mr[3][3], mi[3][3];  ///< border matrix
};
CascadeFloat cascadeFloat(const RecursiveCascade& c);

/// The recursive Gabor pass of one axis (frequency w) on a demodulated line, x[n] e^{-i w n}:
/// the Gaussian's real recursion (its real pole d0, then its conjugate pair as one real
/// second-order section, y[n] = s0[n] + a1 y[n-1] + a2 y[n-2]) on complex data, with the
/// modulated pass's replicate borders (docs/algorithms.md 3.3) carried over exactly. Its output is the
/// modulated pass's times e^{-i w n}: the same magnitude for a third of the arithmetic.
struct DemodCascade {
    float B, d0, a1, a2;
    /// Causal start per unit first input sample (as given, not demodulated): s0[-1], y[-1], y[-2].
    float cr[3], ci[3];
    /// Anticausal start (v0[N], v2[N], v2[N+1]) from (x[N-1] demodulated, s0[N-1], y[N-1], y[N-2]).
    float qr[3][4], qi[3][4];
};
/// `modulated`: recursiveCascade(sigma, w); its poles are the Gaussian's times e^{+-i w}.
DemodCascade demodCascade(const RecursiveCascade& modulated, double w);
/// The largest sigma the demodulated form serves: the second-order section's float rounding grows
/// as its poles near 1. Largest error of the recursive Gaussian against the reference on lines of
/// up to 1500 samples (tests/cpu/neon/test_lines.cpp): the pole form 2e-7 to 4e-7 at every sigma;
/// the second-order form 2e-7 at sigma 1, 5e-7 at 4, 1e-6 at 8, 6e-6 at 16, 9e-6 at 32.
inline constexpr double kDemodulatedMaxSigma = 8;
/// An axis frequency taken as none: its phase stays below 1e-7 radians over 65536 samples (90
/// degrees' wx is w cos 90 = 6e-17 w, the rounding of the degrees' conversion). A demodulated
/// bank's horizontal pass at such an orientation is real (the cpu's and gles-compute's).
inline constexpr double kNoFrequency = 1e-12;

/// A direct blur's sampled taps t = 0..R (docs/algorithms.md 2.1).
struct DirectBlur {
    std::vector<float> taps;
    int radius() const { return static_cast<int>(taps.size()) - 1; }
};
/// Repeated extended boxes (docs/algorithms.md 2.2): the box, and the replicated samples added on
/// each side of a line.
struct BoxBlur {
    ExtendedBox box;
    int pad = 0;
};
/// The Young-van Vliet recursion (docs/algorithms.md 2.3).
struct RecursiveBlur {
    CascadeFloat cascade{};
};
/// Coefficients of one Gaussian blur, computed at configure time: one alternative per method
/// that runs (`auto` resolved by sigma). Backends visit `method` with a function per
/// alternative, so a method one of them lacks does not compile.
struct BlurPlan {
    double sigma = 0;
    std::variant<DirectBlur, BoxBlur, RecursiveBlur> method;
};
BlurPlan planBlur(const BlurSpec& spec);

/// What the vertical Gabor pass writes.
enum class GaborSink {
    Magnitude,
    Real,
    Imaginary,
    Phase,
    Complex,       ///< real and imaginary planes kept for the interleaved output
    MaxMagnitude,  ///< bank: running maximum of magnitudes
    MaxEnergy,     ///< edge bank: running maximum and the winner's NMS sector
};

/// The sinks' names: `nick` for GLSL's defines (gles/program_cache.h, enumDefines), the
/// description for pass names.
inline constexpr EnumName<GaborSink> kGaborSinks[] = {
    {GaborSink::Magnitude, "magnitude", "magnitude"},
    {GaborSink::Real, "real", "real"},
    {GaborSink::Imaginary, "imaginary", "imaginary"},
    {GaborSink::Phase, "phase", "phase"},
    {GaborSink::Complex, "complex", "complex"},
    {GaborSink::MaxMagnitude, "max-magnitude", "bank maximum"},
    {GaborSink::MaxEnergy, "max-energy", "bank maximum and sector"}};

/// What a sink asks of the filter, answered for every sink by one switch (sinkTraits).
struct GaborSinkTraits {
    bool magnitude = false;  ///< ends in |response| (a magnitude, a bank's maximum)
    bool complex = false;    ///< keeps the real and imaginary planes whole
    bool phase = false;      ///< the response's argument
    bool bank = false;       ///< the running maximum over the orientations
    bool sector = false;     ///< and the winner's NMS sector
};

constexpr GaborSinkTraits sinkTraits(GaborSink s) {
    switch (s) {
    case GaborSink::Magnitude: return {.magnitude = true};
    case GaborSink::Real:
    case GaborSink::Imaginary: return {};
    case GaborSink::Phase: return {.phase = true};
    case GaborSink::Complex: return {.complex = true};
    case GaborSink::MaxMagnitude: return {.magnitude = true, .bank = true};
    case GaborSink::MaxEnergy: return {.magnitude = true, .bank = true, .sector = true};
    }
    return {};
}

/// A bank's sinks: the running maximum of the magnitudes (and the winner's sector).
constexpr bool isBankSink(GaborSink s) { return sinkTraits(s).bank; }

struct GaborOrientationPlan {
    CascadeFloat x{}, y{};  // recursive
    DemodCascade dx{}, dy{};  // recursive, demodulated (a bank's magnitudes)
    double wx = 0, wy = 0;    // the frequencies
    GaborTaps tx, ty;         // direct
    float dcGain = 0;         // K_x K_y when the DC is removed, else 0
    std::uint8_t sector = 0;  // edge bank: NMS sector of this orientation
    int member = 0;           // bank member k (theta_k), the bank being in bankOrder's order
    /// Its frequencies are (-wx, wy) of the one before it in the bank (core/spec.h, bankOrder): on
    /// a real input its horizontal pass is that one's conjugate.
    bool mirrorsPrevious = false;
    /// A mirror's vertical pass at -wy (recursive or direct), to run on its partner's horizontal
    /// pass: g(wy) * conj(h) = conj(g(-wy) * h), so the result is this orientation's response
    /// conjugated (the same magnitude, the DC term being real) with no horizontal pass of its own.
    CascadeFloat yOnPartner{};
    GaborTaps tyOnPartner;
    /// Direct, with one axis free of frequency (0 or 90 degrees): a complex pass along the other
    /// axis (`along`: its cosine taps less K_x K_y times the Gaussian's, which removes the DC
    /// without a blurred plane, since the free axis's taps are the Gaussian's) and a real one
    /// across (`across`), row-wise (GaborBand). Empty `across` otherwise.
    GaborTaps along;
    std::vector<float> across;
    bool alongX = true;  // the frequency is along x
};

struct GaborPlan {
    bool recursive = false;
    bool demodulated = false;  ///< recursive with sigma <= kDemodulatedMaxSigma: dx, dy and dcDemod are set
    DemodCascade dcDemod{};    ///< demodulated: dcBlur's recursion in the second-order form (w = 0)
    bool removeDc = false;
    BlurPlan dcBlur;  // the Gaussian whose K-weighted copy is subtracted
    /// removeDc: the largest |K| = |K_x K_y| at this frequency over every orientation (on a
    /// degree's grid), the most of dcBlur's plane that reaches the output: what its accuracy can
    /// follow while a change of orientation compiles nothing (gles-fragment's response cut).
    double dcWeightBound = 0;
    GaborSink sink = GaborSink::Magnitude;
    std::vector<GaborOrientationPlan> bank;  ///< in bankOrder's order, not the members'
};
GaborPlan planGabor(const GaborSpec& spec);
GaborPlan planEdgeBank(const EdgeSpec& spec);

/// Everything one stage needs at process time: its spec and its coefficients, one type per kind
/// of stage, made from its spec (the variant's converting constructor picks the type). Backends
/// visit it (Overloaded, core/spec.h): a kind one misses does not compile. blurPlans() and
/// gaborPlan() name what a backend sizes its scratch for.
struct BlurStagePlan {
    BlurSpec spec;
    BlurPlan blur;
    BlurStagePlan(const BlurSpec& s) : spec(s), blur(planBlur(s)) {}
    std::vector<const BlurPlan*> blurPlans() const { return {&blur}; }
    const GaborPlan* gaborPlan() const { return nullptr; }
};
struct GaborStagePlan {
    GaborSpec spec;
    GaborPlan gabor;
    GaborStagePlan(const GaborSpec& s) : spec(s), gabor(planGabor(s)) {}
    std::vector<const BlurPlan*> blurPlans() const { return {&gabor.dcBlur}; }
    const GaborPlan* gaborPlan() const { return &gabor; }
};
/// Canny's plan (docs/algorithms.md 4.1): its smoothing.
struct CannyPlan {
    BlurPlan smoothing;
};
/// Gabor energy's plan (docs/algorithms.md 4.2): its bank, each member with its NMS sector.
struct GaborEnergyPlan {
    GaborPlan bank;
};
/// An edge stage: its spec and the plan of its method, one alternative per `EdgeMethod`. Every
/// backend visits `method` with a function per alternative, so a method one of them lacks does
/// not compile.
struct EdgeStagePlan {
    EdgeSpec spec;
    std::variant<CannyPlan, GaborEnergyPlan> method;
    EdgeStagePlan(const EdgeSpec& s);
    std::vector<const BlurPlan*> blurPlans() const;
    const GaborPlan* gaborPlan() const;
};
struct ThresholdStagePlan {
    ThresholdSpec spec;
    BlurPlan mean;  ///< the local mean
    ThresholdStagePlan(const ThresholdSpec& s) : spec(s), mean(planBlur(s.mean())) {}
    std::vector<const BlurPlan*> blurPlans() const { return {&mean}; }
    const GaborPlan* gaborPlan() const { return nullptr; }
};
using StagePlan = std::variant<BlurStagePlan, GaborStagePlan, EdgeStagePlan, ThresholdStagePlan>;
/// Every kind of stage's plan, as StagePlan lists them: STRIATE_STAGE_PLANS(F) is F(BlurStagePlan)
/// F(GaborStagePlan) ... A backend declares its functions of a stage for every kind in one line
/// of its header and defines them in the stage's file (docs/architecture.md, "Adding a stage").
#define STRIATE_STAGE_PLANS(F) F(BlurStagePlan) F(GaborStagePlan) F(EdgeStagePlan) F(ThresholdStagePlan)
#define STRIATE_COUNT_ONE(P) +1
static_assert(std::variant_size_v<StagePlan> == 0 STRIATE_STAGE_PLANS(STRIATE_COUNT_ONE),
              "STRIATE_STAGE_PLANS lists every StagePlan alternative");
#undef STRIATE_COUNT_ONE
StagePlan planStage(const Stage& stage);
/// The Gaussian blurs a stage runs (its own, canny's smoothing, a Gabor's DC blur, a threshold's
/// mean) and its Gabor filter or bank, if any.
std::vector<const BlurPlan*> blursOf(const StagePlan& plan);
const GaborPlan* gaborOf(const StagePlan& plan);

} // namespace striate
