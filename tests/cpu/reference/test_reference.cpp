// The reference against the analytic definitions of docs/algorithms.md.
#include "cpu/reference/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "core/chain.h"
#include "cpu/reference/accuracy.h"
#include "io/image_io.h"
#include "tests/support/inputs.h"

namespace striate::reference {
namespace {

Line randomLine(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Line l(n);
    for (auto& v : l) v = u(rng);
    return l;
}

Plane impulse(int w, int h, int cx, int cy) {
    Plane p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(x, y) = (x == cx && y == cy) ? 1.0 : 0.0;
    return p;
}

Plane constant(int w, int h, double v) {
    Plane p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(x, y) = v;
    return p;
}

// --- 3.3: exact replicate borders, the padded-copy definition, to 1e-9 --------------------------

struct BorderCase {
    double sigma;
    double w;
    int n;
};

class RecursiveBorders : public ::testing::TestWithParam<BorderCase> {};

TEST_P(RecursiveBorders, EqualPaddedCopy) {
    const auto [sigma, w, n] = GetParam();
    const Recursive3 f = recursive3(sigma, w);
    const Line in = randomLine(n, 7 + n);
    const int pad = static_cast<int>(std::ceil(20 * sigma + 50));
    const Line exact = recursiveLine(in, f);
    const Line padded = recursivePaddedLine(in, f, pad);
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(exact[i] - padded[i]));
    EXPECT_LT(worst, 1e-9) << "sigma " << sigma << " w " << w << " n " << n;
}

INSTANTIATE_TEST_SUITE_P(GaussianAndGabor, RecursiveBorders,
                         ::testing::Values(BorderCase{0.5, 0, 10}, BorderCase{1, 0, 1}, BorderCase{1, 0, 2},
                                           BorderCase{2, 0, 3}, BorderCase{2, 0, 57}, BorderCase{4, 0, 200},
                                           BorderCase{16, 0, 100}, BorderCase{64, 0, 300},
                                           BorderCase{2, 0.785, 40}, BorderCase{4, 0.785, 1},
                                           BorderCase{4, -0.785, 2}, BorderCase{5, 0.7, 120},
                                           BorderCase{8, 2.0, 77}, BorderCase{16, 0.2, 300},
                                           BorderCase{3, 3.14159, 50}));

TEST(RecursiveBorders, ConstantInputReturnsItselfOrK) {
    for (double sigma : {0.5, 2.0, 8.0, 40.0}) {
        Line c(33, Complex64(0.37));
        for (double w : {0.0, 0.5, 1.3}) {
            const Recursive3 f = recursive3(sigma, w);
            const Line out = recursiveLine(c, f);
            const double k = (f.forwardGain * f.backwardGain).real();
            for (const auto& v : out) EXPECT_NEAR(std::abs(v - 0.37 * k), 0.0, 1e-12);
            if (w == 0) {
                EXPECT_NEAR(k, 1.0, 1e-12);
            }
        }
    }
}

// The cascade (pole) form the float backends run, in double, equals the direct form: poles,
// steady states and the cascade's own border matrix.
Line cascadeLine(const Line& x, const RecursiveCascade& c) {
    const int n = static_cast<int>(x.size());
    Complex64 s[3], t[3], g = 1, h = 1, gs[3], hs[3];
    for (int k = 0; k < 3; ++k) {
        g /= 1.0 - c.forward[k];
        h /= 1.0 - c.backward[k];
        gs[k] = g;
        hs[k] = h;
        s[k] = x[0] * g;
    }
    Line u(n), v(n);
    for (int i = 0; i < n; ++i) {
        Complex64 in = x[i];
        for (int k = 0; k < 3; ++k) in = s[k] = in + c.forward[k] * s[k];
        u[i] = c.B * in;
    }
    const Complex64 uss = c.B * x[n - 1] * gs[2];
    for (int j = 0; j < 3; ++j) {
        t[j] = uss * hs[j];
        for (int k = 0; k < 3; ++k) t[j] += c.border[j][k] * (s[k] - x[n - 1] * gs[k]);
    }
    for (int i = n - 1; i >= 0; --i) {
        Complex64 in = u[i];
        for (int k = 0; k < 3; ++k) in = t[k] = in + c.backward[k] * t[k];
        v[i] = c.B * in;
    }
    return v;
}

TEST_P(RecursiveBorders, CascadeFormEqualsDirectForm) {
    const auto [sigma, w, n] = GetParam();
    const Line in = randomLine(n, 3 + n);
    const Line direct = recursiveLine(in, recursive3(sigma, w));
    const Line cascade = cascadeLine(in, recursiveCascade(sigma, w));
    for (int i = 0; i < n; ++i) EXPECT_NEAR(std::abs(direct[i] - cascade[i]), 0, 1e-9) << i;
}

// --- 3.2: the Gabor's impulse response is exp(i w n) times the recursive Gaussian's --------------

TEST(RecursiveGabor, ImpulseResponseIsModulatedGaussian) {
    const int n = 301, c = 150;
    Line imp(n, 0.0);
    imp[c] = 1.0;
    for (double sigma : {2.0, 5.0}) {
        for (double w : {0.3, 0.785, 2.5}) {
            const Line g = recursiveLine(imp, recursive3(sigma, 0));
            const Line z = recursiveLine(imp, recursive3(sigma, w));
            for (int i = 0; i < n; ++i) EXPECT_NEAR(std::abs(z[i] - std::polar(1.0, w * (i - c)) * g[i]), 0, 1e-12);
        }
    }
}

// --- 2.3: the shape of the recursive Gaussian --------------------------------------------------

TEST(RecursiveGaussian, L1DistanceToSampledGaussianMatchesAlgorithms23) {
    const std::pair<double, double> published[] = {{2, 0.079}, {4, 0.047}, {8, 0.033}, {16, 0.022}};
    for (auto [sigma, l1] : published) {
        const int n = static_cast<int>(40 * sigma) + 101, c = n / 2;
        Line imp(n, 0.0);
        imp[c] = 1.0;
        const Line h = recursiveLine(imp, recursive3(sigma, 0));
        double norm = 0;
        for (int i = 0; i < n; ++i) norm += std::exp(-double(i - c) * (i - c) / (2 * sigma * sigma));
        double dist = 0;
        for (int i = 0; i < n; ++i)
            dist += std::abs(h[i].real() - std::exp(-double(i - c) * (i - c) / (2 * sigma * sigma)) / norm);
        EXPECT_NEAR(dist, l1, 0.0015) << "sigma " << sigma;
    }
}

// --- 1, 2.1, 2.2: direct taps and boxes ----------------------------------------------------------

TEST(Blur, DirectImpulseIsOuterProductOfTaps) {
    for (double sigma : {0.3, 1.0, 2.5}) {
        const int R = gaussianRadius(sigma), n = 2 * R + 9, c = n / 2;
        const Plane out = blur(impulse(n, n, c, c), BlurSpec{sigma, BlurMethod::Direct});
        const auto t = gaussianTaps(sigma);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int dx = std::abs(x - c), dy = std::abs(y - c);
                const double expect = (dx <= R && dy <= R) ? t[dx] * t[dy] : 0.0;
                EXPECT_NEAR(out.at(x, y), expect, 1e-15);
            }
    }
}

/// Mean and variance of the horizontal impulse response through the middle row.
std::pair<double, double> rowMoments(const Plane& p, int y) {
    double s = 0, m = 0, v = 0;
    for (int x = 0; x < p.width(); ++x) {
        s += p.at(x, y);
        m += x * p.at(x, y);
    }
    m /= s;
    for (int x = 0; x < p.width(); ++x) v += (x - m) * (x - m) * p.at(x, y);
    return {s, v / s};
}

TEST(Blur, VarianceAndDcGainPerMethod) {
    for (double sigma : {1.0, 2.0, 5.5}) {
        const int n = static_cast<int>(12 * sigma) + 41, c = n / 2;
        for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Boxes}) {
            Plane row(n, 1);
            for (int x = 0; x < n; ++x) row.at(x, 0) = x == c ? 1.0 : 0.0;
            const Plane out = blur(row, BlurSpec{sigma, m});
            auto [sum, var] = rowMoments(out, 0);
            EXPECT_NEAR(sum, 1.0, 1e-12);
            // Boxes: exact by construction. Direct: sampled and truncated at 4 sigma.
            EXPECT_NEAR(var, sigma * sigma, m == BlurMethod::Boxes ? 1e-9 : 2e-3 * sigma * sigma)
                << nickOf(kBlurMethods, m) << " sigma " << sigma;
        }
    }
}

TEST(Blur, ConstantInputIsUnchangedByEveryMethod) {
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Boxes, BlurMethod::Recursive})
        for (double sigma : {0.5, 3.0, 20.0}) {
            const Plane out = blur(constant(13, 9, 0.61), BlurSpec{sigma, m});
            for (int y = 0; y < 9; ++y)
                for (int x = 0; x < 13; ++x) EXPECT_NEAR(out.at(x, y), 0.61, 1e-12);
        }
}

TEST(Blur, BordersAreReplicated) {
    // Replicate borders: filtering the image equals filtering a replicate-padded copy and cropping.
    const int w = 11, h = 7, pad = 40;
    Plane img(w, h), big(w + 2 * pad, h + 2 * pad);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.at(x, y) = u(rng);
    for (int y = 0; y < h + 2 * pad; ++y)
        for (int x = 0; x < w + 2 * pad; ++x)
            big.at(x, y) = img.at(std::clamp(x - pad, 0, w - 1), std::clamp(y - pad, 0, h - 1));
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Boxes, BlurMethod::Recursive}) {
        const Plane a = blur(img, BlurSpec{1.5, m});
        const Plane b = blur(big, BlurSpec{1.5, m});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) EXPECT_NEAR(a.at(x, y), b.at(x + pad, y + pad), 1e-9) << nickOf(kBlurMethods, m);
    }
}

// --- 3: Gabor ------------------------------------------------------------------------------------

TEST(Gabor, DirectImpulseIsSampledComplexKernel) {
    GaborSpec g;
    g.sigma = 2;
    g.wavelength = 6;
    g.method = GaborMethod::Direct;
    g.removeDc = false;
    const int R = gaussianRadius(2), n = 2 * R + 5, c = n / 2;
    for (double theta : {0.0, 30.0, 90.0, 135.0}) {
        const CPlane z = gaborComplex(impulse(n, n, c, c), g, theta);
        const auto t = gaussianTaps(2);
        const AxisFrequencies w = axisFrequencies(6, theta);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int dx = x - c, dy = y - c;
                Complex64 expect = 0;
                if (std::abs(dx) <= R && std::abs(dy) <= R)
                    expect = t[std::abs(dx)] * t[std::abs(dy)] * std::polar(1.0, w.wx * dx + w.wy * dy);
                EXPECT_NEAR(std::abs(z.at(x, y) - expect), 0, 1e-15);
            }
    }
}

TEST(Gabor, DcRemovalMakesFlatRegionsZero) {
    for (GaborMethod m : {GaborMethod::Direct, GaborMethod::Recursive}) {
        GaborSpec g;
        g.sigma = 4;
        g.wavelength = 8;
        g.method = m;
        g.removeDc = false;
        const Plane flat = constant(15, 12, 0.8);
        const AxisFrequencies w = axisFrequencies(8, 30);
        const bool rec = m == GaborMethod::Recursive;
        const double k = gaborAxisDcGain(4, w.wx, rec) * gaborAxisDcGain(4, w.wy, rec);
        const CPlane raw = gaborComplex(flat, g, 30);
        g.removeDc = true;
        const CPlane clean = gaborComplex(flat, g, 30);
        for (int y = 0; y < 12; ++y)
            for (int x = 0; x < 15; ++x) {
                EXPECT_NEAR(std::abs(raw.at(x, y) - 0.8 * k), 0, 1e-12);
                EXPECT_NEAR(std::abs(clean.at(x, y)), 0, 1e-12);
            }
    }
}

TEST(Gabor, BankTakesMaximumMagnitude) {
    Plane img = impulse(21, 21, 10, 10);
    GaborSpec g;
    g.sigma = 2;
    g.orientations = 3;
    const Plane bank = gabor(img, g);
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 21; ++x) {
            double best = 0;
            for (int k = 0; k < 3; ++k) best = std::max(best, std::abs(gaborComplex(img, g, 60.0 * k).at(x, y)));
            EXPECT_NEAR(bank.at(x, y), best, 1e-15);
        }
}

// --- 4: edges ------------------------------------------------------------------------------------

Plane verticalStep(int w, int h, int edgeX, double lo, double hi) {
    Plane p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(x, y) = x < edgeX ? lo : hi;
    return p;
}

TEST(Canny, StepGivesOneColumnWithTieBrokenToTheLeft) {
    const Plane img = verticalStep(32, 20, 16, 0.2, 0.8);
    EdgeSpec e;
    const EdgeMaps maps = edgeMaps(img, e);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 32; ++x) EXPECT_EQ(maps.edges[y * 32 + x], x == 15 ? 1 : 0) << x << "," << y;
    // Peak gradient of a unit step smoothed with sigma is 1 / (sigma sqrt(2 pi)) (docs/algorithms.md 4.1):
    // the central difference of the sampled step is close to it.
    EXPECT_NEAR(maps.strength.at(15, 10), 0.6 / (1.4 * std::sqrt(2 * std::numbers::pi)), 0.02);
}

TEST(Canny, ThresholdsAndFlatImages) {
    EdgeSpec e;
    const EdgeMaps flat = edgeMaps(constant(16, 16, 0.5), e);
    for (auto v : flat.edges) EXPECT_EQ(v, 0);
    e.lowThreshold = 0.5;
    e.highThreshold = 0.5;  // above the step's gradient: nothing survives
    const EdgeMaps none = edgeMaps(verticalStep(32, 8, 16, 0.2, 0.8), e);
    for (auto v : none.edges) EXPECT_EQ(v, 0);
}

TEST(Canny, HysteresisKeepsWeakPixelsConnectedToStrongOnes) {
    // A step whose contrast fades along y: the strong top continues down through weak pixels.
    const int w = 24, h = 40;
    Plane img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.at(x, y) = x < 12 ? 0.5 : 0.5 + 0.4 * (1 - y / double(h));
    EdgeSpec e;
    e.lowThreshold = 0.02;
    e.highThreshold = 0.09;
    const EdgeMaps maps = edgeMaps(img, e);
    // The step lies between columns 11 and 12; its edge is whichever of the two wins NMS.
    auto onStep = [&](const EdgeMaps& m, int y) { return m.edges[y * w + 11] || m.edges[y * w + 12]; };
    int strongRows = 0, edgeRows = 0;
    for (int y = 0; y < h; ++y) {
        if (std::max(maps.strength.at(11, y), maps.strength.at(12, y)) >= e.highThreshold) ++strongRows;
        if (onStep(maps, y)) ++edgeRows;
    }
    EXPECT_GT(strongRows, 0);
    EXPECT_GT(edgeRows, strongRows);
    e.lowThreshold = e.highThreshold;  // no weak pixels: only the strong part remains
    const EdgeMaps strict = edgeMaps(img, e);
    int strictRows = 0;
    for (int y = 0; y < h; ++y) strictRows += onStep(strict, y);
    EXPECT_EQ(strictRows, strongRows);
}

TEST(Canny, TieSlackDecidesNearTiesAsTies) {
    // A step between columns 15 and 16 whose bright side rises a little more from column 17:
    // column 16's strength beats column 15's by more than kTieTolerance and less than the slack.
    Plane img = verticalStep(32, 8, 16, 0.2, 0.8);
    for (int y = 0; y < 8; ++y)
        for (int x = 17; x < 32; ++x) img.at(x, y) += 3e-4;
    const EdgeSpec e;
    const double slack = 2e-4;
    const EdgeMaps plain = edgeMaps(img, e), tied = edgeMaps(img, e, slack);
    const double margin = plain.strength.at(16, 4) - plain.strength.at(15, 4);
    ASSERT_GT(margin, kTieTolerance * plain.strength.at(16, 4));
    ASSERT_LT(margin, slack);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 32; ++x) {
            EXPECT_EQ(plain.edges[y * 32 + x], x == 16 ? 1 : 0) << x << "," << y;
            EXPECT_EQ(tied.edges[y * 32 + x], x == 15 ? 1 : 0) << x << "," << y;  // the tie's rule: the left
        }
}

TEST(Accuracy, PackedEdgeMapsMayDecideNearTiesAsTies) {
    // The edge scene at 40x20: the rectangle's top edge lies where rows' strengths differ by
    // 1e-6 to 4e-5. A map that decides them as ties is within a packed producer's budget and
    // outside a float one's; five more pixels flipped elsewhere are outside both.
    Chain chain;
    ASSERT_TRUE(parseChain("edges", &chain));
    const Image<std::uint8_t> in = test::scene({40, 20});
    ReferenceBackend ref;
    ASSERT_TRUE(ref.configure(chain, {40, 20}));
    ChainOutput a;
    ASSERT_TRUE(ref.process(in.view(), &a));
    const Plane tiedMap = edges(fromU8(in.view()), std::get<EdgeSpec>(chain.stages.back()), 2e-4);
    Image<float> tied(40, 20);
    int differ = 0;
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 40; ++x) {
            tied.at(x, y) = static_cast<float>(tiedMap.at(x, y));
            differ += tied.at(x, y) != a.real.at(x, y);
        }
    ASSERT_GT(differ, 4);  // more than the packed budget's 0.5% of 800 pixels
    ChainOutput b;
    b.real = tied.view();
    const Producer packed{true, true, false, false}, floats{true, false, false, false};
    EXPECT_TRUE(accuracyOf(chain, in.view(), a, b, packed).pass);
    EXPECT_FALSE(accuracyOf(chain, in.view(), a, b, floats).pass);
    for (int x = 0; x < 5; ++x) tied.at(x, 0) = 1.0f;  // row 0 holds no edge
    EXPECT_FALSE(accuracyOf(chain, in.view(), a, b, packed).pass);
}

TEST(GaborEnergy, RespondsToStepsAndLines) {
    EdgeSpec e;
    e.method = EdgeMethod::Gabor;
    e.sigma = 2;
    e.wavelength = 8;
    e.lowThreshold = 0.02;
    e.highThreshold = 0.05;
    // A vertical step: energy peaks at the step, along x (sector 0).
    const EdgeMaps step = edgeMaps(verticalStep(40, 16, 20, 0.1, 0.9), e);
    int onStep = 0;
    for (int y = 0; y < 16; ++y) {
        onStep += step.edges[y * 40 + 19] + step.edges[y * 40 + 20];
        EXPECT_EQ(step.sector[y * 40 + 20], 0);
    }
    EXPECT_EQ(onStep, 16);
    // A horizontal line: energy along y (sector 2) on the line. (At wavelength 8 a 1-pixel line
    // has two energy peaks beside it; wavelength 4 matches its width.)
    e.wavelength = 4;
    Plane line = constant(16, 40, 0.2);
    for (int x = 0; x < 16; ++x) line.at(x, 20) = 0.9;
    const EdgeMaps l = edgeMaps(line, e);
    for (int x = 0; x < 16; ++x) {
        EXPECT_EQ(l.edges[20 * 16 + x], 1);
        EXPECT_EQ(l.sector[20 * 16 + x], 2);
    }
}

TEST(Chain, StagesFeedEachOther) {
    Chain c;
    ASSERT_TRUE(parseChain("blur sigma=1 ! blur sigma=1", &c));
    std::mt19937 rng(5);
    Plane img(20, 20);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 20; ++x) img.at(x, y) = (rng() % 256) / 255.0;
    const Plane twice = runChain(img, c, nullptr);
    const Plane expect = blur(blur(img, BlurSpec{1, BlurMethod::Auto}), BlurSpec{1, BlurMethod::Auto});
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 20; ++x) EXPECT_EQ(twice.at(x, y), expect.at(x, y));
}

/// docs/algorithms.md 4.3 against an independent oracle on the real photo: OpenCV's Gaussian
/// adaptiveThreshold computed from the definition here (taps exp(-t^2 / 2 sigma^2) to
/// R = ceil(4 sigma), normalised; replicate borders; rows then columns; 255 where I > mean - C).
/// The reference with the sampled Gaussian (method=direct) agrees on every pixel except those
/// within one code of their threshold. (The recursive and box means are other methods: they
/// differ from the sampled Gaussian by up to a few percent at edges, which moves hundreds of
/// pixels at sigma 1.5; docs/algorithms.md 8 holds each backend to the reference of its own method.)
TEST(Threshold, MatchesAnIndependentGaussianMeanOracleOnThePhoto) {
    Image<std::uint8_t> photo;
    const Status read = io::readLuma(STRIATE_TEST_DATA "/astronaut.png", &photo);
    ASSERT_TRUE(read) << read.message();
    const int W = photo.width(), H = photo.height();
    for (double sigma : {1.5, 4.0, 9.0})
        for (double offset : {0.03, 0.0, -0.02}) {
            const int R = static_cast<int>(std::ceil(4 * sigma));
            std::vector<double> taps(2 * R + 1);
            double sum = 0;
            for (int t = -R; t <= R; ++t) sum += taps[t + R] = std::exp(-t * t / (2 * sigma * sigma));
            for (double& t : taps) t /= sum;
            auto at = [&](int x, int y) { return photo.at(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1)) / 255.0; };
            std::vector<double> rows(std::size_t(W) * H), mean(std::size_t(W) * H);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    double v = 0;
                    for (int t = -R; t <= R; ++t) v += taps[t + R] * at(x + t, y);
                    rows[std::size_t(y) * W + x] = v;
                }
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    double v = 0;
                    for (int t = -R; t <= R; ++t) v += taps[t + R] * rows[std::size_t(std::clamp(y + t, 0, H - 1)) * W + x];
                    mean[std::size_t(y) * W + x] = v;
                }
            {
                char text[96];
                std::snprintf(text, sizeof text, "threshold sigma=%g offset=%g method=direct", sigma, offset);
                Chain chain;
                ASSERT_TRUE(parseChain(text, &chain)) << text;
                const Plane out = runChain(fromU8(photo.view()), chain, nullptr);
                int differ = 0, near = 0, ones = 0;
                for (int y = 0; y < H; ++y)
                    for (int x = 0; x < W; ++x) {
                        const double I = photo.at(x, y) / 255.0, t = mean[std::size_t(y) * W + x] - offset;
                        const double oracle = I > t ? 1.0 : 0.0;
                        ones += oracle == 1.0;
                        if (out.at(x, y) == oracle) continue;
                        ++differ;
                        near += std::abs(I - t) <= 1.0 / 255;
                    }
                EXPECT_EQ(differ, near) << text << ": " << differ - near << " pixels beyond one code of the threshold differ";
                EXPECT_GT(ones, W * H / 10) << text << ": the threshold leaves too few pixels on to tell";
                EXPECT_LT(ones, W * H) << text << ": every pixel is on";
            }
        }
}

} // namespace
} // namespace striate::reference
