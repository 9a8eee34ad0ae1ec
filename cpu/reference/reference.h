#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/backend.h"
#include "core/coefficients.h"
#include "core/image.h"
#include "core/spec.h"

/// The reference backend: docs/algorithms.md read literally, scalar, in double precision. Every other
/// backend is tested against these functions; they are tested against the analytic definitions.
namespace striate::reference {

using Plane = Image<double>;
using CPlane = Image<Complex64>;

/// 8-bit luma to the unit range (value / 255).
Plane fromU8(ImageView<const std::uint8_t> in);
CPlane toComplex(const Plane& in);
Plane realPart(const CPlane& in);

// One-dimensional filters on a whole line, replicate borders (docs/algorithms.md 0).
using Line = std::vector<Complex64>;
using LineFilter = std::function<Line(const Line&)>;
/// Convolution with taps[t + R], t = -R..R: out[n] = sum_t in[clamp(n - t)] taps[t + R].
Line directLine(const Line& in, const std::vector<Complex64>& taps);
/// One extended box pass.
Line boxLine(const Line& in, const ExtendedBox& box);
/// Causal then anticausal recursion with exact replicate borders (docs/algorithms.md 3.3).
Line recursiveLine(const Line& in, const Recursive3& f);
/// The same recursion run on a copy padded by `pad` replicated samples per side and then cropped:
/// the definition the exact-border start is tested against.
Line recursivePaddedLine(const Line& in, const Recursive3& f, int pad);

CPlane filterRows(const CPlane& in, const LineFilter& f);
CPlane filterColumns(const CPlane& in, const LineFilter& f);

/// Gaussian blur by the spec's (resolved) method: rows then columns.
Plane blur(const Plane& in, const BlurSpec& spec);

/// Complex Gabor response at one orientation (degrees), DC removed when spec.removeDc.
CPlane gaborComplex(const Plane& in, const GaborSpec& spec, double orientationDegrees);
/// The gabor stage's real output (magnitude, real, imaginary, phase; bank maximum).
Plane gabor(const Plane& in, const GaborSpec& spec);

/// Intermediate maps of edge detection, exposed for tests.
struct EdgeMaps {
    Plane strength;                 ///< gradient magnitude (canny) or max Gabor energy
    std::vector<std::uint8_t> sector;  ///< 0: x, 1: diagonal (1,1), 2: y, 3: anti-diagonal (-1,1)
    std::vector<std::uint8_t> edges;   ///< 1 where an edge survives hysteresis
};
/// `tieSlack` > 0: the spec under packed planes' departure (docs/algorithms.md 5): strengths within
/// it of a neighbour in suppression, or of the bank's running maximum, count as tied as well.
EdgeMaps edgeMaps(const Plane& in, const EdgeSpec& spec, double tieSlack = 0);
Plane edges(const Plane& in, const EdgeSpec& spec, double tieSlack = 0);

/// Runs a whole chain: the real output of each stage feeds the next.
/// The last stage's complex output (gabor output=complex) is returned in `complexOut`.
Plane runChain(const Plane& in, const Chain& chain, CPlane* complexOut);

/// The reference as a Backend (tests, `--backend reference`, selftest oracle).
class ReferenceBackend final : public Backend {
public:
    const char* name() const override { return "reference"; }
    Status validate(const Chain& chain, const FrameFormat& format) const override;
    Status configure(const Chain& chain, const FrameFormat& format) override;
    Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) override;

private:
    Chain chain_;
    FrameFormat format_;
    Image<float> real_;
    Image<Complex32> complex_;
};

} // namespace striate::reference
