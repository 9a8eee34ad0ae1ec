// The EGL context and the probe, on whatever GLES this machine has (Mesa llvmpipe in CI). CTest
// runs this binary four times: as is, under MESA_GLES_VERSION_OVERRIDE=3.0 and 2.0, and with no
// EGL vendor at all; STRIATE_EXPECT (gles31, es3, es2, none) says which outcome is right.
#include <GLES3/gl31.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "board/probe.h"
#include "gles/egl_context.h"
#include "tests/support/gles_env.h"

namespace striate::gles {
namespace {

TEST(EglContext, CreatesTheContextThisMachineOffers) {
    std::unique_ptr<EglContext> ctx;
    const Status s = EglContext::create(&ctx);
    if (test::expectedGles() == "none") {
        ASSERT_FALSE(s);
        EXPECT_NE(s.message().find("no EGL display"), std::string::npos) << s.message();
        // and what to do about it
        EXPECT_NE(s.message().find("libegl-mesa0 libgl1-mesa-dri"), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("render group"), std::string::npos) << s.message();
        return;
    }
    ASSERT_TRUE(s) << s.message();
    ASSERT_TRUE(ctx->makeCurrent());
    const std::string version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    if (test::expectedGles() == "es2") {
        EXPECT_EQ(ctx->info().major, 2);
        EXPECT_NE(version.find("OpenGL ES 2.0"), std::string::npos) << version;
    } else if (test::expectedGles() == "es3") {
        EXPECT_EQ(ctx->info().major, 3);
        EXPECT_EQ(ctx->info().minor, 0);
    } else {
        EXPECT_EQ(ctx->info().major, 3);
        EXPECT_EQ(ctx->info().minor, 1);
    }
    ctx->release();
}

TEST(EglContext, MadeOnOneThreadUsedOnAnotherDestroyedOnAThird) {
    std::unique_ptr<EglContext> ctx;
    std::thread([&] { ASSERT_TRUE(EglContext::create(&ctx)); }).join();
    ASSERT_TRUE(ctx);
    int maxTexture = 0;
    std::thread([&] {
        ASSERT_TRUE(ctx->makeCurrent());
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTexture);
        ctx->release();
    }).join();
    EXPECT_GE(maxTexture, 2048);
    ctx.reset();
}

TEST(Probe, ReportsWhatTheContextOffers) {
    const Probe p = probeMachine();
    EXPECT_FALSE(p.cpuSimd.empty());
    if (test::expectedGles() == "none") {
        EXPECT_FALSE(p.gpu);
        EXPECT_NE(formatProbe(p).find("gles: unavailable: no EGL display"), std::string::npos) << formatProbe(p);
        return;
    }
    ASSERT_TRUE(p.gpu) << p.gpuError;
    EXPECT_GE(p.maxTextureSize, 2048);
    EXPECT_FALSE(p.renderer.empty());
    if (test::expectedGles() == "es2") {
        EXPECT_FALSE(p.compute);
        EXPECT_TRUE(p.floatRenderable.empty());  // not probed on ES 2.0 (no sized float formats)
    } else if (test::expectedGles() == "es3") {
        EXPECT_FALSE(p.compute);
        EXPECT_NE(std::find(p.floatRenderable.begin(), p.floatRenderable.end(), "RGBA32F"), p.floatRenderable.end());
    } else {
        EXPECT_TRUE(p.compute);
        EXPECT_GE(p.computeInvocations, 128);  // GLES 3.1 minimum
        EXPECT_GE(p.computeSharedBytes, 16384);
        EXPECT_NE(std::find(p.floatRenderable.begin(), p.floatRenderable.end(), "RGBA16F"), p.floatRenderable.end());
    }
    const std::string json = formatProbeJson(p);
    EXPECT_EQ(json.front(), '{');
    EXPECT_NE(json.find("\"max_texture_size\": "), std::string::npos);
}

} // namespace
} // namespace striate::gles
