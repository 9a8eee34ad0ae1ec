// The cpu backend against the reference, within docs/algorithms.md section 8, for every size class the
// issue names: 1x1, 1xN, Nx1, 2x3, 17x13 and widths that are not a multiple of the vector width or
// of the 16-line block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/chain.h"
#include "cpu/neon/cpu_backend.h"
#include "cpu/reference/reference.h"
#include "tests/support/inputs.h"
#include "tests/support/vs_reference.h"

namespace striate {
namespace {

using test::Size;

struct Case {
    std::string chain;
    Size size;
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
    return test::caseLabel(info.param.chain, info.param.size) + "_" + std::to_string(info.index);
}

class CpuVsReference : public ::testing::TestWithParam<Case> {};

TEST_P(CpuVsReference, WithinBudget) {
    const Case& c = GetParam();
    Chain chain;
    ASSERT_TRUE(parseChain(c.chain, &chain)) << c.chain;
    cpu::CpuBackend fast(2);
    ASSERT_TRUE(fast.configure(chain, FrameFormat{c.size.w, c.size.h}));
    test::expectWithinBudget(fast, chain, c.size, c.chain);
}

std::vector<Case> cases() {
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {17, 13}, {5, 40}, {33, 7}, {64, 48}, {131, 67}};
    std::vector<std::string> chains;
    for (const char* m : {"direct", "boxes", "recursive"})
        for (double s : {0.3, 0.8, 2.0, 5.0, 16.0, 64.0}) {
            if (std::string(m) == "recursive" && s < 0.5) continue;
            chains.push_back("blur sigma=" + std::to_string(s) + " method=" + m);
        }
    chains.push_back("blur sigma=2");
    chains.push_back("blur sigma=7");
    for (const char* m : {"direct", "recursive"})
        for (int theta : {0, 30, 90, 135})
            for (const char* out : {"magnitude", "real", "imaginary", "complex"})
                chains.push_back(std::string("gabor sigma=") + (m[0] == 'd' ? "1.5" : "4") + " wavelength=6 orientation=" +
                                 std::to_string(theta) + " output=" + out + " method=" + m);
    chains.push_back("gabor sigma=4 wavelength=8 orientation=30 remove-dc=false method=recursive output=complex");
    chains.push_back("gabor sigma=2 wavelength=5 orientation=60 remove-dc=false method=direct output=complex");
    chains.push_back("gabor sigma=10 wavelength=20 orientation=45 method=recursive");
    chains.push_back("gabor sigma=3 wavelength=8 orientations=6");
    chains.push_back("gabor sigma=1 wavelength=4 orientations=4 method=direct");
    // Banks: mirrors (bankOrder) demodulated, modulated above kDemodulatedMaxSigma, none where
    // the bank has no mirrors (an odd count's last, an offset), the DC kept.
    chains.push_back("gabor sigma=10 wavelength=20 orientations=5 method=recursive");
    chains.push_back("gabor sigma=4 wavelength=8 orientation=10 orientations=3");
    chains.push_back("gabor sigma=5 wavelength=9 orientations=4 remove-dc=false");
    chains.push_back("edges method=gabor sigma=9 wavelength=16 orientations=6 output=strength");
    chains.push_back("blur sigma=1 ! gabor sigma=4 wavelength=10 orientation=30 output=real");
    chains.push_back("edges");
    chains.push_back("edges sigma=2.5 low-threshold=0.01 high-threshold=0.04 output=overlay");
    chains.push_back("edges method=gabor sigma=2 wavelength=6 low-threshold=0.02 high-threshold=0.06");
    chains.push_back("edges method=gabor sigma=4 wavelength=10 orientations=4 output=strength");
    chains.push_back("blur sigma=1 ! edges output=strength");
    // Every stage's examples (the catalogue selftest runs), where the sweep above lacks them.
    for (const std::string& ch : test::catalogue())
        if (std::find(chains.begin(), chains.end(), ch) == chains.end()) chains.push_back(ch);
    std::vector<Case> out;
    for (const auto& ch : chains)
        for (Size s : sizes) out.push_back({ch, s});
    // Frames tall enough for the banded direct FIR (FirBand: two bands per worker, radius up to
    // an eighth of a band), alone and fused into Canny, from 8-bit and from float input.
    for (const char* ch : {"blur sigma=0.8 method=direct", "blur sigma=2 method=direct", "blur sigma=3.5 method=direct",
                           "edges", "edges output=strength", "edges sigma=0.6 low-threshold=0.01 output=overlay",
                           "blur sigma=1 ! edges sigma=1.2 output=strength", "gabor sigma=1.5 wavelength=5 method=direct"})
        for (Size s : {Size{203, 257}, Size{61, 480}}) out.push_back({ch, s});
    // Canny's suppression finds the vectors above the low threshold 64 at a time (256 pixels):
    // rows of more than one such block (at 568x230 the scene's disc ends in the first block's
    // last vector, x = 253..256, and its rectangle in the second's, x = 509..512), and a block's
    // last vector cut short.
    for (const char* ch : {"edges", "edges sigma=0.8 low-threshold=0.01 output=strength"})
        for (Size s : {Size{568, 230}, Size{262, 40}}) out.push_back({ch, s});
    // The same frames for the row-wise Gabor (GaborBand: 0 and 90 degrees, direct): every output,
    // the DC folded into the taps or not, banks mixing row-wise members with others, float input,
    // a wavelength of 2 (both axes free of sine terms), and the Gabor energy edges.
    for (const char* ch : {"gabor sigma=1.5 wavelength=5 orientation=90 output=complex method=direct",
                           "gabor sigma=1.5 wavelength=5 output=complex remove-dc=false method=direct",
                           "gabor sigma=1.5 wavelength=5 orientation=90 output=imaginary method=direct",
                           "gabor sigma=1.5 wavelength=2 output=real method=direct",
                           "gabor sigma=1.5 wavelength=4 orientations=2 method=direct",
                           "gabor sigma=1.5 wavelength=4 orientations=4 method=direct",
                           "blur sigma=1 ! gabor sigma=1.5 wavelength=6 orientation=90 method=direct",
                           "edges method=gabor sigma=1.5 wavelength=5 orientations=4"})
        for (Size s : {Size{203, 257}, Size{61, 480}}) out.push_back({ch, s});
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllStages, CpuVsReference, ::testing::ValuesIn(cases()), caseName);

// process8 gives the codes of process() through the chain's encoding, written `step` bytes
// apart: the cpu backend's own (threads, edge classes straight to codes) and Backend's default
// (the reference backend). A direct blur alone up to sigma 11 runs in fixed point instead,
// within one code (test_fixed.cpp); sigma 12 is beyond it.
class Process8 : public ::testing::TestWithParam<std::string> {};

TEST_P(Process8, MatchesEncodedProcess) {
    Chain chain;
    ASSERT_TRUE(parseChain(GetParam(), &chain)) << GetParam();
    const Encoding e = chain.encoding();
    for (Size s : {Size{1, 1}, Size{37, 29}, Size{203, 257}}) {
        const Image<std::uint8_t> in = test::inputFor(chain, s);
        const FrameFormat fmt{s.w, s.h};
        cpu::CpuBackend fast(2);
        reference::ReferenceBackend ref;
        for (Backend* b : {static_cast<Backend*>(&fast), static_cast<Backend*>(&ref)}) {
            ASSERT_TRUE(b->configure(chain, fmt));
            test::expectProcess8EncodesProcess(*b, in.view(), e, std::string(b->name()) + " " + GetParam() + " " + std::to_string(s.w) + "x" + std::to_string(s.h));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Outputs, Process8,
                         ::testing::Values("blur sigma=12 method=direct", "blur sigma=5 method=boxes",
                                           "gabor sigma=3 wavelength=8 orientation=30 output=real",
                                           "gabor sigma=3 wavelength=8 output=magnitude", "edges",
                                           "edges output=overlay", "edges output=strength",
                                           "blur sigma=1 ! edges output=overlay",
                                           "edges method=gabor sigma=2 wavelength=6 low-threshold=0.02"));

// Hysteresis runs per band of rows, then floods what crosses the bands' edges. Two faint
// contours, strong only where their contrast rises at the bottom: a bar spanning all four bands
// (strong in the last), and a circle on the first band's edge (strong below it), whose top arc
// is reached only by leaving that band and coming back on both sides. Every pixel is as the
// reference's single flood marks it, in floats and in codes (the bands' rows are written in
// their jobs, the pixels marked across bands one by one afterwards).
TEST(CpuBackend, HysteresisFollowsEdgesAcrossBands) {
    const Size size{64, 240};  // two threads: four bands of 60 rows
    auto rise = [](double t) {  // 0 to 1, smoothly
        t = std::clamp(t, 0.0, 1.0);
        return t * t * (3 - 2 * t);
    };
    Image<std::uint8_t> in(size.w, size.h);
    for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) {
            const double bar = x >= 8 && x < 14 && y < 236 ? 20 + 130 * rise((y - 200) / 30.0) : 0;
            const double cover = std::clamp(20.5 - std::hypot(x - 38.0, y - 60.0), 0.0, 1.0);
            const double circle = cover * (20 + 130 * rise((y - 66) / 12.0));
            in.at(x, y) = static_cast<std::uint8_t>(std::lround(100 + std::max(bar, circle)));
        }
    for (const char* output : {"edges", "overlay"}) {
        Chain chain;
        ASSERT_TRUE(parseChain(std::string("edges sigma=1 low-threshold=0.01 high-threshold=0.1 output=") + output, &chain));
        reference::ReferenceBackend ref;
        cpu::CpuBackend fast(2);
        ChainOutput a, b;
        for (Backend* be : {static_cast<Backend*>(&ref), static_cast<Backend*>(&fast)})
            ASSERT_TRUE(be->configure(chain, FrameFormat{size.w, size.h}));
        ASSERT_TRUE(ref.process(in.view(), &a));
        ASSERT_TRUE(fast.process(in.view(), &b));
        EXPECT_EQ(test::compare(a, b).differ, 0) << output;
        for (int step : {1, 3}) {
            const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(size.w) * step;
            std::vector<std::uint8_t> got(static_cast<std::size_t>(stride) * size.h, 7);
            ASSERT_TRUE(fast.process8(in.view(), Output8{got.data(), stride, step, chain.encoding()}));
            const test::CodeDifference d = test::compareCodes(got, size, stride, step, 7, [&](int x, int y) {
                return encode8(a.real.at(x, y), chain.encoding());
            });
            EXPECT_EQ(d.differ, 0) << output << " step " << step;
        }
        // Not vacuous: both contours are edges in the first band, where neither is strong.
        int bar = 0, arc = 0;
        for (int y = 0; y < 60; ++y)
            for (int x = 0; x < size.w; ++x) (x < 16 ? bar : arc) += b.real.at(x, y) == 1.0f;
        EXPECT_GT(bar, 80) << output;
        EXPECT_GT(arc, 30) << output;
    }
}

TEST(CpuBackend, RejectsMismatchedFramesAndBadSizes) {
    cpu::CpuBackend b(1);
    Chain chain;
    ASSERT_TRUE(parseChain("blur", &chain));
    EXPECT_FALSE(b.configure(chain, FrameFormat{0, 5}));
    EXPECT_FALSE(b.configure(chain, FrameFormat{kMaxDimension + 1, 5}));
    ASSERT_TRUE(b.configure(chain, FrameFormat{8, 8}));
    Image<std::uint8_t> wrong(9, 8);
    ChainOutput out;
    Status s = b.process(wrong.view(), &out);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("does not match the configured 8x8"), std::string::npos);
}

// method=auto on a Gabor whose orientations all run row-wise (0 and 90 degrees) takes the direct
// method below kAutoRowWiseGaborBelowSigma on the cpu, where the recursive filter is slower; the
// chain it runs says so, and is what it is held to.
struct AutoCase {
    const char* chain;
    Size size;
    GaborMethod runs;
};

class CpuAutoGabor : public ::testing::TestWithParam<AutoCase> {};

TEST_P(CpuAutoGabor, RunsTheMethodItNames) {
    const AutoCase& c = GetParam();
    Chain chain;
    ASSERT_TRUE(parseChain(c.chain, &chain)) << c.chain;
    cpu::CpuBackend fast(2);
    ASSERT_TRUE(fast.configure(chain, FrameFormat{c.size.w, c.size.h}));
    const auto& g = std::get<GaborSpec>(fast.runs().stages.back());
    EXPECT_EQ(g.method == GaborMethod::Auto ? g.resolvedMethod() : g.method, c.runs) << c.chain;
    EXPECT_EQ(fast.kernels().back(), c.runs == GaborMethod::Direct ? "gabor.direct.fir-complex" : "gabor.recursive.yvv3-complex");
    test::expectWithinBudget(fast, fast.runs(), c.size, c.chain);
}

INSTANTIATE_TEST_SUITE_P(
    Choices, CpuAutoGabor,
    ::testing::Values(AutoCase{"gabor sigma=4 wavelength=8 output=complex", {61, 480}, GaborMethod::Direct},
                      AutoCase{"gabor sigma=4 wavelength=8 output=real", {1, 1}, GaborMethod::Direct},
                      AutoCase{"gabor sigma=7.5 wavelength=8 output=imaginary", {33, 7}, GaborMethod::Direct},
                      AutoCase{"gabor sigma=3 wavelength=6 orientations=2", {61, 480}, GaborMethod::Direct},
                      AutoCase{"blur sigma=1 ! gabor sigma=5 wavelength=9 orientation=90", {61, 480}, GaborMethod::Direct},
                      // Along y a band's halo is filtered horizontally: too costly on short frames.
                      AutoCase{"gabor sigma=5 wavelength=9 orientation=90", {61, 40}, GaborMethod::Recursive},
                      AutoCase{"gabor sigma=8 wavelength=16", {61, 480}, GaborMethod::Recursive},
                      AutoCase{"gabor sigma=4 wavelength=8 orientation=30", {61, 480}, GaborMethod::Recursive},
                      AutoCase{"gabor sigma=4 wavelength=8 orientations=4", {61, 480}, GaborMethod::Recursive},
                      AutoCase{"gabor sigma=4 wavelength=8 method=recursive", {61, 480}, GaborMethod::Recursive},
                      AutoCase{"gabor sigma=2 wavelength=8", {61, 480}, GaborMethod::Direct}));

TEST(CpuBackend, NamesItsKernels) {
    cpu::CpuBackend b(1);
    Chain chain;
    ASSERT_TRUE(parseChain("blur sigma=8 ! gabor method=direct ! edges method=gabor", &chain));
    ASSERT_TRUE(b.configure(chain, FrameFormat{8, 8}));
    ASSERT_EQ(b.kernels().size(), 3u);
    EXPECT_EQ(b.kernels()[0], "blur.recursive.yvv3");
    EXPECT_EQ(b.kernels()[1], "gabor.direct.fir-complex");
    EXPECT_EQ(b.kernels()[2], "edges.gabor-energy.bank-nms-hysteresis");
}

} // namespace
} // namespace striate
