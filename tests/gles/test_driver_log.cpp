// The driver log's reading of Mesa's shader statistics (gles/driver_log.h), on the messages vc4
// and v3d wrote under the noop DRM shim (docs/boards.md): no context needed.
#include "gles/driver_log.h"

#include <gtest/gtest.h>

namespace striate::gles {
namespace {

TEST(DriverLog, ReadsVc4Statistics) {
    StageStats s;
    ASSERT_TRUE(parseStageStats("MESA_SHADER_FRAGMENT shader: 140 inst, 2 threads, 81 uniforms, 5 max-temps, "
                                "1727 estimated-cycles",
                                &s));
    EXPECT_EQ(s.stage, "MESA_SHADER_FRAGMENT");
    EXPECT_TRUE(s.isPassStage());
    EXPECT_EQ(s.instructions, 140);
    EXPECT_EQ(s.threads, 2);
    EXPECT_EQ(s.uniforms, 81);
    EXPECT_EQ(s.maxTemps, 5);
    EXPECT_EQ(s.cycles, 1727);
    EXPECT_EQ(s.spills, 0);
    ASSERT_TRUE(parseStageStats("MESA_SHADER_COORD shader: 12 inst, 1 threads, 4 uniforms, 3 max-temps, 20 estimated-cycles", &s));
    EXPECT_FALSE(s.isPassStage());  // vc4's coordinate shader: a vertex stage
}

TEST(DriverLog, ReadsV3dStatisticsAndSpills) {
    StageStats s;
    ASSERT_TRUE(parseStageStats("MESA_SHADER_COMPUTE shader: 320 inst, 4 threads, 0 loops, 61 uniforms, 29 max-temps, "
                                "3:7 spills:fills, 2 sfu-stalls, 330 inst-and-stalls, 12 nops",
                                &s));
    EXPECT_EQ(s.stage, "MESA_SHADER_COMPUTE");
    EXPECT_TRUE(s.isPassStage());
    EXPECT_EQ(s.instructions, 320);
    EXPECT_EQ(s.threads, 4);
    EXPECT_EQ(s.maxTemps, 29);
    EXPECT_EQ(s.spills, 3);
    EXPECT_EQ(s.fills, 7);
    EXPECT_EQ(s.cycles, -1);
}

TEST(DriverLog, IgnoresOtherMessages) {
    StageStats s;
    EXPECT_FALSE(parseStageStats("Draw call returned Success.  Expect corruption.", &s));
    EXPECT_FALSE(parseStageStats("FS shader: compiled", &s));
}

TEST(DriverLog, OtherStagesWithoutTheFragmentIsAFailedPass) {
    PassReport compiled{"blur.direct x", {}, {}};
    StageStats fs, vs;
    ASSERT_TRUE(parseStageStats("MESA_SHADER_FRAGMENT shader: 10 inst, 2 threads, 1 uniforms, 3 max-temps, 9 estimated-cycles", &fs));
    ASSERT_TRUE(parseStageStats("MESA_SHADER_VERTEX shader: 10 inst, 1 threads, 1 uniforms, 3 max-temps, 9 estimated-cycles", &vs));
    compiled.stages = {fs, vs};
    EXPECT_FALSE(compiled.failed());
    PassReport failed{"recursive.response x 23 tap pairs and the centre", {vs}, {}};
    EXPECT_TRUE(failed.failed());
    PassReport silent{"cached", {}, {}};
    EXPECT_FALSE(silent.failed());  // nothing compiled: nothing to judge (a cache hit, a driver that says nothing)
}

} // namespace
} // namespace striate::gles
