// The plan shape both GPU backends share (gles/pass_plan.h): planes shared by their lives over
// the passes, with the rules the plans rely on (a repeated step, an upload, a read-back, a pinned
// plane), on passes that are only lists of planes.
#include <gtest/gtest.h>

#include <vector>

#include "gles/pass_plan.h"

namespace striate {
namespace {

using Pass = std::vector<int>;  // the planes a pass uses

gles::Sharing share(std::vector<gles::Step<Pass>>& steps, const std::vector<int>& kinds, const gles::PlaneEnds& ends = {}) {
    return gles::sharePlanes(steps, kinds, ends, [](Pass& pass, auto&& plane) {
        for (int& p : pass) plane(p);
    });
}

TEST(PassPlan, PlanesWhoseLivesDoNotOverlapShareAndThePassesAreRewritten) {
    // 0 -> 1 -> 2 -> 3 in one kind: a chain of passes needs two storages.
    std::vector<gles::Step<Pass>> steps{{{{0, 1}}}, {{{1, 2}}}, {{{2, 3}}}};
    const gles::Sharing s = share(steps, {0, 0, 0, 0});
    EXPECT_EQ(s.storageKinds.size(), 2u);
    EXPECT_EQ(s.storage[0], s.storage[2]);
    EXPECT_EQ(s.storage[1], s.storage[3]);
    EXPECT_EQ(steps[2].passes[0], (Pass{s.storage[2], s.storage[3]}));
}

TEST(PassPlan, PlanesOfDifferentKindsNeverShare) {
    std::vector<gles::Step<Pass>> steps{{{{0}}}, {{{1}}}};
    EXPECT_EQ(share(steps, {0, 1}).storageKinds, (std::vector<int>{0, 1}));
}

TEST(PassPlan, ARepeatedStepsPlanesLiveThroughAllOfIt) {
    // Apart, plane 0 (first pass only) and plane 1 (second only) could share; repeated, the first
    // pass runs again after the second, so they must not.
    std::vector<gles::Step<Pass>> once{{{{0}, {1}}}};
    EXPECT_EQ(share(once, {0, 0}).storageKinds.size(), 1u);
    std::vector<gles::Step<Pass>> repeated{{{{0}, {1}}, true}};
    EXPECT_EQ(share(repeated, {0, 0}).storageKinds.size(), 2u);
}

TEST(PassPlan, UploadsReadBacksAndPinnedPlanesKeepTheirStorage) {
    // Plane 0 is first used by the second pass but uploaded before the first, whose plane 1 must
    // not take its storage; plane 3 is read back after the last pass, so plane 2 (used later
    // than 3's last pass) cannot share it either.
    std::vector<gles::Step<Pass>> steps{{{{1}}}, {{{0, 3}}}, {{{2}}}};
    const gles::Sharing s = share(steps, {0, 0, 0, 0}, gles::PlaneEnds{{0}, {3}, {}});
    EXPECT_NE(s.storage[0], s.storage[1]);
    EXPECT_NE(s.storage[3], s.storage[2]);
    // Pinned: a storage of its own, reported with the kind it was given.
    std::vector<gles::Step<Pass>> pinned{{{{1}}}, {{{2}}}};
    const gles::Sharing p = share(pinned, {0, 0, 0}, gles::PlaneEnds{{}, {}, {0}});
    EXPECT_EQ(p.storageKinds.size(), 2u);
    EXPECT_NE(p.storage[0], p.storage[1]);
    EXPECT_EQ(p.storage[1], p.storage[2]);
    EXPECT_EQ(p.storageKinds[p.storage[0]], 0);
}

} // namespace
} // namespace striate
