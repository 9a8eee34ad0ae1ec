#include "core/chain.h"

#include <gtest/gtest.h>

#include <cmath>

namespace striate {
namespace {

TEST(ChainParser, ParsesStagesAndParameters) {
    Chain c;
    ASSERT_TRUE(parseChain("blur sigma=2 method=recursive ! gabor sigma=4 wavelength=10 orientation=30 output=magnitude", &c));
    ASSERT_EQ(c.stages.size(), 2u);
    const auto& b = std::get<BlurSpec>(c.stages[0]);
    EXPECT_EQ(b.sigma, 2.0);
    EXPECT_EQ(b.method, BlurMethod::Recursive);
    const auto& g = std::get<GaborSpec>(c.stages[1]);
    EXPECT_EQ(g.sigma, 4.0);
    EXPECT_EQ(g.wavelength, 10.0);
    EXPECT_EQ(g.orientation, 30.0);
    EXPECT_EQ(g.output, GaborOutput::Magnitude);
    EXPECT_TRUE(g.removeDc);
}

TEST(ChainParser, DefaultsAndEdges) {
    Chain c;
    ASSERT_TRUE(parseChain("  edges  ", &c));
    const auto& e = std::get<EdgeSpec>(c.stages[0]);
    EXPECT_EQ(e.method, EdgeMethod::Canny);
    EXPECT_EQ(e.sigma, 1.4);
    ASSERT_TRUE(parseChain("edges method=gabor orientations=8 low-threshold=0.01 high-threshold=0.2 output=overlay", &c));
    const auto& g = std::get<EdgeSpec>(c.stages[0]);
    EXPECT_EQ(g.method, EdgeMethod::Gabor);
    EXPECT_EQ(g.orientations, 8);
    EXPECT_EQ(g.output, EdgeOutput::Overlay);
}

TEST(ChainParser, FormatRoundTrips) {
    Chain c, d;
    ASSERT_TRUE(parseChain("blur sigma=1.5 ! gabor orientations=4 remove-dc=false gain=3 ! edges method=gabor", &c));
    ASSERT_TRUE(parseChain(formatChain(c), &d));
    EXPECT_EQ(formatChain(c), formatChain(d));
}

struct BadChain {
    const char* text;
    const char* expected;  // a fragment the message must contain
};

class ChainErrors : public ::testing::TestWithParam<BadChain> {};

TEST_P(ChainErrors, NameStageParameterAndPosition) {
    Chain c;
    Status s = parseChain(GetParam().text, &c);
    ASSERT_FALSE(s.ok()) << GetParam().text;
    EXPECT_NE(s.message().find(GetParam().expected), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(
    Messages, ChainErrors,
    ::testing::Values(BadChain{"blurr sigma=2", "chain stage 1 (column 1): unknown stage 'blurr'"},
                      BadChain{"blur ! gabr", "chain stage 2 (column 8): unknown stage 'gabr'"},
                      BadChain{"blur sigma=0", "chain stage 1 'blur' (column 1): sigma=0 is outside [0.3, 256]"},
                      BadChain{"blur sigma=nan", "sigma=nan is not a finite number"},
                      BadChain{"blur sigma=inf", "sigma=inf is not a finite number"},
                      BadChain{"blur sigma=abc", "(column 12): sigma='abc' is not a number"},
                      BadChain{"blur sigma=300", "sigma=300 is outside [0.3, 256]"},
                      BadChain{"blur sigma=0.4 method=recursive", "smallest sigma method=recursive supports"},
                      BadChain{"blur radius=3", "(column 6): unknown parameter 'radius' (expected sigma, method)"},
                      BadChain{"blur method=fast", "method='fast' is not one of auto, direct, boxes, recursive"},
                      BadChain{"blur sigma", "expected name=value, got 'sigma'"},
                      BadChain{"gabor wavelength=1", "wavelength=1 is outside [2, 1e+06]"},
                      BadChain{"gabor orientations=17", "orientations=17 is outside [1, 16]"},
                      BadChain{"gabor orientations=2.5", "orientations='2.5' is not an integer"},
                      BadChain{"gabor orientations=4 output=phase", "needs orientations=1"},
                      BadChain{"gabor remove-dc=maybe", "remove-dc='maybe' is not true or false"},
                      BadChain{"gabor gain=-1", "gain=-1 is outside [0, 1e+06]"},
                      // One set of rules with the elements' property ranges (issue 16, finding 9).
                      BadChain{"gabor orientation=1e30", "orientation=1e+30 is outside [-360, 360]"},
                      BadChain{"gabor gain=1e300", "gain=1e+300 is outside [0, 1e+06]"},
                      BadChain{"edges high-threshold=1e308", "high-threshold=1e+308 is outside [0, 1e+06]"},
                      BadChain{"edges orientations=-5", "orientations=-5 is outside [1, 16]"},
                      BadChain{"edges wavelength=-1", "wavelength=-1 is outside [2, 1e+06]"},
                      BadChain{"blur sigma=0x10", "sigma='0x10' is not a number"},
                      BadChain{"blur sigma= 2", "sigma='' is not a number"},
                      BadChain{"blur sigma=2 sigma=3", "(column 14): sigma is given twice"},
                      BadChain{"gabor output=complex ! blur", "output=complex is only allowed in the last stage"},
                      BadChain{"edges low-threshold=0.5 high-threshold=0.1", "low-threshold=0.5 is above high-threshold=0.1"},
                      BadChain{"edges low-threshold=-1", "low-threshold=-1 is outside [0, 1e+06]"},
                      BadChain{"edges method=sobel", "method='sobel' is not one of canny, gabor"},
                      BadChain{"", "chain stage 1 (column 1): empty stage"},
                      BadChain{"blur !", "chain stage 2 (column 7): empty stage"}));

TEST(Specs, AutoMethodsFollowSigma) {
    EXPECT_EQ((BlurSpec{2.0, BlurMethod::Auto}.resolvedMethod()), BlurMethod::Direct);
    EXPECT_EQ((BlurSpec{3.0, BlurMethod::Auto}.resolvedMethod()), BlurMethod::Recursive);
    EXPECT_EQ((BlurSpec{3.0, BlurMethod::Boxes}.resolvedMethod()), BlurMethod::Boxes);
    GaborSpec g;
    g.sigma = 2;
    EXPECT_EQ(g.resolvedMethod(), GaborMethod::Direct);
    g.sigma = 4;
    EXPECT_EQ(g.resolvedMethod(), GaborMethod::Recursive);
}

TEST(Specs, BankSectorsRoundOrientationTo45Degrees) {
    EdgeSpec e;
    e.orientations = 6;  // 0, 30, 60, 90, 120, 150 degrees
    const int expected[6] = {0, 1, 1, 2, 3, 3};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(e.bankSector(k), expected[k]) << k;
    e.orientations = 4;  // 0, 45, 90, 135
    for (int k = 0; k < 4; ++k) EXPECT_EQ(e.bankSector(k), k);
}

TEST(Specs, Encodings) {
    GaborSpec g;
    g.output = GaborOutput::Real;
    g.gain = 2;
    Encoding e = encodingOf(g);
    EXPECT_EQ(e.scale, 2.0);
    EXPECT_EQ(e.offset, 0.5);
    EXPECT_EQ(encodingOf(BlurSpec{}).scale, 1.0);
    EdgeSpec s;
    s.output = EdgeOutput::Strength;
    EXPECT_DOUBLE_EQ(encodingOf(s).scale * s.highThreshold, 0.5);
}

} // namespace
} // namespace striate
