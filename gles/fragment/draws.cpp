// gles-fragment: the plan's programs compiled, and the executor that runs its steps (scissor,
// stencil, the hysteresis loop until the classes are stable).
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>

#include "core/hysteresis.h"
#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// Hysteresis iterations (a pair of draws each) between two read-backs that check for a fixed point
/// (gles-compute checks on the GPU, per kHysteresisPassesPerCheck passes).
constexpr int kHysteresisPairsPerCheck = 8;

} // namespace

void FragmentBackend::compile(Draw& d) {
    if (!status_ || d.shader < 0) return;
    if (programs_.size() < plan_.shaders.size()) programs_.resize(plan_.shaders.size(), 0);
    unsigned& p = programs_[d.shader];
    if (!p) {
        const FragmentShader& shader = plan_.shaders[d.shader];
        if (Status s = cache_->fragment(shader.name, shader.source, &p); !s) {
            fail(s.message());
            return;
        }
        glUseProgram(p);
        for (int slot = 0; slot < 4; ++slot) {
            const std::string name = named("s", slot);
            if (const GLint loc = glGetUniformLocation(p, name.c_str()); loc >= 0) glUniform1i(loc, slot);
        }
    }
    d.program = p;
    for (UniformValue& u : d.uniforms) u.location = glGetUniformLocation(p, u.name.c_str());
}

void FragmentBackend::run(const Draw& d) {
    const Plane& t = plan_.planes[d.target];
    glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
    glViewport(0, 0, t.width, t.height);
    if (d.w > 0) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(d.x, d.y, d.w, d.h);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
    switch (d.stencil) {
    case Stencil::None: glDisable(GL_STENCIL_TEST); break;
    case Stencil::Mark:
        glEnable(GL_STENCIL_TEST);
        glStencilMask(0xff);
        glClearStencil(0);
        glClear(GL_STENCIL_BUFFER_BIT);
        glStencilFunc(GL_ALWAYS, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        break;
    case Stencil::Test:
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(GL_EQUAL, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
        break;
    }
    glUseProgram(d.program);
    for (const UniformValue& u : d.uniforms) {
        const GLsizei count = static_cast<GLsizei>(u.values.size()) / u.components;
        if (u.components == 2) glUniform2fv(u.location, count, u.values.data());
        else glUniform4fv(u.location, count, u.values.data());
    }
    for (std::size_t i = 0; i < d.inputs.size(); ++i) {
        if (d.inputs[i] < 0) continue;
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
        const Plane& in = plan_.planes[d.inputs[i]];
        glBindTexture(in.storage == Plane::Storage::Layers ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, in.texture);
    }
    runHeard(d.program, false, [&] { return plan_.shaders[d.shader].name; }, [] { glDrawArrays(GL_TRIANGLES, 0, 3); });
    if (d.stencil == Stencil::Mark) glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

void FragmentBackend::beginDraws() {
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

void FragmentBackend::readClasses(const DrawStep& step, std::vector<std::uint8_t>* dst) {
    const Plane& p = plan_.planes[step.watched];
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    dst->resize(static_cast<std::size_t>(4) * step.watchedWidth * p.height);
    readPixels(info_.pixelStore, 0, 0, step.watchedWidth, p.height, GL_RGBA, GL_UNSIGNED_BYTE, dst->data());
}

void FragmentBackend::floodOnCpu(const DrawStep& step, bool toResult) {
    const int W = format_.width, H = format_.height;
    const int bytesPerPixel = step.cpuFloodBytesPerPixel;
    const Plane& p = plan_.planes[step.watched];
    readClasses(step, &classesBefore_);  // sized at configure: no allocation
    // A byte a pixel to flood: the read-back itself on quads (pixel 4q + j in byte j of texel q),
    // else the red of each texel gathered and put back after.
    std::uint8_t* classes = classesBefore_.data();
    std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(4) * step.watchedWidth;
    if (bytesPerPixel > 1) {
        for (std::size_t i = 0; i < classesAfter_.size(); ++i) classesAfter_[i] = classesBefore_[i * bytesPerPixel];
        classes = classesAfter_.data();
        stride = W;
    }
    floodMarked_ = floodFromStrong(classes, stride, W, 0, H, floodQueue_.get());
    if (toResult) {
        // The `edges` output as the output pass draws it: 1 where strong or edge, else 0.
        for (int y = 0; y < H; ++y) {
            const std::uint8_t* c = classes + y * stride;
            float* out = real_.row(y);
            for (int x = 0; x < W; ++x) out[x] = c[x] >= 2 ? 1.0f : 0.0f;
        }
        return;
    }
    if (bytesPerPixel > 1)
        for (std::size_t i = 0; i < classesAfter_.size(); ++i) classesBefore_[i * bytesPerPixel] = classesAfter_[i];
    glBindTexture(GL_TEXTURE_2D, p.texture);
    uploadPixels(info_.pixelStore, GL_TEXTURE_2D, 0, 0, step.watchedWidth, p.height, GL_RGBA, GL_UNSIGNED_BYTE, classesBefore_.data());
    floodUploaded_ += classesBefore_.size();
}

void FragmentBackend::runSteps(bool toHost) {
    std::fill(stepRuns_.begin(), stepRuns_.end(), 0);
    floodUploaded_ = 0;
    for (std::size_t k = 0; k < plan_.steps.size(); ++k) {
        if (toHost && static_cast<int>(k) == plan_.pairedResult) break;  // the host unpairs the rows
        const DrawStep& step = plan_.steps[k];
        if (step.cpuFloodBytesPerPixel > 0) {
            const bool result = toHost && static_cast<int>(k) == plan_.floodResult;
            floodOnCpu(step, result);
            stepRuns_[k] = 1;
            if (result) break;
            continue;
        }
        if (!step.repeatUntilStable) {
            for (const Draw& d : step.passes) run(d);
            stepRuns_[k] = 1;
            continue;
        }
        // The plan's cap (a pair of draws moves an edge at least one pixel along every unfinished
        // path) always reaches the fixed point; the host compares once per batch.
        std::vector<std::uint8_t>& before = classesBefore_;
        std::vector<std::uint8_t>& after = classesAfter_;
        readClasses(step, &before);
        for (long pairs = 0; pairs < step.maxRepeats + kHysteresisPairsPerCheck; pairs += kHysteresisPairsPerCheck) {
            for (int i = 0; i < kHysteresisPairsPerCheck; ++i)
                for (const Draw& d : step.passes) run(d);
            stepRuns_[k] += kHysteresisPairsPerCheck;
            readClasses(step, &after);
            if (after == before) break;
            before.swap(after);
        }
    }
    glDisable(GL_SCISSOR_TEST);
}

} // namespace striate::gles
