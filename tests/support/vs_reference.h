// The one "backend X vs reference" check (Arm Compute Library's reference + fixture +
// per-backend instantiation): tests/cpu/neon/test_cpu_vs_reference.cpp and
// tests/gles/test_gles_vs_reference.cpp instantiate it with their backends, cases and budgets.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "cpu/reference/accuracy.h"
#include "cpu/reference/reference.h"
#include "tests/support/inputs.h"

namespace striate::test {

/// Runs the reference and `backend` (configured for `chain` at `size`) on the chain's test
/// input, the backend twice (the second frame reuses what the first set up), and checks the
/// output within the budget docs/algorithms.md 8 gives that backend (cpu/reference/accuracy.h: the
/// backend says whether it runs on the GPU and packs its planes).
inline void expectWithinBudget(Backend& backend, const Chain& chain, Size size, const std::string& label) {
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
    const reference::Accuracy accuracy = reference::accuracyOf(
        chain, in.view(), a, b, reference::Producer{backend.runsOnGpu(), backend.packedIntermediates(), false, false});
    EXPECT_TRUE(accuracy.pass) << label << ": " << accuracy.error << " against a budget of " << accuracy.budget;
}

/// process8 of `in` at steps 1 and 3, each after a process() of the same frame: every code is
/// encode8 of process()'s float, and no byte between samples or past a row is touched.
inline void expectProcess8EncodesProcess(Backend& b, ImageView<const std::uint8_t> in, const Encoding& e,
                                         const std::string& label) {
    for (int step : {1, 3}) {
        ChainOutput r;
        ASSERT_TRUE(b.process(in, &r)) << label;
        Status processed;
        const CodeDifference d = process8Against(b, in, r, e, step, &processed);
        ASSERT_TRUE(processed) << processed.message();
        EXPECT_EQ(d.differ, 0) << label << " step " << step;
        EXPECT_EQ(d.touched, 0) << label << ": wrote between samples or past the row";
    }
}

} // namespace striate::test
