// gles-fragment's estimate of a plan on a board (gles/fragment/plan_cost.h) and the planner's
// choice of forms by it, without a GLES context: the choice is GL-free, so it is checked here
// with no GL at all, on every Pi board's profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "board/profile.h"
#include "core/chain.h"
#include "gles/fragment/plan_cost.h"
#include "gles/fragment/planner.h"

namespace striate {
namespace {

/// What each board's context lets gles-fragment use (FragmentBackend::init finds it on the
/// board): VideoCore IV packs its planes into RGBA8, V3D renders floats and four-row layers.
gles::FragmentCapabilities capsOf(const gles::GpuLimits& limits) {
    gles::FragmentCapabilities caps;
    caps.packed = !limits.floatTargets;
    caps.quadRows = limits.floatTargets;
    caps.stencil = true;
    caps.redReadback = limits.floatTargets;
    return caps;
}

gles::FragmentPlan plan(const std::string& text, const gles::GpuLimits& limits, const gles::FragmentOptions& options,
                        FrameFormat format) {
    Chain chain;
    EXPECT_TRUE(parseChain(text, &chain)) << text;
    gles::FragmentPlan p;
    gles::FragmentPlanner(limits, options, capsOf(limits), format, &p).planChain(chain);
    return p;
}

const char* const kPiBoards[] = {"rpi3", "rpi4", "rpi5"};
// The main chains, and chains whose forms differ most: long recursions, boxes, a threshold.
const char* const kChains[] = {"edges",
                               "gabor sigma=4 wavelength=8 orientations=6",
                               "blur sigma=2",
                               "blur sigma=8",
                               "blur sigma=16 method=boxes",
                               "threshold"};

TEST(PlanCost, EveryDrawCostsAtLeastItsFixedCostAndItsBytesOverTheBandwidth) {
    for (const char* board : kPiBoards) {
        const gles::GpuLimits& limits = findBoardProfile(board)->limits;
        const gles::GpuSpeed& speed = limits.speed;
        ASSERT_GT(speed.qpus, 0) << board << " has no speed";
        const gles::FragmentPlan p = plan("edges", limits, {}, {640, 480});
        ASSERT_TRUE(p.status) << p.status.message();
        const gles::PlanEstimate e = gles::estimatePlan(p, speed);
        double bytes = 0, sum = 0;
        int draws = 0;
        // A frame in system memory: Canny's `edges` from the cpu flood, no output draw.
        ASSERT_GE(p.floodResult, 0) << board;
        for (int k = 0; k <= p.floodResult; ++k)
            for (const gles::Draw& d : p.steps[k].passes) {
                bytes += static_cast<double>(p.drawBytes(d) + p.tileLoadBytes(d));
                ++draws;
            }
        for (const gles::PlanEstimate::Pass& pass : e.passes) sum += pass.seconds;
        EXPECT_EQ(e.draws, draws) << board;
        EXPECT_NEAR(e.seconds, sum, 1e-12) << board;
        // Each draw takes the largest of its bounds, so at least its memory bound, and its fixed cost.
        EXPECT_GE(e.seconds * (1 + 1e-9), draws * speed.drawMicroseconds * 1e-6 + bytes / (speed.bandwidthGBs * 1e9)) << board;
        // Twice the clock and twice the bandwidth: never slower, and quicker.
        gles::GpuSpeed faster = speed;
        faster.clockMHz *= 2;
        faster.bandwidthGBs *= 2;
        EXPECT_LT(gles::estimatePlan(p, faster).seconds, e.seconds) << board;
    }
}

TEST(PlanCost, TheHostIsNotModelledAndKeepsTheFormsMeasuredOnLlvmpipe) {
    const gles::GpuLimits& host = findBoardProfile("host")->limits;
    EXPECT_EQ(host.speed.qpus, 0);
    const gles::FragmentPlan p = plan("blur sigma=8", host, {}, {640, 480});
    EXPECT_TRUE(p.formsChosen.empty()) << p.formsChosen;
    EXPECT_EQ(gles::estimatePlan(p, host.speed).seconds, 0);
}

TEST(PlanCost, TheQuickestIsKeptUnlessASmallerPlanIsWithinTheModelsMargin) {
    struct Alternative {
        double seconds;
        std::size_t bytes;
    };
    auto kept = [](const std::vector<Alternative>& a) {
        return gles::chooseQuickest(a.size(), [&](std::size_t i) { return a[i].seconds; }, [&](std::size_t i) { return a[i].bytes; });
    };
    EXPECT_EQ(kept({{10, 100}, {8, 100}, {9, 100}}), 1u);           // the quickest
    EXPECT_EQ(kept({{10, 100}, {8, 200}}), 1u);                      // 25% slower: the quicker, twice the memory
    EXPECT_EQ(kept({{8.7, 100}, {8, 200}}), 0u);                     // within 10%, and half the memory
    EXPECT_EQ(kept({{8.9, 100}, {8, 200}}), 1u);                     // over 10%: the quicker
    EXPECT_EQ(kept({{8.5, 100}, {8.2, 100}, {8, 200}}), 1u);         // the smaller, the quicker of those
    EXPECT_EQ(kept({{8, 100}, {8, 100}}), 0u);                       // the first: the rule's own plan
}

TEST(PlanCost, ThePlannerTakesTheCheapestFormsByEachPiBoardsEstimate) {
    // Every combination of the forms a caller may force, planned as forced (no speed, so that
    // nothing is chosen again), against the planner's own choice under the board's speed: none
    // that fits the board is estimated quicker than the chosen plan by more than the model's
    // margin, and none within the margin of the quickest holds less memory.
    const gles::RecursiveForm recursive[] = {gles::RecursiveForm::Auto, gles::RecursiveForm::Response,
                                             gles::RecursiveForm::Strips, gles::RecursiveForm::Block};
    const gles::PyramidUse pyramid[] = {gles::PyramidUse::WhereCheaper, gles::PyramidUse::Always, gles::PyramidUse::Never};
    const gles::TileUse tiles[] = {gles::TileUse::WhereSmaller, gles::TileUse::Never, gles::TileUse::Always};
    const FrameFormat format{640, 480};
    for (const char* board : kPiBoards)
        for (const char* text : kChains) {
            const gles::GpuLimits& limits = findBoardProfile(board)->limits;
            const std::string what = std::string(board) + " '" + text + "'";
            const gles::FragmentPlan chosen = plan(text, limits, {}, format);
            ASSERT_TRUE(chosen.status) << what << ": " << chosen.status.message();
            EXPECT_NE(chosen.formsChosen.find("forms chosen by the board's estimate"), std::string::npos) << what;
            const double seconds = gles::estimatePlan(chosen, limits.speed).seconds;
            ASSERT_GT(seconds, 0) << what;
            gles::GpuLimits forced = limits;
            forced.speed = gles::GpuSpeed{};
            struct Alternative {
                std::string forms;
                double seconds;
                std::size_t bytes;
            };
            std::vector<Alternative> alternatives;
            double quickest = seconds;
            for (auto r : recursive)
                for (auto py : pyramid)
                    for (auto t : tiles) {
                        gles::FragmentOptions o;
                        o.recursiveForm = r;
                        o.boxPyramid = py;
                        o.tiles = t;
                        const gles::FragmentPlan a = plan(text, forced, o, format);
                        if (!a.status || a.bytes() > limits.memoryBytes) continue;
                        alternatives.push_back({std::string("recursive ") + nickOf(gles::kRecursiveForms, r) + ", pyramid " +
                                                    std::to_string(static_cast<int>(py)) + ", tiles " +
                                                    std::to_string(static_cast<int>(t)),
                                                gles::estimatePlan(a, limits.speed).seconds, a.bytes()});
                        quickest = std::min(quickest, alternatives.back().seconds);
                    }
            ASSERT_FALSE(alternatives.empty()) << what;
            EXPECT_LE(seconds, quickest * (1 + gles::kEstimateMargin) * (1 + 1e-9)) << what << ": " << chosen.formsChosen;
            for (const Alternative& a : alternatives) {
                if (a.seconds > quickest * (1 + gles::kEstimateMargin)) continue;
                EXPECT_LE(chosen.bytes(), a.bytes) << what << ": " << a.forms << " is as quick and smaller than "
                                                   << chosen.formsChosen;
            }
        }
}

} // namespace
} // namespace striate
