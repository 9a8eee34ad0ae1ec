// gles-fragment in GstGL's context: texture frames in and out (processTexture, copyTexture),
// the caller's GL state saved and restored around our draws.
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <functional>
#include <string>

#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// The GL state of a context we share with its owner (GstGL), saved and put back around our
/// draws: its elements assume their bindings survive between their own calls.
class SavedGlState {
public:
    explicit SavedGlState(bool es3) : es3_(es3) {
        glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
        glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer_);
        glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
        for (int i = 0; i < kUnits; ++i) {
            glActiveTexture(GL_TEXTURE0 + i);
            glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[i]);
            if (es3_) glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &arrays_[i]);
        }
        glGetIntegerv(GL_VIEWPORT, viewport_);
        glGetBooleanv(GL_COLOR_WRITEMASK, colorMask_);
        scissor_ = glIsEnabled(GL_SCISSOR_TEST);
        blend_ = glIsEnabled(GL_BLEND);
        depth_ = glIsEnabled(GL_DEPTH_TEST);
        stencil_ = glIsEnabled(GL_STENCIL_TEST);
        const GLenum stencilState[kStencilState] = {GL_STENCIL_FUNC,      GL_STENCIL_REF,
                                                    GL_STENCIL_VALUE_MASK, GL_STENCIL_FAIL,
                                                    GL_STENCIL_PASS_DEPTH_FAIL, GL_STENCIL_PASS_DEPTH_PASS,
                                                    GL_STENCIL_WRITEMASK, GL_STENCIL_CLEAR_VALUE};
        for (int i = 0; i < kStencilState; ++i) glGetIntegerv(stencilState[i], &stencilState_[i]);
        if (es3_) {
            glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertexArray_);
            glBindVertexArray(0);  // our attribute goes into the default vertex array, not theirs
        }
        glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &attribute0_);
    }
    ~SavedGlState() {
        if (!attribute0_) glDisableVertexAttribArray(0);
        if (es3_) glBindVertexArray(static_cast<GLuint>(vertexArray_));
        auto set = [](GLenum cap, GLboolean on) { on ? glEnable(cap) : glDisable(cap); };
        set(GL_SCISSOR_TEST, scissor_);
        set(GL_BLEND, blend_);
        set(GL_DEPTH_TEST, depth_);
        set(GL_STENCIL_TEST, stencil_);
        const GLint* st = stencilState_;
        glStencilFunc(static_cast<GLenum>(st[0]), st[1], static_cast<GLuint>(st[2]));
        glStencilOp(static_cast<GLenum>(st[3]), static_cast<GLenum>(st[4]), static_cast<GLenum>(st[5]));
        glStencilMask(static_cast<GLuint>(st[6]));
        glClearStencil(st[7]);
        glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
        glColorMask(colorMask_[0], colorMask_[1], colorMask_[2], colorMask_[3]);
        for (int i = 0; i < kUnits; ++i) {
            glActiveTexture(GL_TEXTURE0 + i);
            glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(textures_[i]));
            if (es3_) glBindTexture(GL_TEXTURE_2D_ARRAY, static_cast<GLuint>(arrays_[i]));
        }
        glActiveTexture(static_cast<GLenum>(activeTexture_));
        glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer_));
        glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_));
        glUseProgram(static_cast<GLuint>(program_));
    }
    SavedGlState(const SavedGlState&) = delete;
    SavedGlState& operator=(const SavedGlState&) = delete;

private:
    static constexpr int kUnits = 4;  // the most sampler slots a draw of ours binds
    static constexpr int kStencilState = 8;  // func, ref, value mask, three ops, write mask, clear value
    GLint stencilState_[kStencilState] = {};
    bool es3_;
    GLint program_ = 0, framebuffer_ = 0, arrayBuffer_ = 0, activeTexture_ = GL_TEXTURE0, vertexArray_ = 0;
    GLint textures_[kUnits] = {}, arrays_[kUnits] = {};
    GLint viewport_[4] = {};
    GLboolean colorMask_[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    GLint attribute0_ = 0;
    GLboolean scissor_ = GL_FALSE, blend_ = GL_FALSE, depth_ = GL_FALSE, stencil_ = GL_FALSE;
};

} // namespace

Status FragmentBackend::processTexture(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding) {
    return textureDraws(in, out, encoding, true);
}

Status FragmentBackend::copyTexture(const TextureFrame& in, const TextureTarget& out) {
    return textureDraws(in, out, Encoding{}, false);
}

const Draw& FragmentBackend::textureDraw(const std::string& key, const std::function<Draw()>& make) {
    for (const auto& [k, d] : textureDrawCache_)
        if (k == key) return d;
    Draw d = make();
    compile(d);
    textureDrawCache_.emplace_back(key, d);
    return textureDrawCache_.back().second;
}

Status FragmentBackend::textureDraws(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding,
                                     bool runChain) {
    using Source = TextureFrame::Source;
    if (ctx_) return Status::error("gles-fragment: processTexture needs a backend made in the caller's context");
    if (plan_.luma < 0) return Status::error("gles-fragment: processTexture before configure");
    if (Status s = heardVerdict(); !s) return s;  // a failed program skips its draws on every frame
    if (in.textureWidth < format_.width || in.textureHeight < format_.height)
        return Status::error("gles-fragment: the input texture (" + std::to_string(in.textureWidth) + "x" +
                             std::to_string(in.textureHeight) + ") is smaller than the frame");
    const int W = format_.width, H = format_.height;
    const SavedGlState saved(info_.major >= 3);
    using Value = PlaneValue;
    if (importPlane_ < 0) {
        FragmentPlanner p = planner();
        importPlane_ = p.newPlane(Plane::Storage::Rgba8, W, H);
        inputPlane_ = p.borrowedPlane(in.textureWidth, in.textureHeight, false);
        outputPlane_ = p.borrowedPlane(W, H, true);
        for (int plane : {importPlane_, inputPlane_, outputPlane_}) makePlane(plane);
    }
    Plane& input = plan_.planes[inputPlane_];
    input.texture = in.texture;
    input.width = in.textureWidth;
    input.height = in.textureHeight;
    Plane& target = plan_.planes[outputPlane_];
    target.texture = out.texture;
    glBindFramebuffer(GL_FRAMEBUFFER, target.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out.texture, 0);
    // GLES 2.0 renders to no LUMINANCE texture, which is what GstGL makes for GRAY8 there without
    // EXT_texture_rg (VideoCore IV: Pi 0-3). The whole-texture encodes then go into a plane of our
    // own and glCopyTexSubImage2D copies its red into the luminance (GLES 2.0 3.7.2: RGBA to L).
    const bool copyOut = glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE;
    if (copyOut && out.channel >= 0)
        fail("gles-fragment: the output texture cannot be rendered to (framebuffer incomplete), and channel " +
             std::to_string(out.channel) + " of it cannot be written alone by a copy");
    if (copyOut && copyPlane_ < 0) {
        copyPlane_ = planner().newPlane(Plane::Storage::Rgba8, W, H);
        makePlane(copyPlane_);
    }

    // 1. The channel (or the BT.601 luma, as lumaOf() rounds it) as 8-bit codes in texel.r of an
    //    RGBA8 plane: what the chain's first passes read from the luma plane (Luma8 and Float
    //    planes both decode texel.r).
    // The two draws are built once per source and input size, and per encoding; a frame only
    // binds the textures (the planes above) and draws.
    // The import's form by source: one channel's codes, the BT.601 luma of three, or 16-bit grey.
    const char* form = "import one channel";
    const char* swizzle = ".r";  // the channel, or the three in R, G, B order
    switch (in.source) {
    case Source::Red: break;
    case Source::Green: swizzle = ".g"; break;
    case Source::Blue: swizzle = ".b"; break;
    case Source::Alpha: swizzle = ".a"; break;
    case Source::Rgb:
        form = "import BT.601 luma";
        swizzle = ".rgb";
        break;
    case Source::Bgr:
        form = "import BT.601 luma";
        swizzle = ".bgr";
        break;
    case Source::Gray16: form = "import 16-bit grey"; break;
    }
    const Draw& import = textureDraw(
        std::string(form) + " " + swizzle + " " + std::to_string(in.textureWidth) + "x" + std::to_string(in.textureHeight),
        [&] {
            FragmentWriter importer(form, !packed_);
            importer.input(0, PlaneFormat{PlaneKind::Luma8, false, 1, true});
            switch (in.source) {
            case Source::Gray16:
                // round((lo + 256 hi) / 257) = hi + round((lo - hi) / 257): small integers only, so
                // exact at mediump; the rounding by comparisons, not a division.
                importer.line("vec2 b = floor(" + importer.fetchRaw(0, "") + ".rg * 255.0 + 0.5);", 2);
                importer.line("float d = b.x - b.y + 128.0;", 1);
                importer.line("float code = (b.y + (d >= 257.0 ? 1.0 : (d < 0.0 ? -1.0 : 0.0))) / 255.0;", 2);
                break;
            case Source::Rgb:
            case Source::Bgr:
                importer.line("vec3 c = floor(" + importer.fetchRaw(0, "") + swizzle + " * 255.0 + 0.5);", 2);
                importer.line("float code = floor(dot(c, vec3(19595.0, 38470.0, 7471.0)) / 65536.0 + 0.5) / 255.0;", 4);
                break;
            case Source::Red:
            case Source::Green:
            case Source::Blue:
            case Source::Alpha: importer.line("float code = " + importer.fetchRaw(0, "") + swizzle + ";", 0); break;
            }
            return planner().makeDraw(importer.finishRaw("vec4(code, 0.0, 0.0, 1.0)"), {Value{inputPlane_, {}}},
                            Value{importPlane_, {}});
        });
    // 3. The result (or, copying, the imported plane) through the encoding, as the cpu encoder:
    //    u = (offset + scale v) 255, 0 below and 255 above the range, else floor(u + 0.5); the
    //    magnitude of a complex result. Into the output's channel alone, or into every channel.
    const bool sixteen = out.bits == 16;
    const Draw& encode = textureDraw(
        std::string(runChain ? "encode " : "copy ") + glslFloat(encoding.offset) + " " + glslFloat(encoding.scale) +
            (sixteen ? " 16" : " 8") + (copyOut ? " into our plane" : ""),
        [&] {
            const Value result = !runChain             ? Value{importPlane_, PlaneFormat{PlaneKind::Luma8, false, 1, true}}
                                 : plan_.redResult > 0 ? Value{plan_.redResult, PlaneFormat{}}
                                                       : plan_.result;
            const std::string max = sixteen ? "65535.0" : "255.0";
            FragmentWriter encoder(sixteen ? "encode to 16 bits" : "encode to 8 bits", !packed_);
            encoder.input(0, result.format);
            encoder.uniform("u_encode");
            encoder.line("vec2 v = " + encoder.fetch(0, "") + ";", 0);
            encoder.line(std::string("float u = (u_encode.x + u_encode.y * ") +
                             (runChain && plan_.complexOutput ? "length(v)" : "v.x") + ") * " + max + ";",
                         3);
            encoder.line("float code = u > 0.0 ? min(floor(u + 0.5), " + max + ") : 0.0;", 3);
            if (sixteen) encoder.line("float hi = floor(code / 256.0);", 2);
            return planner().makeDraw(encoder.finishRaw(sixteen ? "vec4((code - 256.0 * hi) / 255.0, hi / 255.0, 0.0, 1.0)"
                                                      : "vec4(code / 255.0)"),
                            {result}, Value{copyOut ? copyPlane_ : outputPlane_, {}},
                            {{"u_encode", {static_cast<float>(encoding.offset), static_cast<float>(encoding.scale), 0, 0}}});
        });
    if (!status_) return status_;

    beginDraws();
    glDisable(GL_SCISSOR_TEST);
    if (runChain) {
        // 2. The configured passes, with the imported plane standing in for the uploaded luma;
        //    or the input texture itself, where its red channel is the frame's luma texel for
        //    texel (a GRAY8, I420 or NV12 luma plane without padded rows) and reads beyond its
        //    edges clamp (the replicate border): no import draw. Its filters are set to nearest
        //    while the passes run (GstGL's linear filtering gives the same texel-centre values,
        //    but a software renderer samples it several times slower) and put back after.
        GLint wrapS = 0, wrapT = 0, minFilter = 0, magFilter = 0;
        if (in.source == Source::Red && in.textureWidth == W && in.textureHeight == H) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, in.texture);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, &wrapS);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, &wrapT);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, &minFilter);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, &magFilter);
        }
        const bool direct = wrapS == GL_CLAMP_TO_EDGE && wrapT == GL_CLAMP_TO_EDGE;
        auto filters = [&](GLint min, GLint mag) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, in.texture);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
        };
        if (direct) filters(GL_NEAREST, GL_NEAREST);
        else run(import);
        Plane& lumaPlane = plan_.planes[plan_.luma];
        const unsigned luma = lumaPlane.texture;
        lumaPlane.texture = direct ? in.texture : plan_.planes[importPlane_].texture;
        runSteps(false);
        lumaPlane.texture = luma;
        if (direct) filters(minFilter, magFilter);
    } else {
        run(import);
    }
    if (out.channel >= 0) glColorMask(out.channel == 0, out.channel == 1, out.channel == 2, out.channel == 3);
    run(encode);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    if (copyOut) {
        glBindFramebuffer(GL_FRAMEBUFFER, plan_.planes[copyPlane_].fbo);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, out.texture);
        glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, W, H);
    }
    input.texture = 0;  // borrowed: releaseGl() must not delete them
    target.texture = 0;
    glBindFramebuffer(GL_FRAMEBUFFER, target.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        return Status::error(std::string("gles-fragment: ") + glErrorName(e) + " while processing a texture frame");
    return heardVerdict();
}

} // namespace striate::gles
