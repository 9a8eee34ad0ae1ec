#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/spec.h"
#include "cpu/neon/lines.h"

namespace striate::cpu {

/// Coefficients of one Gaussian blur, computed at configure time.
struct BlurPlan {
    BlurMethod method = BlurMethod::Direct;
    double sigma = 0;
    std::vector<float> taps;  // direct
    /// 8-bit in and out (fixed.h): direct, or auto below kAutoFixedBelowSigma; empty where the
    /// fixed-point kernel does not run.
    std::vector<std::int16_t> fixedTaps;
    ExtendedBox box;          // boxes
    int pad = 0;              // boxes: replicated samples added on each side of a line
    CascadeFloat recursive{};
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

struct GaborOrientationPlan {
    CascadeFloat x{}, y{};  // recursive
    GaborTaps tx, ty;         // direct
    float dcGain = 0;         // K_x K_y when the DC is removed, else 0
    std::uint8_t sector = 0;  // edge bank: NMS sector of this orientation
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
    bool removeDc = false;
    BlurPlan dcBlur;  // the Gaussian whose K-weighted copy is subtracted
    GaborSink sink = GaborSink::Magnitude;
    std::vector<GaborOrientationPlan> bank;
};
GaborPlan planGabor(const GaborSpec& spec);
GaborPlan planEdgeBank(const EdgeSpec& spec);

/// Everything one stage needs at process time, and the name of the kernel that runs it.
struct StagePlan {
    std::string kernel;
    BlurPlan blur;    // blur stage, or canny smoothing
    GaborPlan gabor;  // gabor stage, or gabor-energy edges
};
StagePlan planStage(const Stage& stage);

} // namespace striate::cpu
