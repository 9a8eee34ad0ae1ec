#include "core/spec.h"

#include <cmath>
#include <numbers>
#include <sstream>

namespace striate {

const std::array<float, 256>& unitValues() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (int c = 0; c < 256; ++c) t[c] = unitValue(static_cast<std::uint8_t>(c));
        return t;
    }();
    return table;
}

std::string formatNumber(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

namespace {

Status checkSigma(double sigma) {
    if (!std::isfinite(sigma))
        return Status::error("sigma=" + formatNumber(sigma) + " is not a finite number");
    if (sigma < kMinSigma || sigma > kMaxSigma)
        return Status::error("sigma=" + formatNumber(sigma) + " is outside [" + formatNumber(kMinSigma) +
                             ", " + formatNumber(kMaxSigma) + "]");
    return {};
}

Status checkRecursiveSigma(double sigma) {
    if (sigma < kMinRecursiveSigma)
        return Status::error("sigma=" + formatNumber(sigma) + " is below " + formatNumber(kMinRecursiveSigma) +
                             ", the smallest sigma method=recursive supports");
    return {};
}

Status checkWavelength(double wavelength) {
    return checkRange("wavelength", wavelength, kMinWavelength, kMaxWavelength);
}

Status checkOrientations(int n) {
    if (n < 1 || n > kMaxOrientations)
        return Status::error("orientations=" + std::to_string(n) + " is outside [1, " +
                             std::to_string(kMaxOrientations) + "]");
    return {};
}

} // namespace

Status checkRange(const char* name, double v, double lo, double hi) {
    if (!std::isfinite(v)) return Status::error(std::string(name) + "=" + formatNumber(v) + " is not a finite number");
    if (v < lo || v > hi)
        return Status::error(std::string(name) + "=" + formatNumber(v) + " is outside [" + formatNumber(lo) + ", " +
                             formatNumber(hi) + "]");
    return {};
}

Status BlurSpec::validate() const {
    if (Status s = checkSigma(sigma); !s) return s;
    switch (method) {
    case BlurMethod::Recursive: return checkRecursiveSigma(sigma);
    case BlurMethod::Auto:
    case BlurMethod::Direct:
    case BlurMethod::Boxes: return {};
    }
    return {};
}

BlurMethod BlurSpec::resolvedMethod() const {
    switch (method) {
    case BlurMethod::Auto: return sigma < kAutoDirectBelowSigma ? BlurMethod::Direct : BlurMethod::Recursive;
    case BlurMethod::Direct:
    case BlurMethod::Boxes:
    case BlurMethod::Recursive: return method;
    }
    return method;
}

Status GaborSpec::validate() const {
    if (Status s = checkSigma(sigma); !s) return s;
    if (method == GaborMethod::Recursive)
        if (Status s = checkRecursiveSigma(sigma); !s) return s;
    if (Status s = checkWavelength(wavelength); !s) return s;
    if (Status s = checkRange("orientation", orientation, -kMaxOrientationDegrees, kMaxOrientationDegrees); !s) return s;
    if (Status s = checkOrientations(orientations); !s) return s;
    switch (output) {
    case GaborOutput::Magnitude: break;
    case GaborOutput::Real:
    case GaborOutput::Imaginary:
    case GaborOutput::Phase:
    case GaborOutput::Complex:
        if (orientations > 1)
            return Status::error(std::string("output=") + nickOf(kGaborOutputs, output) +
                                 " needs orientations=1 (a bank outputs the maximum magnitude)");
        break;
    }
    return checkRange("gain", gain, 0, kMaxGain);
}

bool GaborSpec::complexOutput() const {
    switch (output) {
    case GaborOutput::Complex: return true;
    case GaborOutput::Magnitude:
    case GaborOutput::Real:
    case GaborOutput::Imaginary:
    case GaborOutput::Phase: return false;
    }
    return false;
}

GaborMethod GaborSpec::resolvedMethod() const {
    if (method != GaborMethod::Auto) return method;
    return sigma < kAutoDirectBelowSigma ? GaborMethod::Direct : GaborMethod::Recursive;
}

Status EdgeSpec::validate() const {
    if (Status s = checkSigma(sigma); !s) return s;
    // The Gabor method's parameters are checked whatever the method, as the element's ranges are.
    if (Status s = checkWavelength(wavelength); !s) return s;
    if (Status s = checkOrientations(orientations); !s) return s;
    if (Status s = checkRange("low-threshold", lowThreshold, 0, kMaxThreshold); !s) return s;
    if (Status s = checkRange("high-threshold", highThreshold, 0, kMaxThreshold); !s) return s;
    if (lowThreshold > highThreshold)
        return Status::error("low-threshold=" + formatNumber(lowThreshold) + " is above high-threshold=" +
                             formatNumber(highThreshold));
    return {};
}

bool mirrors(double a, double b) {
    // (cos b, sin b) == (-cos a, sin a), to the rounding of the degrees' conversion.
    constexpr double kRadians = std::numbers::pi / 180.0;
    return std::abs(std::cos(b * kRadians) + std::cos(a * kRadians)) < 1e-9 &&
           std::abs(std::sin(b * kRadians) - std::sin(a * kRadians)) < 1e-9;
}

std::vector<int> bankOrder(const std::vector<double>& thetas) {
    const int n = static_cast<int>(thetas.size());
    std::vector<int> order;
    std::vector<bool> visited(n, false);
    for (int k = 0; k < n; ++k) {
        if (visited[k]) continue;
        order.push_back(k);
        visited[k] = true;
        for (int j = k + 1; j < n; ++j)
            if (!visited[j] && mirrors(thetas[k], thetas[j])) {
                order.push_back(j);
                visited[j] = true;
                break;
            }
    }
    return order;
}

GaborSpec EdgeSpec::bankMember(int k) const {
    GaborSpec g;
    g.sigma = sigma;
    g.wavelength = wavelength;
    g.orientation = 180.0 * k / orientations;
    g.orientations = 1;
    g.output = GaborOutput::Complex;
    g.removeDc = true;
    g.method = GaborMethod::Auto;
    return g;
}

Encoding GaborSpec::encoding() const {
    switch (output) {
    case GaborOutput::Real:
    case GaborOutput::Imaginary: return {gain, 0.5};  // signed: zero maps to mid-grey
    case GaborOutput::Phase: return {1.0 / (2.0 * std::numbers::pi), 0.5};  // [-pi, pi] -> [0, 1]
    case GaborOutput::Magnitude:
    case GaborOutput::Complex: break;  // complex: 8 bits carry the magnitude
    }
    return {gain, 0.0};
}

Encoding EdgeSpec::encoding() const {
    switch (output) {
    case EdgeOutput::Strength:
        // The high threshold maps to mid-grey so a PNG shows what the thresholds see.
        if (highThreshold > 0) return {0.5 / highThreshold, 0.0};
        return {};
    case EdgeOutput::Edges:
    case EdgeOutput::Overlay: return {};
    }
    return {};
}

bool EdgeSpec::tracesEdges() const {
    switch (output) {
    case EdgeOutput::Edges:
    case EdgeOutput::Overlay: return true;
    case EdgeOutput::Strength: return false;
    }
    return false;
}

bool EdgeSpec::showsInput() const {
    switch (output) {
    case EdgeOutput::Overlay: return true;
    case EdgeOutput::Edges:
    case EdgeOutput::Strength: return false;
    }
    return false;
}

Status validateStage(const Stage& stage) {
    return std::visit([](const auto& s) { return s.validate(); }, stage);
}

Encoding encodingOf(const Stage& stage) {
    return std::visit([](const auto& s) { return s.encoding(); }, stage);
}

bool isComplexOutput(const Stage& stage) {
    return std::visit([](const auto& s) { return s.complexOutput(); }, stage);
}

} // namespace striate
