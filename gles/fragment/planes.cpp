// gles-fragment: the plane pool (textures with framebuffers, reused by size and kind within a
// configuration), the shared stencil buffer, and planes borrowed from GstGL.
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <cstring>
#include <utility>
#include <vector>

#include "gles/fragment/glsl.h"

namespace striate::gles {

PlaneFormat FragmentBackend::planeFormat(bool complex, double bound, bool nonNegative) const {
    return PlaneFormat{packed_ ? PlaneKind::Packed : PlaneKind::Float, complex, bound, nonNegative};
}

int FragmentBackend::acquire(int width, int height, PlaneKind kind) {
    if (width == 0) width = format_.width;
    if (height == 0) height = format_.height;
    const bool layers = kind == PlaneKind::QuadRows, floatTexels = layers || (!packed_ && kind != PlaneKind::Packed);
    for (std::size_t i = 0; i < planes_.size(); ++i) {
        Plane& p = planes_[i];
        if (!p.busy && p.width == width && p.height == height && p.layers == layers && p.floatTexels == floatTexels) {
            p.busy = true;
            return static_cast<int>(i);
        }
    }
    return layers ? newLayersPlane(width, height) : newPlane(width, height, floatTexels);
}

int FragmentBackend::newLayersPlane(int width, int height) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;
    p.layers = true;
    p.floatTexels = true;
    glGenTextures(1, &p.texture);
    glBindTexture(GL_TEXTURE_2D_ARRAY, p.texture);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA32F, width, height, 4, 0, GL_RGBA, GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glGenFramebuffers(1, &p.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    const GLenum attachments[4] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
    for (int j = 0; j < 4; ++j) glFramebufferTextureLayer(GL_FRAMEBUFFER, attachments[j], p.texture, 0, j);
    glDrawBuffers(4, attachments);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail("gles-fragment: four RGBA32F array layers as one render target are incomplete");
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

int FragmentBackend::newPlane(int width, int height, bool floatTexels) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;
    p.floatTexels = floatTexels;
    glGenTextures(1, &p.texture);
    glBindTexture(GL_TEXTURE_2D, p.texture);
    if (!floatTexels) glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    else glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    // Nearest: every fetch is a texel centre. Clamp to edge: replicate borders for free.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenFramebuffers(1, &p.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p.texture, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail(std::string("gles-fragment: an ") + (floatTexels ? "RGBA32F" : "RGBA8") + " render target is incomplete");
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

bool FragmentBackend::shareStencil(int a, int b) {
    // Attaches the buffer to both planes; false, detached again, where they are incomplete.
    auto attach = [&](GLuint rb, const std::vector<unsigned>& attachments) {
        bool complete = true;
        for (int plane : {a, b}) {
            glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
            for (GLenum at : attachments) glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, rb);
            complete = complete && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        }
        if (!complete)
            for (int plane : {a, b}) {
                glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
                for (GLenum at : attachments) glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, 0);
            }
        return complete;
    };
    if (stencil_.renderbuffer) return attach(stencil_.renderbuffer, stencil_.attachments);
    if (stencil_.tried) return false;
    stencil_.tried = true;
    // STENCIL_INDEX8 alone (GLES 2.0 core), else packed depth and stencil (GLES 3.0 core,
    // OES_packed_depth_stencil on GLES 2.0: what VideoCore IV offers), attached as depth and as
    // stencil; either may not complete an RGBA8 framebuffer on a given driver, so each is checked.
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    const bool packedDepthStencil =
        info_.major >= 3 || (extensions && std::strstr(extensions, "GL_OES_packed_depth_stencil") != nullptr);
    std::vector<std::pair<GLenum, std::vector<unsigned>>> options{{GL_STENCIL_INDEX8, {GL_STENCIL_ATTACHMENT}}};
    if (packedDepthStencil) options.push_back({GL_DEPTH24_STENCIL8, {GL_DEPTH_ATTACHMENT, GL_STENCIL_ATTACHMENT}});
    for (const auto& [format, attachments] : options) {
        GLuint rb = 0;
        glGenRenderbuffers(1, &rb);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        glRenderbufferStorage(GL_RENDERBUFFER, format, format_.width, format_.height);
        if (glGetError() == GL_NO_ERROR && attach(rb, attachments)) {
            stencil_.renderbuffer = rb;
            stencil_.attachments = attachments;
            return true;
        }
        glDeleteRenderbuffers(1, &rb);
        glGetError();  // a format this driver refused is not a failure of the frame
    }
    return false;
}

void FragmentBackend::release(const Value& v) {
    if (v.plane >= 0 && v.plane != luma_) planes_[v.plane].busy = false;
}

int FragmentBackend::borrowedPlane(int width, int height, bool withFbo) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;  // never handed out by acquire()
    if (withFbo) glGenFramebuffers(1, &p.fbo);
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

void FragmentBackend::releaseGl() {
    for (const Plane& p : planes_) {
        glDeleteFramebuffers(1, &p.fbo);
        glDeleteTextures(1, &p.texture);
    }
    planes_.clear();
    glDeleteRenderbuffers(1, &stencil_.renderbuffer);
    stencil_ = {};
    steps_.clear();
    inputPlane_ = importPlane_ = outputPlane_ = -1;
    textureDrawCache_.clear();
}

} // namespace striate::gles
