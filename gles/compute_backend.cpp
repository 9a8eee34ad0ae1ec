// gles-compute: creation, and the plan (compute_plan.cpp) made real at configure time and replayed
// per frame.
#include "gles/compute_backend.h"

#include <GLES3/gl31.h>

#include <algorithm>
#include <cstring>

namespace striate::gles {
namespace {

/// Hysteresis passes queued between two checks of the GPU-side gate (gles-fragment reads its
/// classes back per kHysteresisPairsPerCheck pairs of draws).
constexpr int kHysteresisPassesPerCheck = 16;

GLenum internalFormat(ComputePlane::Format f) {
    switch (f) {
    case ComputePlane::Format::R32F: return GL_R32F;
    case ComputePlane::Format::R32UI: return GL_R32UI;
    case ComputePlane::Format::R8UI: return GL_R8UI;
    }
    return GL_R32F;
}

GLenum imageAccess(ComputeBinding::Access a) {
    switch (a) {
    case ComputeBinding::Access::Read: return GL_READ_ONLY;
    case ComputeBinding::Access::Write: return GL_WRITE_ONLY;
    case ComputeBinding::Access::ReadWrite: return GL_READ_WRITE;
    }
    return GL_READ_WRITE;
}

} // namespace

Status ComputeBackend::create(const GpuLimits& limits, std::unique_ptr<ComputeBackend>* out) {
    std::unique_ptr<ComputeBackend> b(new ComputeBackend(limits));
    if (Status s = b->createContext(); !s) return s;
    const ContextInfo& info = b->info_;
    if (info.major < 3 || (info.major == 3 && info.minor < 1))
        return Status::error("gles-compute needs GLES 3.1 compute shaders; this context is GLES " +
                             std::to_string(info.major) + "." + std::to_string(info.minor));
    if (limits.computeInvocations < kBoxWorkgroup)
        return Status::error("gles-compute needs " + std::to_string(kBoxWorkgroup) +
                             " compute invocations per workgroup; the board allows " + std::to_string(limits.computeInvocations));
    {
        const Current current(*b);
        if (!current.status()) return current.status();
        b->redReadback_ = probeRedReadback(info.pixelStore);
    }
    *out = std::move(b);
    return {};
}

ComputeBackend::~ComputeBackend() {
    const Current current(*this);
    if (!current.status()) return;  // no context: no objects either
    releaseGl();
    stopListening();
    cache_.reset();
}

void ComputeBackend::releaseGl() {
    for (const ComputePlane& p : plan_.planes) glDeleteTextures(1, &p.texture);
    for (const ComputeBuffer& b : plan_.buffers) glDeleteBuffers(1, &b.buffer);
    glDeleteFramebuffers(1, &resultFbo_);
    resultFbo_ = 0;
    plan_ = ComputePlan{};
    hysteresisSettled_ = true;  // the next plan's work buffer starts as its data: all clear
}

Status ComputeBackend::configureCurrent(const Chain& chain, const FrameFormat& format) {
    releaseGl();
    chain_ = chain;
    format_ = format;
    ComputePlanner(limits_, format, redReadback_, &plan_).planChain(chain);
    passes_ = plan_.passes;
    status_ = plan_.status;
    if (!status_) return status_;
    for (ComputePlane& p : plan_.planes) {
        glGenTextures(1, &p.texture);
        glBindTexture(GL_TEXTURE_2D, p.texture);
        glTexStorage2D(GL_TEXTURE_2D, 1, internalFormat(p.format), format.width, format.height);
        // Float and integer textures are not filterable: nearest keeps them complete for texelFetch.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    for (ComputeBuffer& b : plan_.buffers) {
        const GLenum target = b.indirect ? GL_DISPATCH_INDIRECT_BUFFER : GL_SHADER_STORAGE_BUFFER;
        glGenBuffers(1, &b.buffer);
        glBindBuffer(target, b.buffer);
        glBufferData(target, static_cast<GLsizeiptr>(b.bytes), b.data.empty() ? nullptr : b.data.data(), GL_DYNAMIC_DRAW);
    }
    // Every program compiled and every uniform found now: a frame looks nothing up.
    localSize_.clear();
    for (ComputeProgram& p : plan_.programs) {
        if (Status s = cache_->compute(p.file, p.defines, &p.program); !s) return status_ = s;
        GLint size[3] = {1, 1, 1};
        glGetProgramiv(p.program, GL_COMPUTE_WORK_GROUP_SIZE, size);
        localSize_.push_back(static_cast<unsigned long>(size[0]) * size[1] * size[2]);
    }
    invocations_.assign(plan_.programs.size(), 0);
    hysteresis_.assign(static_cast<std::size_t>(std::count_if(plan_.steps.begin(), plan_.steps.end(),
                                                              [](const ComputeStep& st) { return st.repeatUntilStable; })),
                       HysteresisHead{});
    for (ComputeStep& step : plan_.steps)
        for (ComputePass& pass : step.passes)
            for (ComputeUniform& u : pass.uniforms)
                u.location = glGetUniformLocation(plan_.programs[pass.program].program, u.name.c_str());
    if (plan_.codes >= 0)
        for (ComputeUniform& u : plan_.encode.uniforms)
            u.location = glGetUniformLocation(plan_.programs[plan_.encode.program].program, u.name.c_str());
    if (plan_.result >= 0) {
        glGenFramebuffers(1, &resultFbo_);
        glBindFramebuffer(GL_FRAMEBUFFER, resultFbo_);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, plan_.planes[plan_.result].texture, 0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            return status_ = Status::error("gles-compute: the result's R32F framebuffer is incomplete");
    }
    resetOutputs(plan_.complexOutput, !lumaCodes());
    status_ = glStatus("while configuring");
    return status_;
}

void ComputeBackend::run(const ComputePass& pass) {
    const unsigned program = plan_.programs[pass.program].program;
    glUseProgram(program);
    for (const ComputeBinding& b : pass.bindings) {
        switch (b.kind) {
        case ComputeBinding::Kind::Sampler:
            glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(b.slot));
            glBindTexture(GL_TEXTURE_2D, plan_.planes[b.index].texture);
            break;
        case ComputeBinding::Kind::Image:
            glBindImageTexture(static_cast<GLuint>(b.slot), plan_.planes[b.index].texture, 0, GL_FALSE, 0,
                               imageAccess(b.access), internalFormat(plan_.planes[b.index].format));
            break;
        case ComputeBinding::Kind::Buffer:
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(b.slot), plan_.buffers[b.index].buffer);
            break;
        }
    }
    for (const ComputeUniform& u : pass.uniforms) {
        switch (u.type) {
        case ComputeUniform::Type::Float: glProgramUniform1f(program, u.location, u.f[0]); break;
        case ComputeUniform::Type::Int: glProgramUniform1i(program, u.location, static_cast<GLint>(u.u[0])); break;
        case ComputeUniform::Type::Uint: glProgramUniform1ui(program, u.location, u.u[0]); break;
        case ComputeUniform::Type::Vec2:
            glProgramUniform2fv(program, u.location, static_cast<GLsizei>(u.f.size() / 2), u.f.data());
            break;
        case ComputeUniform::Type::Uvec2: glProgramUniform2ui(program, u.location, u.u[0], u.u[1]); break;
        }
    }
    runHeard(program, true, [&] { return plan_.programs[pass.program].name; }, [&] {
        if (pass.indirect) glDispatchComputeIndirect(0);
        else glDispatchCompute(static_cast<GLuint>(pass.groupsX), static_cast<GLuint>(pass.groupsY), 1);
    });
    ++dispatches_;
    indirectDispatches_ += pass.indirect;
    // An indirect pass's grid is known only on the GPU: readHysteresisCounts() counts it.
    if (!pass.indirect) invocations_[pass.program] += static_cast<unsigned long long>(pass.groupsX) * pass.groupsY * localSize_[pass.program];
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
}

void ComputeBackend::runUntilStable(const ComputeStep& step, HysteresisHead& counts) {
    // passes[0]: the first pass, over every tile; then the gate and a pass over the listed tiles.
    const ComputePass& first = step.passes[0];
    const ComputeBuffer& work = plan_.buffers[plan_.hysteresis];
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, work.buffer);
    // A frame that ended inside the hysteresis (a GL failure) may have left tiles' bits set:
    // they start cleared again.
    if (!hysteresisSettled_) glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(work.bytes), work.data.data());
    hysteresisSettled_ = false;
    // Both lists empty, the first pass writes list 0 (it "reads" 1), and its pass and tiles counted.
    const HysteresisHead head{{0, 0}, 1, 1, static_cast<unsigned>(first.groupsX * first.groupsY), 0};
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof head, &head);
    run(first);
    // The cap (step.maxRepeats) bounds the passes; the GPU gate makes the passes after the fixed
    // point empty, and the host looks only once per batch.
    const long maxBatches = step.maxRepeats / kHysteresisPassesPerCheck + 1;
    for (long batch = 0; batch < maxBatches && status_; ++batch) {
        for (int i = 0; i < kHysteresisPassesPerCheck; ++i) {
            run(step.passes[1]);
            run(step.passes[2]);
        }
        glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, plan_.buffers[plan_.indirect].buffer);
        const auto* args = static_cast<const GLuint*>(
            glMapBufferRange(GL_DISPATCH_INDIRECT_BUFFER, 0, 3 * sizeof(GLuint), GL_MAP_READ_BIT));
        if (!args) {
            fail("gles-compute: cannot map the hysteresis gate");
            return;
        }
        const bool done = args[0] == 0;
        glUnmapBuffer(GL_DISPATCH_INDIRECT_BUFFER);
        if (done) {
            hysteresisSettled_ = true;
            readHysteresisCounts(step, counts);
            return;
        }
    }
    if (status_) fail("gles-compute: the hysteresis did not settle in " + std::to_string(step.maxRepeats) + " passes");
}

void ComputeBackend::readHysteresisCounts(const ComputeStep& step, HysteresisHead& counts) {
    // The gate's grid was just read, so the passes have finished: this read waits for nothing.
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, plan_.buffers[plan_.hysteresis].buffer);
    const auto* head = static_cast<const HysteresisHead*>(glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, sizeof(HysteresisHead), GL_MAP_READ_BIT));
    if (!head) {
        fail("gles-compute: cannot map the hysteresis counts");
        return;
    }
    counts = *head;
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    // The first pass ran every tile (run() counted it); the listed passes the rest.
    const ComputePass& first = step.passes[0];
    const ComputePass& listed = step.passes[2];
    invocations_[listed.program] += static_cast<unsigned long long>(counts.tiles - first.groupsX * first.groupsY) * localSize_[listed.program];
}

std::string ComputeBackend::explainFrame() const {
    std::string s;
    std::size_t k = 0;
    for (const ComputeStep& step : plan_.steps) {
        if (!step.repeatUntilStable) continue;
        const HysteresisHead& c = hysteresis_[k++];
        if (c.passes == 0) continue;
        const ComputePass& p = step.passes[0];
        s += "the last frame's hysteresis: " + std::to_string(c.passes) + " passes ran " + std::to_string(c.tiles) +
             " tiles (the first all " + std::to_string(p.groupsX * p.groupsY) + " of " + std::to_string(p.groupsX) + "x" +
             std::to_string(p.groupsY) + "), " + std::to_string(c.iterations) + " iterations of the tile loop\n";
    }
    if (dispatches_ > 0)
        s += "the last frame issued " + std::to_string(dispatches_) + " dispatches, " + std::to_string(indirectDispatches_) +
             " of them indirect (Mesa's v3d reads an indirect grid on the cpu, waiting for the pass that wrote it)\n";
    bool any = false;
    for (unsigned long long n : invocations_) any = any || n > 0;
    if (!any) return s;
    s += "the last frame's invocations per program (every dispatch as it ran, the driver's workgroup sizes):\n";
    for (std::size_t i = 0; i < invocations_.size(); ++i)
        s += "  " + plan_.programs[i].name + ": " + std::to_string(invocations_[i]) + "\n";
    return s;
}

void ComputeBackend::runSteps(ImageView<const std::uint8_t> luma) {
    const int W = format_.width, H = format_.height;
    status_ = {};
    std::fill(invocations_.begin(), invocations_.end(), 0);
    std::fill(hysteresis_.begin(), hysteresis_.end(), HysteresisHead{});
    dispatches_ = indirectDispatches_ = 0;
    glBindTexture(GL_TEXTURE_2D, plan_.planes[plan_.luma].texture);
    if (lumaCodes())
        uploadPixels(info_.pixelStore, GL_TEXTURE_2D, 0, 0, W, H, GL_RED_INTEGER, GL_UNSIGNED_BYTE, luma.data,
                     HostRows{static_cast<int>(luma.stride), 1});
    else
        uploadUnitValues(luma);
    // The indirect buffer stays bound to its target for the hysteresis's indirect dispatches.
    if (plan_.indirect >= 0) glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, plan_.buffers[plan_.indirect].buffer);
    std::size_t repeated = 0;
    for (const ComputeStep& step : plan_.steps) {
        if (!status_) return;
        if (step.repeatUntilStable) runUntilStable(step, hysteresis_[repeated++]);
        else run(step.passes[0]);
    }
}

Status ComputeBackend::processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    const int W = format_.width, H = format_.height;
    runSteps(luma);
    if (!status_) return status_;
    readBack_ = sizeof(float) * W * H * (plan_.result < 0 && plan_.complexOutput ? 2 : 1);
    if (plan_.result >= 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, resultFbo_);
        readPixels(info_.pixelStore, 0, 0, W, H, GL_RED, GL_FLOAT, real_.data(),
                   HostRows{static_cast<int>(real_.stride()), 4});
        *out = output(false);
        return glStatus("while processing a frame");
    }
    const bool complex = plan_.complexOutput;
    const std::size_t floats = static_cast<std::size_t>(W) * H * (complex ? 2 : 1);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, plan_.buffers[plan_.readback].buffer);
    const auto* values = static_cast<const float*>(
        glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(floats * sizeof(float)), GL_MAP_READ_BIT));
    if (!values) {
        const GLenum e = glGetError();
        return Status::error(std::string("gles-compute: the result cannot be read back (") + glErrorName(e) + ")");
    }
    for (int y = 0; y < H; ++y) {
        if (complex) {
            const float* row = values + 2 * static_cast<std::size_t>(y) * W;
            for (int x = 0; x < W; ++x) complex_.at(x, y) = Complex32(row[2 * x], row[2 * x + 1]);
        } else {
            std::memcpy(real_.row(y), values + static_cast<std::size_t>(y) * W, W * sizeof(float));
        }
    }
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    *out = output(complex);
    return glStatus("while processing a frame");
}

Status ComputeBackend::process8Current(ImageView<const std::uint8_t> luma, const Output8& out) {
    // encode8.comp encodes without an offset: with one, a fused multiply-add could round otherwise
    // than the host, which encodes then (the outputs with an offset, Gabor's real, imaginary and
    // phase, run no pass on pairs: their plans have no encode pass anyway).
    if (plan_.codes < 0 || out.encoding.offset != 0.0) return GlesBackend::process8Current(luma, out);
    const int W = format_.width, H = format_.height, blocks = (W + kEncodeBlock - 1) / kEncodeBlock;
    runSteps(luma);
    if (!status_) return status_;
    plan_.encode.uniforms.back().f[0] = static_cast<float>(out.encoding.scale);
    run(plan_.encode);
    const std::size_t rowBytes = static_cast<std::size_t>(kEncodeBlock) * blocks, bytes = rowBytes * H;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, plan_.buffers[plan_.codes].buffer);
    const auto* codes = static_cast<const std::uint8_t*>(
        glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT));
    if (!codes) {
        const GLenum e = glGetError();
        return Status::error(std::string("gles-compute: the codes cannot be read back (") + glErrorName(e) + ")");
    }
    for (int y = 0; y < H; ++y) {
        const std::uint8_t* src = codes + y * rowBytes;
        std::uint8_t* dst = out.data + y * out.stride;
        if (out.step == 1) std::memcpy(dst, src, W);
        else
            for (int x = 0; x < W; ++x) dst[x * out.step] = src[x];
    }
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    readBack_ = bytes;
    return glStatus("while processing a frame");
}

std::size_t ComputeBackend::plannedGpuBytes(const Chain& chain, const FrameFormat& format) const {
    ComputePlan plan;
    ComputePlanner(limits_, format, redReadback_, &plan).planChain(chain);
    return plan.bytes(format);
}

MemoryUse ComputeBackend::memory() const { return {plan_.bytes(format_), hostBytes()}; }

std::string ComputeBackend::explainDetails() const {
    // The luma goes up as unit floats (uploadUnitValues) or codes; the last frame's result came
    // down as floats (R32F through a framebuffer, or the read-back buffer: two a pixel for a
    // complex result) or process8's codes (a byte a pixel, rows padded to kEncodeBlock).
    const std::size_t pixels = static_cast<std::size_t>(format_.width) * format_.height;
    const std::size_t floats = sizeof(float) * pixels * (plan_.result < 0 && plan_.complexOutput ? 2 : 1);
    return GlesBackend::explainDetails() + ", " + describeBytes(plan_.bytes(format_)) + " of GPU memory in " +
           std::to_string(plan_.planes.size()) + " textures and " + std::to_string(plan_.buffers.size()) + " buffers" +
           explainTransfers((lumaCodes() ? 1 : sizeof(float)) * pixels, readBack_ > 0 ? readBack_ : floats);
}

} // namespace striate::gles
