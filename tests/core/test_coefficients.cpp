#include "core/coefficients.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/plan.h"
#include "core/spec.h"

namespace striate {
namespace {

TEST(Coefficients, GaussianTapsSumToOne) {
    for (double sigma : {0.3, 0.7, 1.0, 2.5, 10.0, 64.0}) {
        auto t = gaussianTaps(sigma);
        EXPECT_EQ(static_cast<int>(t.size()) - 1, static_cast<int>(std::ceil(4 * sigma)));
        double sum = t[0];
        for (std::size_t i = 1; i < t.size(); ++i) sum += 2 * t[i];
        EXPECT_NEAR(sum, 1.0, 1e-15);
    }
}

TEST(Coefficients, ExtendedBoxVarianceIsExact) {
    for (double sigma : {0.3, 0.5, 1.0, 1.7, 2.0, 4.0, 8.0, 33.3, 256.0}) {
        for (int n = 3; n <= 5; ++n) {
            const ExtendedBox b = extendedBox(sigma, n);
            ASSERT_GE(b.alpha, 0.0);
            ASSERT_LT(b.alpha, 1.0);
            double var = 0;
            for (int t = 1; t <= b.r; ++t) var += 2.0 * t * t;
            var += 2 * b.alpha * (b.r + 1) * (b.r + 1);
            var /= b.norm;
            EXPECT_NEAR(var * n, sigma * sigma, 1e-9 * sigma * sigma) << sigma << " " << n;
        }
    }
}

TEST(Coefficients, RecursiveIdentities) {
    for (double sigma : {0.5, 1.0, 2.0, 3.556, 5.0, 64.0, 256.0}) {
        const Recursive3 r = recursive3(sigma, 0);
        const double q = youngVanVlietQ(sigma);
        const double m0 = 1.16680, m1 = 1.10783, m2 = 1.40586;
        const double s = (m0 + q) * (m1 * m1 + m2 * m2 + 2 * m1 * q + q * q);
        EXPECT_NEAR(r.B, m0 * (m1 * m1 + m2 * m2) / s, 1e-12);  // docs/algorithms.md 2.3 identity
        EXPECT_NEAR(std::abs(r.forwardGain - 1.0), 0.0, 1e-12);  // Gaussian: unit DC gain
        EXPECT_NEAR(r.dcGain(), 1.0, 1e-12);
    }
}

TEST(Coefficients, GaborDcLeakageMatchesAlgorithms34) {
    // docs/algorithms.md 3.4: K = 0.0123 at sigma 5, w 0.7, against the ideal
    // exp(-sigma^2 w^2 / 2) = 0.0022.
    const Recursive3 r = recursive3(5, 0.7);
    EXPECT_NEAR(r.dcGain(), 0.0123, 0.00005);
    EXPECT_NEAR(std::exp(-25 * 0.49 / 2), 0.0022, 0.00005);
    EXPECT_NEAR(gaborAxisDcGain(5, 0.7, true), r.dcGain(), 1e-15);
}

TEST(Coefficients, TheDcWeightBoundIsTheLargestKOverEveryOrientation) {
    // GaborPlan::dcWeightBound searches the degrees 0..45, as |K| is even in each axis's
    // frequency and the same with the axes swapped: every degree of the half turn stays within it.
    for (const bool recursive : {true, false})
        for (const double w : {0.3, 0.7, 1.4}) {
            EXPECT_NEAR(gaborAxisDcGain(4, w, recursive), gaborAxisDcGain(4, -w, recursive), 1e-15) << w;
            GaborSpec spec;
            spec.sigma = 4;
            spec.wavelength = 2 * std::numbers::pi / w;
            spec.method = recursive ? GaborMethod::Recursive : GaborMethod::Direct;
            const double bound = planGabor(spec).dcWeightBound;
            double largest = 0;
            for (int degree = 0; degree < 180; ++degree) {
                const AxisFrequencies a = axisFrequencies(spec.wavelength, degree);
                largest = std::max(largest, std::abs(gaborAxisDcGain(4, a.wx, recursive) * gaborAxisDcGain(4, a.wy, recursive)));
            }
            EXPECT_GT(bound, 0) << w;
            EXPECT_NEAR(bound, largest, 1e-15 + 1e-12 * largest) << w << (recursive ? " recursive" : " direct");
        }
}

TEST(Coefficients, AxisFrequencies) {
    const AxisFrequencies w = axisFrequencies(8, 90);
    EXPECT_NEAR(w.wx, 0, 1e-15);
    EXPECT_NEAR(w.wy, 2 * std::numbers::pi / 8, 1e-15);
}

} // namespace
} // namespace striate
