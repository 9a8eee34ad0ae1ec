// The driver log's reading of Mesa's shader statistics (gles/driver_log.h), on the messages vc4
// and v3d wrote under the noop DRM shim (docs/boards.md): no context needed. Then, in a context,
// its callback in front of one already there (GstGL's).
#include "gles/driver_log.h"

#include <gtest/gtest.h>

#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <cstring>
#include <memory>
#include <string>

#include "tests/support/gles_env.h"

namespace striate::gles {
namespace {

TEST(DriverLog, ReadsVc4Statistics) {
    StageStats s;
    ASSERT_TRUE(parseStageStats("MESA_SHADER_FRAGMENT shader: 140 inst, 2 threads, 81 uniforms, 5 max-temps, "
                                "1727 estimated-cycles",
                                &s));
    EXPECT_EQ(s.stage, "MESA_SHADER_FRAGMENT");
    EXPECT_EQ(s.instructions, 140);
    EXPECT_EQ(s.threads, 2);
    EXPECT_EQ(s.uniforms, 81);
    EXPECT_EQ(s.maxTemps, 5);
    EXPECT_EQ(s.cycles, 1727);
    EXPECT_EQ(s.spills, 0);
    ASSERT_TRUE(parseStageStats("MESA_SHADER_COORD shader: 12 inst, 1 threads, 4 uniforms, 3 max-temps, 20 estimated-cycles", &s));
    EXPECT_EQ(s.stage, "MESA_SHADER_COORD");
}

TEST(DriverLog, ReadsV3dStatisticsAndSpills) {
    StageStats s;
    ASSERT_TRUE(parseStageStats("MESA_SHADER_COMPUTE shader: 320 inst, 4 threads, 0 loops, 61 uniforms, 29 max-temps, "
                                "3:7 spills:fills, 2 sfu-stalls, 330 inst-and-stalls, 12 nops",
                                &s));
    EXPECT_EQ(s.stage, "MESA_SHADER_COMPUTE");
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

StageStats stats(const char* message) {
    StageStats s;
    EXPECT_TRUE(parseStageStats(message, &s)) << message;
    return s;
}

TEST(DriverLog, AVertexShaderWithoutItsFragmentShaderIsAFailedDraw) {
    const StageStats fs = stats("MESA_SHADER_FRAGMENT shader: 10 inst, 2 threads, 1 uniforms, 3 max-temps, 9 estimated-cycles");
    const StageStats vs = stats("MESA_SHADER_VERTEX shader: 10 inst, 1 threads, 1 uniforms, 3 max-temps, 9 estimated-cycles");
    const StageStats coord = stats("MESA_SHADER_COORD shader: 12 inst, 1 threads, 4 uniforms, 3 max-temps, 20 estimated-cycles");
    const PassReport compiled{"blur.direct x", false, {fs, vs, coord}, {}};
    EXPECT_FALSE(compiled.failed());
    EXPECT_EQ(compiled.passStage()->instructions, 10);
    const PassReport failed{"recursive.response x 23 tap pairs and the centre", false, {vs, coord}, {}};
    EXPECT_TRUE(failed.failed());
    EXPECT_EQ(failed.passStage(), nullptr);
    const PassReport silent{"cached", false, {}, {}};
    EXPECT_FALSE(silent.failed());  // nothing compiled: nothing to judge (a cache hit, a driver that says nothing)
}

// softpipe (armhf's GLES under qemu) reports a compute shader at link, then its own blitter's
// shaders at the first dispatch after an upload: not ours, and no failure of our program.
TEST(DriverLog, ADriversOwnShadersAtADispatchAreNoFailure) {
    const PassReport dispatch{"store.comp COMPLEX=0", true,
                              {stats("FS shader: 2 inst, 0 loops, 0 temps, 1 const, 0 imm"),
                               stats("VS shader: 5 inst, 0 loops, 1 temps, 5 const, 0 imm")},
                              {}};
    EXPECT_FALSE(dispatch.failed());
    EXPECT_EQ(dispatch.passStage(), nullptr);
    const PassReport v3d{"gaussian_direct.comp AXIS=0", true,
                         {stats("MESA_SHADER_COMPUTE shader: 58 inst, 4 threads, 0 loops, 12 uniforms, 6 max-temps, 0:0 spills:fills")},
                         {}};
    ASSERT_NE(v3d.passStage(), nullptr);
    EXPECT_EQ(v3d.passStage()->instructions, 58);
    EXPECT_EQ(v3d.passStage()->loops, 0);
    // A draw's own stages by TGSI's names.
    const PassReport draw{"quad.pack", false, {stats("FS shader: 7 inst, 0 loops, 2 temps, 0 const, 1 imm")}, {}};
    ASSERT_NE(draw.passStage(), nullptr);
    EXPECT_FALSE(draw.failed());
}

struct Heard {
    int messages = 0;
    std::string last;
};

void GL_APIENTRY ownersCallback(GLenum, GLenum, GLuint, GLenum, GLsizei, const GLchar* text, const void* user) {
    auto* heard = static_cast<Heard*>(const_cast<void*>(user));
    ++heard->messages;
    heard->last = text;
}

/// In a context someone else owns, with a callback of theirs installed and synchronous output off
/// (as GstGL leaves it): ours goes in front, every message still reaches theirs with their user
/// pointer, and uninstall() puts back their callback and switches.
TEST(DriverLogShared, ChainsOntoTheCallbackAlreadyThereAndPutsItBack) {
    if (!test::expectsGles()) GTEST_SKIP() << "no GLES context in this environment";
    std::unique_ptr<EglContext> ctx;
    ASSERT_TRUE(EglContext::create(&ctx));
    ASSERT_TRUE(ctx->makeCurrent());
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    if (!extensions || !std::strstr(extensions, "GL_KHR_debug")) GTEST_SKIP() << "this context has no GL_KHR_debug";
    auto callback = reinterpret_cast<PFNGLDEBUGMESSAGECALLBACKKHRPROC>(eglGetProcAddress("glDebugMessageCallbackKHR"));
    auto insert = reinterpret_cast<PFNGLDEBUGMESSAGEINSERTKHRPROC>(eglGetProcAddress("glDebugMessageInsertKHR"));
    auto getPointer = reinterpret_cast<PFNGLGETPOINTERVKHRPROC>(eglGetProcAddress("glGetPointervKHR"));
    ASSERT_TRUE(callback && insert && getPointer);
    Heard owner;
    callback(ownersCallback, &owner);
    glEnable(GL_DEBUG_OUTPUT_KHR);
    glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);

    DriverLog log;
    ASSERT_TRUE(log.install(true));
    EXPECT_TRUE(glIsEnabled(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR));  // ours needs the message inside the call
    insert(GL_DEBUG_SOURCE_APPLICATION_KHR, GL_DEBUG_TYPE_MARKER_KHR, 1, GL_DEBUG_SEVERITY_HIGH_KHR, -1, "the owner's marker");
    EXPECT_EQ(owner.messages, 1);
    EXPECT_EQ(owner.last, "the owner's marker");

    log.uninstall();
    void* function = nullptr;
    void* user = nullptr;
    getPointer(GL_DEBUG_CALLBACK_FUNCTION_KHR, &function);
    getPointer(GL_DEBUG_CALLBACK_USER_PARAM_KHR, &user);
    EXPECT_EQ(function, reinterpret_cast<void*>(&ownersCallback));
    EXPECT_EQ(user, &owner);
    EXPECT_TRUE(glIsEnabled(GL_DEBUG_OUTPUT_KHR));
    EXPECT_FALSE(glIsEnabled(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR));
    insert(GL_DEBUG_SOURCE_APPLICATION_KHR, GL_DEBUG_TYPE_MARKER_KHR, 2, GL_DEBUG_SEVERITY_HIGH_KHR, -1, "after");
    glFinish();
    EXPECT_EQ(owner.messages, 2);
    callback(nullptr, nullptr);
    glDisable(GL_DEBUG_OUTPUT_KHR);
    ctx->release();
}

} // namespace
} // namespace striate::gles
