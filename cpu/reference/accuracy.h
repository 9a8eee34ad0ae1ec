#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"

/// docs/algorithms.md 8 as one function: how far a backend's output is from the reference's, and the
/// budget it is held to. The conformance tests, `striate selftest` and its goldens all call it,
/// so a budget is written once.
namespace striate::reference {

/// What produced the output compared, which sets its budget.
struct Producer {
    bool gpu = false;     ///< a GLES backend (else cpu)
    bool packed = false;  ///< with packed 8-bit planes (Backend::packedIntermediates)
    bool photo = false;   ///< on a real photo (edge maps: a share of pixels may differ)
    bool golden = false;  ///< the reference here against a golden from another machine
};

/// The measure and its budget: the largest difference (a phase: the arc, angle difference times
/// the magnitude), for edge maps the share of pixels that differ, for a threshold the pixels
/// that differ beyond one code of their threshold (docs/algorithms.md 4.3: none may).
struct Accuracy {
    double error = 0;
    double budget = 0;
    bool pass = false;
};

/// `out` against `reference`, both outputs of `chain` on `input`; where the measure needs more
/// of the reference (a phase's magnitude, a threshold's margins) it runs it on `input`.
Accuracy accuracyOf(const Chain& chain, ImageView<const std::uint8_t> input, const ChainOutput& reference,
                    const ChainOutput& out, const Producer& producer);

} // namespace striate::reference
