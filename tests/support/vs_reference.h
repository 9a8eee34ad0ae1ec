// The one "backend X vs reference" check (Arm Compute Library's reference + fixture +
// per-backend instantiation): tests/cpu/neon/test_cpu_vs_reference.cpp and
// tests/gles/test_gles_vs_reference.cpp instantiate it with their backends, cases and budgets.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <variant>

#include "core/backend.h"
#include "core/chain.h"
#include "cpu/reference/reference.h"
#include "tests/support/inputs.h"

namespace striate::test {

/// What a backend is held to against the reference (ALGORITHMS.md 8).
struct Tolerance {
    double worst = 0;           ///< the largest |difference| of the output (a phase: of its arc)
    double differingShare = 0;  ///< edge maps: the share of pixels that may differ (0: identical)
};

/// Runs the reference and `backend` (configured for `chain` at `size`) on the chain's test
/// input, the backend twice (the second frame reuses what the first set up), and checks the
/// output within `t`. An edge map (wantsIdentical) is compared pixel for pixel; a phase by its
/// arc |angle difference| x |z|, since a phase is only as defined as its magnitude.
inline void expectWithinTolerance(Backend& backend, const Chain& chain, Size size, const Tolerance& t,
                                  const std::string& label) {
    const Image<std::uint8_t> in = inputFor(chain, size);
    const FrameFormat fmt{size.w, size.h};
    reference::ReferenceBackend ref;
    ASSERT_TRUE(ref.configure(chain, fmt));
    ChainOutput a, b;
    ASSERT_TRUE(ref.process(in.view(), &a));
    const Status first = backend.process(in.view(), &b);
    ASSERT_TRUE(first) << first.message();
    const Status second = backend.process(in.view(), &b);
    ASSERT_TRUE(second) << second.message();

    const auto* gabor = std::get_if<GaborSpec>(&chain.stages.back());
    if (gabor && gabor->output == GaborOutput::Phase && gabor->orientations == 1) {
        Chain magnitude = chain;
        std::get<GaborSpec>(magnitude.stages.back()).output = GaborOutput::Magnitude;
        reference::ReferenceBackend refMagnitude;
        ASSERT_TRUE(refMagnitude.configure(magnitude, fmt));
        ChainOutput m;
        ASSERT_TRUE(refMagnitude.process(in.view(), &m));
        double worst = 0;
        for (int y = 0; y < fmt.height; ++y)
            for (int x = 0; x < fmt.width; ++x) {
                const double delta = std::abs(double(a.real.at(x, y)) - double(b.real.at(x, y)));
                const double arc = std::min(delta, 2 * std::numbers::pi - delta) * m.real.at(x, y);
                if (!(arc <= worst)) worst = arc;
            }
        EXPECT_LE(worst, t.worst) << label;
        return;
    }
    const Difference d = compare(a, b);
    if (wantsIdentical(chain))
        EXPECT_LE(d.differ, t.differingShare * fmt.width * fmt.height) << label << ": " << d.differ << " pixels differ";
    else
        EXPECT_LE(d.worst, t.worst) << label;
}

} // namespace striate::test
