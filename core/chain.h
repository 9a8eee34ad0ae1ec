#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/spec.h"
#include "core/status.h"

namespace striate {

/// A list of stages run in order; each stage filters the previous stage's real output.
struct Chain {
    std::vector<Stage> stages;

    /// Validates every stage and the chain as a whole (complex output only from the last stage).
    Status validate() const;
    /// True when the last stage outputs complex values.
    bool complexOutput() const { return !stages.empty() && isComplexOutput(stages.back()); }
    /// The 8-bit encoding of the chain's output (that of its last stage).
    Encoding encoding() const { return stages.empty() ? Encoding{} : encodingOf(stages.back()); }
    /// Every stage and every parameter equal (exactly: a plan made for one serves the other).
    bool operator==(const Chain&) const = default;
};

/// Parses "blur sigma=2 method=recursive ! gabor sigma=4 wavelength=10 orientation=30".
/// Stage and parameter names are the GStreamer element property names (docs/design.md). Errors name
/// the stage (by position and name), the parameter and the 1-based column of the bad token.
Status parseChain(std::string_view text, Chain* chain);

/// The canonical chain string of a stage, every parameter spelled out.
std::string formatStage(const Stage& stage);
std::string formatChain(const Chain& chain);

/// The blur of a chain whose only stage is a blur, for the half-size chroma planes of a 4:2:0
/// frame (striateblur on NV12 and I420): the same blur in their pixels has half the sigma (at
/// least kMinSigma; a recursive blur below its smallest sigma becomes auto).
Chain chromaChain(const Chain& chain);

} // namespace striate
