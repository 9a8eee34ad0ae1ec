// gles-fragment in a context its owner shares (as GstGL's), whose pixel-store state is anything
// but the default: alignments, row lengths, skips and, on GLES 3, bound pixel pack and unpack
// buffers too small for any frame. Every upload, read-back and texture allocation must set what it
// relies on (gles/pixel_store.h): the results equal a clean context's, and the owner finds its
// state as it left it. (The elements in GstGL's own context: tests/pipeline/test_gl_memory.cpp.)
#include <GLES3/gl3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "board/backend_choice.h"
#include "core/chain.h"
#include "gles/egl_context.h"
#include "gles/fragment/fragment_backend.h"
#include "gles/program_cache.h"
#include "tests/support/gles_env.h"
#include "tests/support/inputs.h"

namespace striate {
namespace {

struct StoreValue {
    GLenum name;
    GLint messy;
    bool es3;  // a GLES 3.0 parameter
};
constexpr std::array<StoreValue, 8> kStore{{
    {GL_PACK_ALIGNMENT, 8, false},
    {GL_UNPACK_ALIGNMENT, 2, false},
    {GL_PACK_ROW_LENGTH, 1000, true},
    {GL_PACK_SKIP_ROWS, 3, true},
    {GL_PACK_SKIP_PIXELS, 5, true},
    {GL_UNPACK_ROW_LENGTH, 1000, true},
    {GL_UNPACK_SKIP_ROWS, 3, true},
    {GL_UNPACK_SKIP_PIXELS, 5, true},
}};

/// The owner's state: set in the current context, and read back as it stands.
struct OwnerState {
    bool es3;
    GLuint pack = 0, unpack = 0;  // pixel buffers (GLES 3)

    explicit OwnerState(bool gles3) : es3(gles3) {}
    void leave() {
        for (const StoreValue& v : kStore)
            if (es3 || !v.es3) glPixelStorei(v.name, v.messy);
        if (!es3) return;
        glGenBuffers(1, &pack);
        glGenBuffers(1, &unpack);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, pack);
        glBufferData(GL_PIXEL_PACK_BUFFER, 16, nullptr, GL_STREAM_READ);  // a pointer taken as an offset fails
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, 16, nullptr, GL_STREAM_DRAW);
    }
    /// What differs from what leave() set, or "".
    std::string changed() const {
        std::string s;
        for (const StoreValue& v : kStore) {
            if (!es3 && v.es3) continue;
            GLint value = -1;
            glGetIntegerv(v.name, &value);
            char name[16];
            std::snprintf(name, sizeof name, " 0x%04X=", v.name);
            if (value != v.messy) s += name + std::to_string(value);
        }
        if (es3) {
            GLint p = 0, u = 0;
            glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &p);
            glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &u);
            if (static_cast<GLuint>(p) != pack || static_cast<GLuint>(u) != unpack) s += " the pixel buffer bindings";
        }
        return s;
    }
    void clean() {
        for (const StoreValue& v : kStore)
            if (es3 || !v.es3) glPixelStorei(v.name, v.name == GL_PACK_ALIGNMENT || v.name == GL_UNPACK_ALIGNMENT ? 4 : 0);
        if (!es3) return;
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        glDeleteBuffers(1, &pack);
        glDeleteBuffers(1, &unpack);
    }
};

constexpr FrameFormat kFormat{61, 37};

/// Two frames of `chain` through a gles-fragment made in the current context under `choice`, from
/// a strided input (the upload's row length), as the float output the read-back gives.
std::vector<float> runInCurrentContext(const BackendChoice& choice, const Chain& chain) {
    const FrameFormat format = kFormat;
    std::unique_ptr<gles::TextureBackend> b;
    const Status started = startInCurrentContext(choice, chain, format, &b);
    EXPECT_TRUE(started) << started.message();
    if (!b) return {};
    const Image<std::uint8_t> scene = test::scene(test::Size{format.width + 3, format.height});  // rows 3 longer
    const ImageView<const std::uint8_t> luma{scene.data(), format.width, format.height, scene.stride()};
    std::vector<float> values;
    for (int frame = 0; frame < 2; ++frame) {
        ChainOutput out;
        const Status s = b->process(luma, &out);
        EXPECT_TRUE(s) << formatChain(chain) << ": " << s.message();
        if (!s) return {};
        for (int y = 0; y < format.height; ++y)
            for (int x = 0; x < format.width; ++x) values.push_back(out.real.at(x, y));
    }
    return values;
}

class PixelStore : public ::testing::TestWithParam<const char*> {};

TEST_P(PixelStore, TransfersIgnoreAndKeepTheOwnersState) {
    if (!test::expectsGles()) GTEST_SKIP() << "no GLES context in this environment";
    std::unique_ptr<gles::EglContext> ctx;
    ASSERT_TRUE(gles::EglContext::create(&ctx));
    Chain chain;
    ASSERT_TRUE(parseChain(GetParam(), &chain));
    for (const char* board : {"host", "rpi3"}) {  // float planes (GLES 3) and packed 8-bit ones
        // chooseBackend probes the machine with a context of its own the first time: outside ours.
        BackendChoice choice;
        ASSERT_TRUE(chooseBackend(BackendKind::GlesFragment, BackendOptions{0, board}, chain, kFormat,
                                  Placement::CurrentContext, &choice));
        ASSERT_TRUE(ctx->makeCurrent());
        OwnerState owner(ctx->info().major >= 3);
        const std::vector<float> clean = runInCurrentContext(choice, chain);
        owner.leave();
        const std::vector<float> messy = runInCurrentContext(choice, chain);
        EXPECT_EQ(owner.changed(), "") << board << ": the owner's state was not put back";
        EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
        owner.clean();
        ctx->release();
        ASSERT_FALSE(clean.empty());
        EXPECT_TRUE(messy == clean) << board << ", " << GetParam() << ": the results differ from a clean context's";
    }
}

// A read-back of the result (float as R32F or RGBA, packed RGBA8), of a complex result, and the
// hysteresis's class reads between its draws.
INSTANTIATE_TEST_SUITE_P(Chains, PixelStore,
                         ::testing::Values("blur sigma=2", "gabor sigma=3 wavelength=8 output=complex",
                                           "edges sigma=2", "threshold"));

/// The R of each texel of `texture` (RGBA8, renderable), read through a framebuffer of its own.
std::vector<std::uint8_t> redOf(GLuint texture, int w, int h) {
    GLuint fbo = 0;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(4) * w * h), red;
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    for (std::size_t i = 0; i < rgba.size(); i += 4) red.push_back(rgba[i]);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    return red;
}

GLuint texture(GLenum format, int w, int h, const void* pixels) {
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(format), w, h, 0, format, GL_UNSIGNED_BYTE, pixels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return t;
}

/// `edges sigma=2` as gles-fragment on a board, in a context the test makes and keeps current (as
/// GstGL's is) until the test ends.
class OwnersContext : public ::testing::Test {
protected:
    void start(const char* board) {
        ASSERT_TRUE(gles::EglContext::create(&ctx));
        ASSERT_TRUE(parseChain("edges sigma=2", &chain));
        // chooseBackend probes the machine with a context of its own the first time: outside ours.
        ASSERT_TRUE(chooseBackend(BackendKind::GlesFragment, BackendOptions{0, board}, chain, kFormat,
                                  Placement::CurrentContext, &choice));
        ASSERT_TRUE(ctx->makeCurrent());
    }
    void TearDown() override {
        if (ctx) ctx->release();
    }

    std::unique_ptr<gles::EglContext> ctx;
    Chain chain;
    BackendChoice choice;
};

/// GRAY8 in GstGL's memory is a LUMINANCE texture where the context has no RG textures (GLES 2.0
/// on VideoCore IV), and GLES renders to no LUMINANCE texture: the result goes into a plane of
/// gles-fragment's own and is copied in. It must equal the result drawn into a renderable RGBA8
/// texture, code for code.
TEST_F(OwnersContext, ALuminanceTargetTakesTheResultByCopy) {
    if (!test::expectsGles()) GTEST_SKIP() << "no GLES context in this environment";
    ASSERT_NO_FATAL_FAILURE(start("rpi3"));
    const int w = kFormat.width, h = kFormat.height;
    {
        std::unique_ptr<gles::TextureBackend> b;
        ASSERT_TRUE(startInCurrentContext(choice, chain, kFormat, &b));
        const Image<std::uint8_t> scene = test::scene(test::Size{w, h});
        std::vector<std::uint8_t> tight;
        for (int y = 0; y < h; ++y) tight.insert(tight.end(), scene.row(y), scene.row(y) + w);
        const GLuint in = texture(GL_LUMINANCE, w, h, tight.data());
        const GLuint rgba = texture(GL_RGBA, w, h, nullptr), luminance = texture(GL_LUMINANCE, w, h, nullptr),
                     copied = texture(GL_RGBA, w, h, nullptr);
        GLuint fbo = 0;
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, luminance, 0);
        const bool renderable = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glDeleteFramebuffers(1, &fbo);
        if (renderable) GTEST_SKIP() << "this context renders to LUMINANCE textures: no copy to test";
        const gles::FragmentBackend::TextureFrame frame{in, w, h, gles::FragmentBackend::TextureFrame::Source::Red};
        const Status drawn = b->processTexture(frame, {rgba, -1, 8}, Encoding{});
        ASSERT_TRUE(drawn) << drawn.message();
        const Status copiedIn = b->processTexture(frame, {luminance, -1, 8}, Encoding{});
        ASSERT_TRUE(copiedIn) << copiedIn.message();
        // Read the luminance back through a copy of it into RGBA8 (its R is L).
        const Status out = b->copyTexture({luminance, w, h, gles::FragmentBackend::TextureFrame::Source::Red}, {copied, -1, 8});
        ASSERT_TRUE(out) << out.message();
        const std::vector<std::uint8_t> expected = redOf(rgba, w, h);
        EXPECT_EQ(redOf(copied, w, h), expected);
        EXPECT_GT(std::count(expected.begin(), expected.end(), 255), 0) << "no edges in the scene: nothing compared";
        for (GLuint t : {in, rgba, luminance, copied}) glDeleteTextures(1, &t);
        EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
    }
}

/// Two backends in one context (the element's luma and chroma chains in GstGL's): the second,
/// made with the first's programs, compiles none that the first compiled, and its frames equal
/// those of a backend with programs of its own. A cache of another GLES version is refused by name.
TEST_F(OwnersContext, ASecondBackendWithTheFirstsProgramsCompilesNoneAgain) {
    if (!test::expectsGles()) GTEST_SKIP() << "no GLES context in this environment";
    ASSERT_NO_FATAL_FAILURE(start("host"));
    {
        std::unique_ptr<gles::TextureBackend> first, second;
        ASSERT_TRUE(startInCurrentContext(choice, chain, kFormat, &first));
        const Image<std::uint8_t> scene = test::scene(test::Size{kFormat.width, kFormat.height});
        auto frame = [&](Backend& backend) {  // one frame's result, copied out
            ChainOutput out;
            EXPECT_TRUE(backend.process(scene.view(), &out));
            std::vector<float> values;
            for (int y = 0; y < out.real.height; ++y)
                for (int x = 0; x < out.real.width; ++x) values.push_back(out.real.at(x, y));
            return values;
        };
        const std::vector<float> a = frame(*first);
        const std::size_t compiled = first->programCount();
        ASSERT_GT(compiled, 0u);
        ASSERT_TRUE(startInCurrentContext(choice, chain, kFormat, &second, first->programs()));
        const std::vector<float> b = frame(*second);
        EXPECT_EQ(second->programs(), first->programs());
        EXPECT_EQ(first->programCount(), compiled) << "the second backend compiled programs the first had";
        first.reset();  // the programs stay with the second
        const std::vector<float> c = frame(*second);
        ASSERT_FALSE(a.empty());
        EXPECT_TRUE(b == a && c == a) << "frames differ from the first backend's";
        EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));

        const int major = ctx->info().major >= 3 ? 2 : 3;  // a version this context is not
        std::unique_ptr<gles::TextureBackend> other;
        const Status refused = gles::createTextureBackend(choice.limits, gles::FragmentOptions{}, &other,
                                                          std::make_shared<gles::ProgramCache>(major, 0));
        EXPECT_FALSE(refused);
        EXPECT_NE(refused.message().find("the program cache given is for GLES " + std::to_string(major) + ".0"), std::string::npos)
            << refused.message();
    }
}

} // namespace
} // namespace striate
