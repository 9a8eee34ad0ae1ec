// Shader files, the program cache and a first real compute pass on the machine's GLES.
#include "gles/program_cache.h"

#include <GLES3/gl31.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/coefficients.h"
#include "cpu/reference/reference.h"
#include "gles/egl_context.h"
#include "tests/support/gles_env.h"
#include "gles/shader_files.h"

namespace striate::gles {
namespace {

class ProgramCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(EglContext::create(&ctx_));
        ASSERT_TRUE(ctx_->makeCurrent());
        cache_ = std::make_unique<ProgramCache>(ctx_->info().major, ctx_->info().minor);
    }
    void TearDown() override {
        cache_.reset();  // programs are deleted while the context is current
        if (ctx_) ctx_->release();
    }
    std::unique_ptr<EglContext> ctx_;
    std::unique_ptr<ProgramCache> cache_;
};

// Suites by what they need (CTest filters them per environment, so none skips): Gles31* compute,
// GlesWithoutCompute* a context without it, ProgramCacheTest any context.
using Gles31ProgramCache = ProgramCacheTest;
using GlesWithoutComputeProgramCache = ProgramCacheTest;

TEST(ShaderFiles, AreEmbedded) {
    EXPECT_TRUE(shaderFile("hysteresis_gate.comp"));
    EXPECT_FALSE(shaderFile("nope.comp"));
}

// Shader constants are printf's "%.9g" (plus ".0" where that has no point or exponent), written
// by std::to_chars: the same text for values of every magnitude, random bit patterns included.
TEST(GlslFloat, WritesPrintfsNineSignificantDigits) {
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> unit(-10, 10);
    for (int i = 0; i < 100000; ++i) {
        double v = 0;
        switch (i % 3) {
        case 0: v = unit(random); break;
        case 1: v = std::ldexp(static_cast<double>(random() % 100000), static_cast<int>(random() % 80) - 40); break;
        default: {
            const std::uint64_t bits = random();
            std::memcpy(&v, &bits, sizeof v);
            if (!std::isfinite(v)) continue;
        }
        }
        char expected[48];
        std::snprintf(expected, sizeof expected, "%.9g", v);
        std::string want = expected;
        if (want.find_first_of(".e") == std::string::npos) want += ".0";
        ASSERT_EQ(glslFloat(v), want) << i;
    }
    EXPECT_EQ(glslFloat(2), "2.0");
    EXPECT_EQ(glslFloat(1.0 / 3), "0.333333333");
    EXPECT_EQ(glslFloat(-1.5e-7), "-1.5e-07");
}

TEST_F(GlesWithoutComputeProgramCache, ComputeProgramsAreRefusedNamingTheContext) {
    unsigned program = 0;
    const Status s = cache_->compute("hysteresis_gate.comp", {}, &program);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("compute shaders need GLES 3.1, this context is " +
                               std::string(test::expectedGles() == "es2" ? "2.0" : "3.0")),
              std::string::npos)
        << s.message();
}

TEST_F(ProgramCacheTest, FragmentProgramsCompileOnThisContext) {
    unsigned a = 0, b = 0;
    const std::string source = "#version 100\nprecision highp float;\nvoid main() { gl_FragColor = vec4(0.5); }\n";
    ASSERT_TRUE(cache_->fragment("grey", source, &a));
    ASSERT_TRUE(cache_->fragment("grey", source, &b));
    EXPECT_EQ(a, b);
    const Status s = cache_->fragment("broken", "#version 100\nvoid main() { nope(); }\n", &a);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("shader broken does not compile"), std::string::npos) << s.message();
}

TEST_F(Gles31ProgramCache, KeysProgramsByFileAndDefines) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    ASSERT_TRUE(cache_->compute("hysteresis_gate.comp", {}, &a));
    ASSERT_TRUE(cache_->compute("hysteresis_gate.comp", {}, &b));
    EXPECT_EQ(a, b);
    EXPECT_EQ(cache_->size(), 1u);
    const std::string source = "layout(local_size_x = N) in;\nvoid main() {}\n";
    ASSERT_TRUE(cache_->computeFromSource("sized.comp", source, {{"N", "8"}}, &c));
    ASSERT_TRUE(cache_->computeFromSource("sized.comp", source, {{"N", "64"}}, &d));
    EXPECT_NE(c, d);
    EXPECT_EQ(cache_->size(), 3u);
}

// The logs as the drivers write them (Mesa here; NVIDIA's seen on an H200 through EGL): no context.
TEST(ShaderLog, NamesTheFileAndLineInEachDriversFormat) {
    EXPECT_EQ(withFileName("broken.comp", "0:3(5): error: no function with name 'undefined_function'\n"),
              "broken.comp:3(5): error: no function with name 'undefined_function'");
    EXPECT_EQ(withFileName("broken.comp", "0(3) : error C1503: undefined variable \"undefined_function\"\n"),
              "broken.comp:3 : error C1503: undefined variable \"undefined_function\"");
    EXPECT_EQ(withFileName("a.frag", "0(12) : warning C7050: x\n\n0(14) : error C0000: y\n"),
              "a.frag:12 : warning C7050: x; a.frag:14 : error C0000: y");
    EXPECT_EQ(withFileName("a.frag", "0(x) odd\nlink failed\n"), "0(x) odd; link failed");  // left as they are
}

TEST_F(Gles31ProgramCache, CompileErrorsNameTheFileAndLine) {
    unsigned program = 0;
    const Status s = cache_->computeFromSource(
        "broken.comp", "layout(local_size_x = 1) in;\nvoid main() {\n    undefined_function();\n}\n", {}, &program);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("shader broken.comp does not compile: broken.comp:3"), std::string::npos) << s.message();
    const Status missing = cache_->compute("nope.comp", {}, &program);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("no shader file 'nope.comp'"), std::string::npos);
}

/// An R32F texture of the given values, W x H.
GLuint floatTexture(const std::vector<float>& values, int W, int H) {
    GLuint tex = 0;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32F, W, H);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    if (!values.empty()) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RED, GL_FLOAT, values.data());
    return tex;
}

std::vector<float> readBack(GLuint tex, int W, int H) {
    GLuint fbo = 0;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    std::vector<float> rgba(4 * W * H), out(W * H);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, rgba.data());
    for (int i = 0; i < W * H; ++i) out[i] = rgba[4 * i];
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    return out;
}

TEST_F(Gles31ProgramCache, DirectGaussianPassesMatchTheReferenceWithinTheGlesBudget) {
    for (auto [W, H] : {std::pair{37, 23}, std::pair{1, 9}, std::pair{64, 48}}) {
        for (double sigma : {0.3, 1.0, 2.5, 6.0}) {
            std::vector<float> img(W * H);
            std::mt19937 rng(W * 31 + H);
            reference::Plane ref(W, H);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const int v = static_cast<int>(rng() & 255);
                    img[y * W + x] = v / 255.0f;
                    ref.at(x, y) = v / 255.0;
                }
            GLuint a = floatTexture(img, W, H), b = floatTexture({}, W, H);
            for (int axis = 0; axis < 2; ++axis) {
                unsigned program = 0;
                ASSERT_TRUE(cache_->compute("gaussian_direct.comp",
                                            {{"AXIS", std::to_string(axis)}, {"RADIUS", std::to_string(gaussianRadius(sigma))}}, &program));
                glUseProgram(program);
                glUniform1f(glGetUniformLocation(program, "sigma"), static_cast<float>(sigma));
                glActiveTexture(GL_TEXTURE0);
                glBindTexture(GL_TEXTURE_2D, axis == 0 ? a : b);
                glBindImageTexture(0, axis == 0 ? b : a, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
                glDispatchCompute((W + 15) / 16, (H + 15) / 16, 1);
                glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
            }
            const std::vector<float> got = readBack(a, W, H);  // rows into b, columns back into a
            const reference::Plane want = reference::blur(ref, BlurSpec{sigma, BlurMethod::Direct});
            double worst = 0;
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) worst = std::max(worst, std::abs(got[y * W + x] - want.at(x, y)));
            EXPECT_LE(worst, 2e-4) << W << "x" << H << " sigma " << sigma;  // docs/algorithms.md 8, gles float
            glDeleteTextures(1, &a);
            glDeleteTextures(1, &b);
        }
    }
}

} // namespace
} // namespace striate::gles
