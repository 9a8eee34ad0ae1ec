// The line engine's gathers and scatters: transposes of every width and lane count; the direct
// FIR's AVX2 steps against its 128-bit ones; the demodulated recursive Gabor pass against the
// modulated one.
#include "cpu/neon/lines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "core/coefficients.h"
#include "core/plan.h"
#include "cpu/neon/avx2.h"
#include "cpu/neon/encode.h"
#include "cpu/reference/reference.h"
#include "tests/support/inputs.h"

namespace striate::cpu {
namespace {

TEST(Lines, GatherScatterRowsRoundTripsEveryWidth) {
    for (int w : {1, 3, 4, 5, 17}) {
        for (int h : {1, 5, 16, 19}) {
            Image<float> src(w, h), dst(w, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    src.at(x, y) = float(100 * y + x);
                    dst.at(x, y) = -1;
                }
            std::vector<float> block(std::size_t(w) * kLanes);
            for (int r = 0; r < h; r += kLanes) {
                gatherRows(ImageView<const float>(src.view()), r, block.data());
                for (int x = 0; x < w; ++x)
                    for (int l = 0; l < kLanes; ++l)
                        ASSERT_EQ(block[x * kLanes + l], float(100 * std::min(r + l, h - 1) + x));
                scatterRows(block.data(), r, dst.view());
            }
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ASSERT_EQ(dst.at(x, y), src.at(x, y));
        }
    }
}

TEST(Lines, GatherColumnsFromBytesScalesAndReplicates) {
    Image<std::uint8_t> src(20, 3);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 20; ++x) src.at(x, y) = static_cast<std::uint8_t>(10 * y + x);
    std::vector<float> block(3 * kLanes);
    gatherColumns(ImageView<const std::uint8_t>(src.view()), 16, block.data());
    for (int y = 0; y < 3; ++y)
        for (int l = 0; l < kLanes; ++l) EXPECT_FLOAT_EQ(block[y * kLanes + l], (10 * y + 16 + std::min(l, 3)) / 255.0f);
}

struct DemodCase {
    double sigma, w;
    int n;
    bool realInput;
};

class Demodulated : public ::testing::TestWithParam<DemodCase> {};

// demodulatedBlock's result times e^{i w i} is recursiveComplexBlock's: borders included, real
// and complex lines, lines shorter than the recursion's memory included.
TEST_P(Demodulated, EqualsTheModulatedPassRemodulated) {
    const DemodCase c = GetParam();
    const RecursiveCascade cascade = recursiveCascade(c.sigma, c.w);
    const CascadeFloat modulated = cascadeFloat(cascade);
    const DemodCascade demod = demodCascade(cascade, c.w);
    std::vector<float> cosw(c.n), sinw(c.n);
    for (int i = 0; i < c.n; ++i) {
        cosw[i] = static_cast<float>(std::cos(c.w * i));
        sinw[i] = static_cast<float>(std::sin(c.w * i));
    }
    std::vector<float> re(std::size_t(c.n) * kLanes), im(re.size());
    for (int i = 0; i < c.n; ++i)
        for (int l = 0; l < kLanes; ++l) {
            re[std::size_t(i) * kLanes + l] = static_cast<float>(0.5 + 0.5 * std::sin(0.37 * i * (l + 1) + l));
            im[std::size_t(i) * kLanes + l] = c.realInput ? 0.0f : static_cast<float>(0.3 * std::cos(0.21 * i + l));
        }
    std::vector<float> mr = re, mi = im, dr = re, di = im;
    recursiveComplexBlock(mr.data(), mi.data(), c.n, modulated, c.realInput);
    demodulatedBlock(dr.data(), di.data(), c.n, demod, c.w == 0 ? nullptr : cosw.data(), sinw.data(), c.realInput);
    double worst = 0;
    for (int i = 0; i < c.n; ++i)
        for (int l = 0; l < kLanes; ++l) {
            const std::size_t j = std::size_t(i) * kLanes + l;
            const std::complex<double> back = std::complex<double>(dr[j], di[j]) * std::polar(1.0, c.w * i);
            worst = std::max(worst, std::abs(back - std::complex<double>(mr[j], mi[j])));
        }
    EXPECT_LT(worst, 4e-6) << "sigma " << c.sigma << " w " << c.w << " n " << c.n;
    // In two calls (DemodSpan): the same floats as in one.
    if (c.n < 2) return;
    std::vector<float> state(12 * kLanes), first = re, firstIm = im, second = re, secondIm = im;
    const DemodSpan a{c.n / 2, false, state.data()}, b{c.n / 2, true, state.data()};
    const float* cw = c.w == 0 ? nullptr : cosw.data();
    demodulatedBlock(first.data(), firstIm.data(), c.n, demod, cw, sinw.data(), c.realInput, &a);
    demodulatedBlock(second.data(), secondIm.data(), c.n, demod, cw, sinw.data(), c.realInput, &b);
    for (int i = 0; i < c.n; ++i)
        for (int l = 0; l < kLanes; ++l) {
            const std::size_t j = std::size_t(i) * kLanes + l;
            const bool left = i < c.n / 2;
            ASSERT_EQ(left ? first[j] : second[j], dr[j]) << "sample " << i;
            ASSERT_EQ(left ? firstIm[j] : secondIm[j], di[j]) << "sample " << i;
        }
}

INSTANTIATE_TEST_SUITE_P(Lines, Demodulated,
                         ::testing::Values(DemodCase{3, 0.785, 640, true}, DemodCase{4, 0.68, 1080, false},
                                           DemodCase{4, 0.0, 200, true}, DemodCase{4, -0.39, 97, false},
                                           DemodCase{8, 0.39, 500, true}, DemodCase{16, 0.2, 700, false},
                                           DemodCase{8, 0.1, 900, true}, DemodCase{4, 0.785, 5, false},
                                           DemodCase{6, 1.5, 1, true}, DemodCase{8, 0.05, 1500, false}));

// The recursive Gaussian in the second-order form against the reference's (double), up to
// kDemodulatedMaxSigma. (The pole form's largest error on these lines: 2e-7 to 4e-7; the second
// order's: 2e-7 at sigma 1 to 1e-6 at 8, then 6e-6 at 16 and 9e-6 at 32, hence the bound.)
TEST(Lines, SecondOrderGaussianIsCloseToTheReference) {
    for (double sigma : {1.0, 3.0, 4.0, kDemodulatedMaxSigma})
        for (int n : {1, 7, 300, 1500}) {
            reference::Plane line(n, kLanes);  // lane l's line as row l
            std::vector<float> a(std::size_t(n) * kLanes);
            for (int i = 0; i < n; ++i)
                for (int l = 0; l < kLanes; ++l) {
                    const float v = static_cast<float>(0.5 + 0.5 * std::sin(0.013 * (i * kLanes + l) * (i + l)));
                    a[std::size_t(i) * kLanes + l] = v;
                    line.at(i, l) = v;
                }
            std::vector<float> b = a;
            recursiveBlock(a.data(), n, cascadeFloat(recursiveCascade(sigma, 0)));
            gaussianBlock(b.data(), n, demodCascade(recursiveCascade(sigma, 0), 0));
            // Rows only: a column of kLanes samples is blurred too, so compare with the rows'
            // pass alone (the reference's filterRows).
            const reference::CPlane want = reference::filterRows(reference::toComplex(line), [&](const reference::Line& x) {
                return reference::recursiveLine(x, recursive3(sigma, 0));
            });
            double pole = 0, second = 0;
            for (int i = 0; i < n; ++i)
                for (int l = 0; l < kLanes; ++l) {
                    const double w = want.at(i, l).real();
                    pole = std::max(pole, std::abs(a[std::size_t(i) * kLanes + l] - w));
                    second = std::max(second, std::abs(b[std::size_t(i) * kLanes + l] - w));
                }
            EXPECT_LT(second, 2e-6) << "sigma " << sigma << " n " << n << " (pole form: " << pole << ")";
        }
}

TEST(Encode, NeonCodesEqualTheScalarEncodingEverywhere) {
    // Every 8-bit code boundary, halves, NaN, infinities, negatives, and values above full scale.
    std::vector<float> values = {NAN, INFINITY, -INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f, 1e-9f, 0.99999f};
    for (int c = 0; c <= 256; ++c)
        for (float d : {-0.5f, -0.5000001f, -0.4999999f, 0.0f, 0.25f})
            values.push_back((c + d) / 255.0f);
    for (int i = 0; i < 3000; ++i) values.push_back(i / 2999.0f * 1.2f - 0.1f);
    const int W = static_cast<int>(values.size());
    ImageView<const float> in(values.data(), W, 1, W);
    for (Encoding e : {Encoding{}, Encoding{4.0, 0.5}, Encoding{1 / 6.283185307179586, 0.5}, Encoding{10.0, 0.0}}) {
        std::vector<std::uint8_t> a(W), rgba(4 * W, 7);
        std::vector<std::uint16_t> b(W);
        encodePlane8(in, e, a.data(), W, 1);
        encodePlane8(in, e, rgba.data(), 4 * W, 4);
        encodePlane16(in, e, b.data(), 2 * W);
        for (int x = 0; x < W; ++x) {
            ASSERT_EQ(a[x], encode8(values[x], e)) << values[x];
            ASSERT_EQ(rgba[4 * x], encode8(values[x], e)) << values[x];
            ASSERT_EQ(rgba[4 * x + 1], 7);
            ASSERT_EQ(b[x], encode16(values[x], e)) << values[x];
        }
    }
    EXPECT_EQ(encode8(0.5f / 255, Encoding{}), 1);  // halves round up
    EXPECT_EQ(encode8(NAN, Encoding{}), 0);
    EXPECT_EQ(encode16(2.0f, Encoding{}), 65535);
}

// The float FIR's AVX2 steps (x86 hosts whose CPU has it) against the 128-bit ones, which
// test_cpu_vs_reference holds to the reference where AVX2 is not run: the same float, bit for
// bit, for every sample (widths around a step of 32 and a chunk of 256 columns, 8-bit and float
// rows).
template <class T>
void expectWideFirEqualsNarrow(const Image<T>& in, const std::vector<float>& taps, const char* what) {
    const int R = static_cast<int>(taps.size()) - 1, W = in.width(), H = in.height();
    std::vector<float> workspace(FirBand<T>::workspaceFloats(W, R));
    std::vector<float> narrow(static_cast<std::size_t>(W) * H), wide(narrow.size(), -1.0f);
    FirBand<T> a(in.view(), taps, workspace.data(), false);
    for (int y = 0; y < H; ++y) a.rowInto(y, narrow.data() + static_cast<std::ptrdiff_t>(y) * W);
    FirBand<T> b(in.view(), taps, workspace.data(), true);
    for (int y = 0; y < H; ++y) b.rowInto(y, wide.data() + static_cast<std::ptrdiff_t>(y) * W);
    ASSERT_EQ(0, std::memcmp(narrow.data(), wide.data(), narrow.size() * sizeof(float)))
        << what << " " << W << "x" << H << " R " << R;
}

TEST(FirBand, Avx2StepsWriteThe128BitFloats) {
    if (!runsAvx2()) GTEST_SKIP() << "this build or CPU does not run AVX2 (x86 hosts only), or STRIATE_CPU_DISABLE names it";
    for (double sigma : {0.5, 1.4, 4.5, 11.0}) {
        const std::vector<double> exact = gaussianTaps(sigma);
        const std::vector<float> taps(exact.begin(), exact.end());
        for (test::Size size : {test::Size{1, 1}, test::Size{31, 5}, test::Size{33, 40}, test::Size{300, 29},
                                test::Size{517, 9}}) {
            const Image<std::uint8_t> bytes = test::noise(size, 5);
            expectWideFirEqualsNarrow(bytes, taps, "8-bit");
            Image<float> floats(size.w, size.h);
            for (int y = 0; y < size.h; ++y)
                for (int x = 0; x < size.w; ++x) floats.at(x, y) = bytes.at(x, y) / 255.0f - 0.25f;
            expectWideFirEqualsNarrow(floats, taps, "float");
        }
    }
}

} // namespace
} // namespace striate::cpu
