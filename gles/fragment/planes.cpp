// gles-fragment: the plan's planes as textures with framebuffers, the shared stencil buffer, and
// planes borrowed from GstGL.
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>
#include <string>

namespace striate::gles {
namespace {

/// Nearest (every fetch is a texel centre) and clamp to edge (replicate borders for free).
void nearestClamped(GLenum target) {
    glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

const char* storageName(Plane::Storage storage) {
    switch (storage) {
    case Plane::Storage::Rgba8: return "RGBA8";
    case Plane::Storage::Rgba32f: return "RGBA32F";
    case Plane::Storage::Rg32f: return "RG32F";
    case Plane::Storage::Layers: return "four RGBA32F array layers as one render target";
    case Plane::Storage::Luma: return "luma";
    case Plane::Storage::R32f: return "R32F";
    case Plane::Storage::Borrowed: return "output texture";
    }
    return "?";
}

/// Bytes per texel of a plane's texture.
std::size_t texelBytes(Plane::Storage storage) {
    switch (storage) {
    case Plane::Storage::Rgba8: return 4;
    case Plane::Storage::Rgba32f: return 16;
    case Plane::Storage::Rg32f: return 8;
    case Plane::Storage::Layers: return 4 * 16;
    case Plane::Storage::Luma: return 1;
    case Plane::Storage::R32f: return 4;
    case Plane::Storage::Borrowed: return 0;
    }
    return 0;
}

} // namespace

std::size_t FragmentPlan::bytes() const {
    std::size_t total = 0;
    for (const Plane& p : planes) total += texelBytes(p.storage) * p.width * p.height;
    return total;
}

double FragmentPlan::fragments(const Draw& d) const {
    const Plane& t = planes[static_cast<std::size_t>(d.target)];
    return d.w > 0 ? static_cast<double>(d.w) * d.h : static_cast<double>(t.width) * t.height;
}

namespace {
/// Bytes a texel of a plane a draw reads or writes: a borrowed texture is GstGL's, one byte a
/// texel (R8 or LUMINANCE) is taken for it.
std::size_t drawnTexelBytes(const Plane& p) { return p.storage == Plane::Storage::Borrowed ? 1 : texelBytes(p.storage); }
} // namespace

std::size_t FragmentPlan::drawBytes(const Draw& d) const {
    const Plane& t = planes[static_cast<std::size_t>(d.target)];
    const double whole = static_cast<double>(t.width) * t.height;
    const double area = fragments(d);
    double moved = area * (d.stencil == Stencil::Mark ? 0 : drawnTexelBytes(t)) + (d.stencil != Stencil::None ? area : 0);
    for (int i : d.inputs)
        if (i >= 0) {
            const Plane& in = planes[static_cast<std::size_t>(i)];
            moved += static_cast<double>(in.width) * in.height * drawnTexelBytes(in) * (d.readsInputsWhole ? 1.0 : area / whole);
        }
    return static_cast<std::size_t>(moved);
}

std::size_t FragmentPlan::tileLoadBytes(const Draw& d) const {
    // A marking draw clears the stencil and writes no colour; a testing one loads the stencil too.
    if (d.stencil == Stencil::Mark) return 0;
    const Plane& t = planes[static_cast<std::size_t>(d.target)];
    return static_cast<std::size_t>(fragments(d) * (drawnTexelBytes(t) + (d.stencil == Stencil::Test ? 1 : 0)));
}

namespace {
/// Bytes of the stencil buffer a plan's class planes share (STENCIL_INDEX8: 1 a texel; packed
/// depth and stencil: 4), of their size; 0 without one.
std::size_t stencilBytes(unsigned format, const FragmentPlan& plan) {
    const auto p = std::find_if(plan.planes.begin(), plan.planes.end(), [](const Plane& q) { return q.stencil; });
    return p == plan.planes.end() ? 0 : (format == GL_STENCIL_INDEX8 ? 1u : 4u) * static_cast<std::size_t>(p->width) * p->height;
}
} // namespace

std::size_t FragmentBackend::plannedGpuBytes(const Chain& chain, const FrameFormat& format) const {
    validated_ = Validated{true, chain, format, {}};
    FragmentPlanner(limits_, options_, caps_, format, &validated_.plan).planChain(chain);
    return validated_.plan.bytes() + kTriangleBytes + stencilBytes(stencil_.format, validated_.plan);
}

MemoryUse FragmentBackend::memory() const {
    std::size_t gpu = plan_.bytes() + (vertexBuffer_ ? kTriangleBytes : 0);
    if (stencil_.renderbuffer) gpu += stencilBytes(stencil_.format, plan_);
    const std::size_t host = hostBytes() + lumaUpload_.size() + readback8_.size() + classesBefore_.size() +
                             classesAfter_.size() + sizeof(float) * readbackF_.size() +
                             (floodQueue_ ? sizeof(std::int32_t) * (format_.width + 1) * format_.height : 0);
    return {gpu, host};
}

void FragmentBackend::makePlane(int i) {
    Plane& p = plan_.planes[i];
    const int W = p.width, H = p.height;
    const GLenum target = p.storage == Plane::Storage::Layers ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
    if (p.storage != Plane::Storage::Borrowed) {
        glGenTextures(1, &p.texture);
        glBindTexture(target, p.texture);
        const PixelStoreSupport& store = info_.pixelStore;
        switch (p.storage) {
        case Plane::Storage::Rgba8: allocateTexture(store, target, GL_RGBA, W, H, GL_RGBA, GL_UNSIGNED_BYTE); break;
        case Plane::Storage::Rgba32f: allocateTexture(store, target, GL_RGBA32F, W, H, GL_RGBA, GL_FLOAT); break;
        case Plane::Storage::Rg32f: allocateTexture(store, target, GL_RG32F, W, H, GL_RG, GL_FLOAT); break;
        case Plane::Storage::Layers: allocateTexture(store, target, GL_RGBA32F, W, H, GL_RGBA, GL_FLOAT, 4); break;
        case Plane::Storage::Luma:
            if (packed_) allocateTexture(store, target, GL_LUMINANCE, W, H, GL_LUMINANCE, GL_UNSIGNED_BYTE);
            else allocateTexture(store, target, GL_R8, W, H, GL_RED, GL_UNSIGNED_BYTE);
            break;
        case Plane::Storage::R32f: allocateTexture(store, target, GL_R32F, W, H, GL_RED, GL_FLOAT); break;
        case Plane::Storage::Borrowed: break;
        }
        nearestClamped(target);
        glBindTexture(target, 0);
    }
    if (p.storage == Plane::Storage::Luma || (p.storage == Plane::Storage::Borrowed && !p.withFbo)) return;
    glGenFramebuffers(1, &p.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    if (p.storage == Plane::Storage::Borrowed) return;  // the texture is attached per frame
    if (p.storage == Plane::Storage::Layers) {
        const GLenum attachments[4] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
        for (int j = 0; j < 4; ++j) glFramebufferTextureLayer(GL_FRAMEBUFFER, attachments[j], p.texture, 0, j);
        glDrawBuffers(4, attachments);
    } else {
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p.texture, 0);
    }
    if (p.stencil) {
        // The backend's one stencil buffer, of the class planes' size (the planner makes them
        // alike), in the format init() found to complete a class plane's framebuffer.
        if (!stencil_.renderbuffer) {
            glGenRenderbuffers(1, &stencil_.renderbuffer);
            glBindRenderbuffer(GL_RENDERBUFFER, stencil_.renderbuffer);
            glRenderbufferStorage(GL_RENDERBUFFER, stencil_.format, W, H);
        }
        for (GLenum at : stencil_.attachments)
            glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, stencil_.renderbuffer);
    }
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail(std::string("gles-fragment: an ") + storageName(p.storage) + (p.stencil ? " render target with a stencil buffer" : " render target") +
             " is incomplete");
}

void FragmentBackend::releaseGl() {
    for (const Plane& p : plan_.planes) {
        glDeleteFramebuffers(1, &p.fbo);
        if (p.storage != Plane::Storage::Borrowed) glDeleteTextures(1, &p.texture);
    }
    glDeleteRenderbuffers(1, &stencil_.renderbuffer);
    stencil_.renderbuffer = 0;
    plan_ = FragmentPlan{};
    programs_.clear();
    inputPlane_ = importPlane_ = outputPlane_ = copyPlane_ = -1;
    textureDrawCache_.clear();
}

} // namespace striate::gles
