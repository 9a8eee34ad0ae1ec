// gles-compute's planner without a GLES context (the no-display run includes these tests): the
// passes a chain becomes, the planes shared by liveness, and the GPU memory a plan holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "board/profile.h"
#include "core/chain.h"
#include "gles/compute_plan.h"

namespace striate {
namespace {

constexpr FrameFormat k1080p{1920, 1080};
constexpr double kMiB = 1024.0 * 1024.0;

gles::ComputePlan planOf(const std::string& text, FrameFormat format = k1080p, bool redReadback = true) {
    Chain chain;
    EXPECT_TRUE(parseChain(text, &chain)) << text;
    gles::ComputePlan plan;
    gles::ComputePlanner(findBoardProfile("rpi4")->limits, format, redReadback, &plan).planChain(chain);
    EXPECT_TRUE(plan.status) << plan.status.message();
    return plan;
}

int planesOf(const gles::ComputePlan& plan, gles::ComputePlane::Format format) {
    int n = 0;
    for (const gles::ComputePlane& p : plan.planes) n += p.format == format;
    return n;
}

/// Every binding names a plane, buffer or program of the plan; no pass reads a plane through a
/// sampler that it also writes as an image (shared storage never aliases a pass's input and
/// output); one --explain line per dispatch, process8's encode pass (where there is one) last.
void expectWellFormed(const gles::ComputePlan& plan) {
    std::size_t dispatches = 0;
    const auto check = [&](const gles::ComputePass& pass) {
        ++dispatches;
        ASSERT_GE(pass.program, 0);
        ASSERT_LT(pass.program, static_cast<int>(plan.programs.size()));
        std::set<int> sampled, imaged;
        for (const gles::ComputeBinding& b : pass.bindings) {
            const std::size_t count = b.kind == gles::ComputeBinding::Kind::Buffer ? plan.buffers.size() : plan.planes.size();
            ASSERT_GE(b.index, 0);
            ASSERT_LT(b.index, static_cast<int>(count));
            if (b.kind == gles::ComputeBinding::Kind::Sampler) sampled.insert(b.index);
            if (b.kind == gles::ComputeBinding::Kind::Image) imaged.insert(b.index);
        }
        for (int p : sampled) EXPECT_EQ(imaged.count(p), 0u) << plan.programs[pass.program].file << " samples plane " << p << " that it writes";
    };
    for (const gles::ComputeStep& step : plan.steps)
        for (const gles::ComputePass& pass : step.passes) check(pass);
    if (plan.codes >= 0) {
        check(plan.encode);
        EXPECT_EQ(plan.programs[plan.encode.program].file, "encode8.comp");
    }
    EXPECT_EQ(plan.passes.size(), dispatches);
}

TEST(ComputePlan, ABlurHoldsTwoFloatPlanes) {
    // The frame's unit values and the rows' result; the columns' result reuses the frame's plane
    // (direct) or the rows' (recursive, in place), and the result is read through a framebuffer.
    for (const char* chain : {"blur sigma=2", "blur sigma=8 method=recursive", "blur sigma=8 method=boxes"}) {
        const gles::ComputePlan plan = planOf(chain);
        expectWellFormed(plan);
        EXPECT_EQ(plan.planes.size(), 2u) << chain;
        EXPECT_EQ(plan.readback, -1) << chain;
        EXPECT_LE(plan.bytes(k1080p) / kMiB, 16.0) << chain;
    }
}

TEST(ComputePlan, CannyHoldsTwoFloatAndTwoIntegerPlanes) {
    const gles::ComputePlan plan = planOf("edges");
    expectWellFormed(plan);
    EXPECT_EQ(planesOf(plan, gles::ComputePlane::Format::R32F), 2);
    EXPECT_EQ(planesOf(plan, gles::ComputePlane::Format::R32UI), 2);
    EXPECT_LE(plan.bytes(k1080p) / kMiB, 32.0);
    int repeated = 0;
    for (const gles::ComputeStep& s : plan.steps)
        if (s.repeatUntilStable) {
            ++repeated;
            // Its cap is the plan's: every pass but the last grows a pixel of the frame.
            EXPECT_EQ(s.maxRepeats, 1920L * 1080 + 1);
        }
    EXPECT_EQ(repeated, 1) << "the hysteresis: one step repeated until stable";
}

std::size_t passesNamed(const gles::ComputePlan& plan, const std::string& prefix) {
    return static_cast<std::size_t>(std::count_if(plan.passes.begin(), plan.passes.end(),
                                                  [&](const gles::PassInfo& p) { return p.name.starts_with(prefix); }));
}

TEST(ComputePlan, AGaborBankKeepsOneRunningMaximum) {
    // Demodulated (sigma up to 8): the frame's codes (a byte a pixel; its only readers are the
    // horizontal passes) and the running maximum; one visit's complex response at a time in a pair
    // buffer (two columns' values a vec4: two planes' bytes); the DC plane as a buffer of real pairs
    // (one plane's); a mirror's causal outputs for a third of the columns (8/3 bytes a pixel); the
    // codes' unit values. Less than the five frames of floats it held before the codes and mirrors.
    const gles::ComputePlan plan = planOf("gabor sigma=4 wavelength=8 orientations=6");
    expectWellFormed(plan);
    EXPECT_EQ(plan.planes.size(), 2u);
    EXPECT_EQ(plan.planes[plan.luma].format, gles::ComputePlane::Format::R8UI);
    const std::size_t pixels = 1920 * 1080;
    EXPECT_EQ(plan.bytes(k1080p), (1 + 4 + 8 + 4) * pixels + 8 * 640 * 1080 + 256 * sizeof(float));
    EXPECT_LT(plan.bytes(k1080p), 5 * sizeof(float) * pixels);
    // process8's codes go into a buffer no pass needs by then (within the bytes above).
    ASSERT_GE(plan.codes, 0);
    EXPECT_TRUE(plan.buffers[plan.codes].data.empty());
    EXPECT_GE(plan.buffers[plan.codes].bytes, 1920u * 1080u);
    EXPECT_EQ(plan.passes.back().name, "encode8.comp");
    EXPECT_EQ(planOf("gabor sigma=4 wavelength=8 orientations=6", k1080p, false).codes, -1) << "no R32F read-back: the host encodes";
    // bankOrder is 0, 30, 150, 60, 120, 90. 90 degrees' horizontal pass is the DC plane's, which
    // runs alone, and 90 degrees is visited first: its vertical pass reads the DC's pairs and runs
    // the DC plane's vertical pass beside its own (FROM_DC; its pixels' phases from their rows
    // alone). Then a horizontal pass for 0 and one for each mirror pair (30 and 150, 60 and 120),
    // the pairs' vertical passes in three strips, the last pair's taking the square root.
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=1 CODES=1"), 1u);  // the DC's rows
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=0 CODES=1"), 3u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=0 CODES=1 WITH_DC=1"), 0u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=1 CODES=1 WIDEN=1"), 0u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=1 DEMOD=1 REAL=1"), 0u);  // the DC's columns: in 90's
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=1 DEMOD=1 REAL=0"), 8u);
    EXPECT_EQ(passesNamed(plan, "recursive_line.comp"), 0u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=1 DEMOD=1 REAL=0 FIRST=1 LAST=0"), 1u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=1 DEMOD=1 REAL=0 FIRST=0 LAST=1"), 3u);
    std::size_t mirrors = 0, noWy = 0;
    for (const gles::PassInfo& p : plan.passes) {
        mirrors += p.name.ends_with("MIRROR=1");
        noWy += p.name.ends_with("NO_WY=1");
    }
    EXPECT_EQ(mirrors, 6u);
    // 0 degrees' vertical pass turns no sample (no frequency along y).
    EXPECT_EQ(noWy, 1u);
    ASSERT_GE(plan.passes.size(), 2u);
    EXPECT_TRUE(plan.passes[1].name.starts_with("recursive_pairs.comp AXIS=1 DEMOD=1 REAL=0 FIRST=1 LAST=0"));
    EXPECT_TRUE(plan.passes[1].name.ends_with("NO_WX=1 FROM_DC=1")) << plan.passes[1].name;

    // The energy bank's sectors keep bankOrder's ties: 0 degrees first, the DC plane's horizontal
    // pass inside its own, 90 degrees' real horizontal pass and its vertical pass last.
    const gles::ComputePlan energy = planOf("edges method=gabor sigma=4 wavelength=8");
    expectWellFormed(energy);
    EXPECT_EQ(passesNamed(energy, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=0 CODES=1 WITH_DC=1"), 1u);
    EXPECT_EQ(passesNamed(energy, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=1 CODES=1 WIDEN=1"), 1u);
    for (const gles::PassInfo& p : energy.passes) EXPECT_EQ(p.name.find("FROM_DC"), std::string::npos) << p.name;
}

TEST(ComputePlan, TheFrameGoesUpAsFloatsWhereAnotherPassReadsIt) {
    // A blur first, or a bank above sigma 8 (whose DC plane is a recursive blur of the frame):
    // unit floats, as every other chain.
    for (const char* chain : {"blur sigma=2 ! gabor sigma=4 wavelength=8 orientations=6", "gabor sigma=12 wavelength=24 orientations=6"}) {
        const gles::ComputePlan plan = planOf(chain);
        EXPECT_EQ(plan.planes[plan.luma].format, gles::ComputePlane::Format::R32F) << chain;
        EXPECT_EQ(planesOf(plan, gles::ComputePlane::Format::R8UI), 0) << chain;
    }
    // Without DC removal the bank's horizontal passes are the frame's only readers.
    EXPECT_EQ(planOf("gabor sigma=12 wavelength=24 orientations=6 remove-dc=false").planes[0].format, gles::ComputePlane::Format::R8UI);
    // Gabor energy's bank takes the codes, unless its overlay reads the frame again: then the
    // chain is planned again with floats, and no pass reads codes.
    EXPECT_EQ(planOf("edges method=gabor sigma=4 wavelength=10").planes[0].format, gles::ComputePlane::Format::R8UI);
    const gles::ComputePlan overlay = planOf("edges method=gabor sigma=4 wavelength=10 output=overlay");
    expectWellFormed(overlay);
    EXPECT_EQ(planesOf(overlay, gles::ComputePlane::Format::R8UI), 0);
    EXPECT_EQ(passesNamed(overlay, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=0 CODES=1"), 0u);
    EXPECT_EQ(passesNamed(overlay, "recursive_pairs.comp AXIS=0 DEMOD=1 REAL=0 CODES=0"), 3u);
}

TEST(ComputePlan, ABankAboveSigma8RunsThePoleFormOnPairs) {
    // The pole form on the pair buffer; the DC plane the recursive blur's, in place.
    const gles::ComputePlan plan = planOf("gabor sigma=12 wavelength=24 orientations=6");
    expectWellFormed(plan);
    EXPECT_EQ(plan.planes.size(), 3u);
    EXPECT_EQ(plan.bytes(k1080p), 5u * sizeof(float) * 1920 * 1080);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=0 DEMOD=0"), 6u);
    EXPECT_EQ(passesNamed(plan, "recursive_pairs.comp AXIS=1 DEMOD=0"), 6u);
    EXPECT_EQ(passesNamed(plan, "recursive_line.comp"), 2u);
}

TEST(ComputePlan, PlanesDoNotGrowWithTheChain) {
    // Later stages reuse the planes earlier ones no longer need.
    const std::size_t one = planOf("blur sigma=2").planes.size();
    const std::size_t three = planOf("blur sigma=2 ! blur sigma=3 ! blur sigma=4 method=recursive").planes.size();
    EXPECT_EQ(one, three);
}

TEST(ComputePlan, AComplexResultOrOneWithoutRedReadbackGoesThroughABuffer) {
    const gles::ComputePlan complex = planOf("gabor output=complex");
    expectWellFormed(complex);
    EXPECT_GE(complex.readback, 0);
    EXPECT_EQ(complex.result, -1);
    EXPECT_EQ(complex.buffers[complex.readback].bytes, sizeof(float) * 2 * 1920 * 1080);
    const gles::ComputePlan stored = planOf("blur", k1080p, false);
    expectWellFormed(stored);
    EXPECT_GE(stored.readback, 0);
    EXPECT_EQ(stored.passes.back().name, "store.comp COMPLEX=0");
}

TEST(ComputePlan, EveryStageAndOutputIsWellFormed) {
    for (const char* chain : {"blur method=direct", "blur method=boxes sigma=5", "blur method=recursive sigma=5",
                              "gabor method=direct sigma=2", "gabor sigma=4 orientations=4", "gabor output=phase",
                              "gabor output=real", "edges output=strength", "edges output=overlay",
                              "edges method=gabor output=overlay", "blur sigma=1 ! gabor ! edges"})
        for (FrameFormat f : {FrameFormat{1, 1}, FrameFormat{33, 7}, k1080p}) {
            SCOPED_TRACE(std::string(chain) + " at " + std::to_string(f.width) + "x" + std::to_string(f.height));
            expectWellFormed(planOf(chain, f));
        }
}

} // namespace
} // namespace striate
