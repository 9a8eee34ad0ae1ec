// gles-fragment: creation (own context or GstGL's), configure (the stage loop, the R32F result
// target) and process (upload, draws, read-back).
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>
#include <cstring>
#include <variant>

#include "gles/fragment/glsl.h"

namespace striate::gles {

Status FragmentBackend::create(const GpuLimits& limits, const FragmentOptions& options, std::unique_ptr<FragmentBackend>* out) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend(limits, options));
    if (Status s = b->createContext(); !s) return s;
    const Current current(*b);
    if (!current.status()) return current.status();
    b->init();
    *out = std::move(b);
    return {};
}

Status FragmentBackend::createInCurrentContext(const GpuLimits& limits, const FragmentOptions& options,
                                              std::unique_ptr<FragmentBackend>* out) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend(limits, options));
    if (Status s = b->adoptCurrentContext(); !s) return s;
    b->init();
    *out = std::move(b);
    return {};
}

/// The part of creation that runs with the context current.
void FragmentBackend::init() {
    packed_ = !limits_.floatTargets || info_.major < 3;
    const float triangle[] = {-1.0f, -1.0f, 3.0f, -1.0f, -1.0f, 3.0f};
    glGenBuffers(1, &vertexBuffer_);
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    // QuadRows planes: float targets, four draw buffers (GLES 3.0 guarantees four) and a frame
    // buffer of array layers that the driver calls complete.
    GLint drawBuffers = 0, framebuffer = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);  // the caller's, in a shared context
    if (!packed_) glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
    if (drawBuffers >= 4) {
        const int p = newLayersPlane(4, 4);
        quadRows_ = static_cast<bool>(failure_);
        failure_ = {};
        glDeleteFramebuffers(1, &planes_[p].fbo);
        glDeleteTextures(1, &planes_[p].texture);
        planes_.clear();
    }
    glGenFramebuffers(1, &readFbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
}

FragmentBackend::~FragmentBackend() {
    const Current current(*this);
    if (!current.status()) return;  // no context: no objects either
    releaseGl();
    if (vertexBuffer_) glDeleteBuffers(1, &vertexBuffer_);
    if (readFbo_) glDeleteFramebuffers(1, &readFbo_);
    cache_.reset();
}

Status FragmentBackend::configureCurrent(const Chain& chain, const FrameFormat& format) {
    releaseGl();
    chain_ = chain;
    format_ = format;
    failure_ = {};
    passes_.clear();
    shaders_.clear();
    // The input: with float targets an R32F plane of the reference's unit values float(c / 255),
    // made on the host (a shader division need not round correctly); else the 8-bit luminance.
    luma_ = acquire();
    glBindTexture(GL_TEXTURE_2D, planes_[luma_].texture);
    if (packed_)
        glTexImage2D(GL_TEXTURE_2D, 0, GL_LUMINANCE, format.width, format.height, 0, GL_LUMINANCE, GL_UNSIGNED_BYTE, nullptr);
    else
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, format.width, format.height, 0, GL_RED, GL_FLOAT, nullptr);
    Value v{luma_, PlaneFormat{packed_ ? PlaneKind::Luma8 : PlaneKind::Float, false, 1, true}};
    for (std::size_t i = 0; i < chain.stages.size() && failure_; ++i) {
        const StagePlan plan = planStage(chain.stages[i]);
        Value next;
        if (std::holds_alternative<BlurSpec>(chain.stages[i])) next = blur(plan.blur, v);
        else if (std::holds_alternative<GaborSpec>(chain.stages[i])) next = gabor(plan.gabor, v);
        else next = edges(std::get<EdgeSpec>(chain.stages[i]), plan, v);
        if (i > 0) release(v);
        v = next;
    }
    result_ = v;
    complexOutput_ = chain.complexOutput();
    const int W = format.width, H = format.height;
    // A real float result is drawn into an R32F target instead, so the read-back moves 4 bytes a
    // pixel rather than 16 (where the driver reads R32F as GL_RED / GL_FLOAT).
    redResult_ = 0;
    if (!packed_ && !complexOutput_ && failure_ && result_.format.kind == PlaneKind::Float && !steps_.empty() &&
        steps_.back().draws.size() == 1 &&
        steps_.back().draws[0].target == result_.plane) {
        GLuint texture = 0, fbo = 0;
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, W, H, 0, GL_RED, GL_FLOAT, nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
        GLint readFormat = 0, readType = 0;
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
            glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_FORMAT, &readFormat);
            glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_TYPE, &readType);
        }
        Plane red;
        red.texture = texture;
        red.fbo = fbo;
        red.width = W;
        red.height = H;
        red.busy = true;
        planes_.push_back(red);
        if (readFormat == GL_RED && readType == GL_FLOAT) {
            redResult_ = static_cast<int>(planes_.size()) - 1;
            steps_.back().draws[0].target = redResult_;
        }
    }

    readback8_.resize(static_cast<std::size_t>(4) * W * H);
    readbackF_.resize(packed_ ? 0 : static_cast<std::size_t>(4) * W * H);
    unitUpload_.resize(packed_ ? 0 : static_cast<std::size_t>(W) * H);
    resetOutputs(complexOutput_);
    failure_ = glStatus("while configuring");
    return failure_;
}

Status FragmentBackend::processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    const int W = format_.width, H = format_.height;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glBindTexture(GL_TEXTURE_2D, planes_[luma_].texture);
    if (packed_) {
        // GLES 2.0 has no unpack row length: strided rows are copied tight first.
        const std::uint8_t* pixels = luma.data;
        if (luma.stride != W) {
            lumaUpload_.resize(static_cast<std::size_t>(W) * H);
            for (int y = 0; y < H; ++y) std::memcpy(&lumaUpload_[static_cast<std::size_t>(y) * W], luma.row(y), W);
            pixels = lumaUpload_.data();
        }
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_LUMINANCE, GL_UNSIGNED_BYTE, pixels);
    } else {
        const std::array<float, 256>& unit = unitValues();
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) unitUpload_[static_cast<std::size_t>(y) * W + x] = unit[luma.row(y)[x]];
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RED, GL_FLOAT, unitUpload_.data());
    }

    beginDraws();
    runSteps();
    // The result: decoded on the host exactly as the shaders decode.
    if (redResult_ > 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, planes_[redResult_].fbo);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(real_.stride()));
        glReadPixels(0, 0, W, H, GL_RED, GL_FLOAT, real_.data());
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        *out = output(false);
        return glStatus("while processing a frame");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, planes_[result_.plane].fbo);
    const PlaneFormat& rf = result_.format;
    if (rf.kind == PlaneKind::QuadRows) {
        // Row y is texel row y / 4 of layer y % 4, its pixels in order (and up to three past the
        // last).
        const Plane& p = planes_[result_.plane];
        glBindFramebuffer(GL_FRAMEBUFFER, readFbo_);
        for (int j = 0; j < 4; ++j) {
            glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, p.texture, 0, j);
            glReadPixels(0, 0, p.width, p.height, GL_RGBA, GL_FLOAT, readbackF_.data());
            for (int t = 0; t < p.height; ++t)
                if (const int y = 4 * t + j; y < H)
                    std::copy_n(&readbackF_[static_cast<std::size_t>(t) * 4 * p.width], W, real_.row(y));
        }
        *out = output(false);
        return glStatus("while processing a frame");
    }
    if (packed_) glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, readback8_.data());
    else glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, readbackF_.data());
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const std::size_t i = 4 * (static_cast<std::size_t>(y) * W + x);
            float re, im = 0;
            if (packed_) {
                re = static_cast<float>(decodePacked(readback8_[i], readback8_[i + 1], rf));
                if (rf.complex) im = static_cast<float>(decodePacked(readback8_[i + 2], readback8_[i + 3], rf));
            } else {
                re = readbackF_[i];
                im = readbackF_[i + 1];
            }
            if (complexOutput_) complex_.at(x, y) = Complex32(re, im);
            else real_.at(x, y) = re;
        }
    *out = output(complexOutput_);
    return glStatus("while processing a frame");
}

std::string FragmentBackend::explainDetails() const {
    return std::string(", ") + (packed_ ? "packed RGBA8" : "RGBA32F") + " intermediates, " + std::to_string(passes_.size()) +
           " passes per frame, read back as " + readbackFormat();
}

} // namespace striate::gles
