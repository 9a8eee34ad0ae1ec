// gles-fragment: programs (budget check, cache), draws with their uniforms, and the executor that
// runs the planned steps (scissor, stencil, the hysteresis loop until the classes are stable).
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>

#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// Hysteresis iterations (a pair of draws each) between two read-backs that check for a fixed point
/// (gles-compute checks on the GPU, per kHysteresisPassesPerCheck passes).
constexpr int kHysteresisPairsPerCheck = 8;

} // namespace

unsigned FragmentBackend::program(const FragmentShader& shader) {
    if (!failure_) return 0;
    if (!fits(shader.cost, limits_.budget)) {
        fail("gles-fragment: shader '" + shader.name + "' costs " + describe(shader.cost) +
             ", over the board's budget of " + describe(limits_.budget));
        return 0;
    }
    unsigned p = 0;
    if (Status s = cache_->fragment(shader.name, shader.source, &p); !s) {
        fail(s.message());
        return 0;
    }
    if (std::none_of(shaders_.begin(), shaders_.end(), [&](const FragmentShader& x) { return x.source == shader.source; })) {
        shaders_.push_back(shader);
        glUseProgram(p);
        for (int slot = 0; slot < 4; ++slot) {
            const std::string name = named("s", slot);
            if (const GLint loc = glGetUniformLocation(p, name.c_str()); loc >= 0) glUniform1i(loc, slot);
        }
    }
    return p;
}

FragmentBackend::Draw FragmentBackend::makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs,
                                                const Value& target, const Uniforms& uniforms) {
    Draw d;
    d.program = program(shader);
    d.target = target.plane;
    auto set = [&](const std::string& name, int components, std::vector<float> values) {
        if (d.program) d.uniforms.push_back({glGetUniformLocation(d.program, name.c_str()), components, std::move(values)});
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        d.inputs.push_back(inputs[i].plane);
        if (inputs[i].plane < 0) continue;
        const Plane& in = planes_[inputs[i].plane];
        set("u_texel" + std::to_string(i), 2, {1.0f / in.width, 1.0f / in.height});
        if (inputs[i].format.kind == PlaneKind::Packed) {
            const auto c = codeUniform(inputs[i].format);
            set("u_code" + std::to_string(i), 2, {c[0], c[1]});
        }
        if (inputs[i].format.kind == PlaneKind::QuadRows)
            set(named("u_w", static_cast<int>(i)), 2, {format_.width - 0.5f, format_.height - 0.5f});
    }
    if (target.format.kind == PlaneKind::Packed) {
        const auto o = outUniform(target.format);
        set("u_out", 2, {o[0], o[1]});
    }
    for (const auto& [name, values] : uniforms) set(name, 4, values);
    return d;
}

FragmentBackend::Value FragmentBackend::full(const FragmentShader& shader, const std::vector<Value>& inputs,
                                             const PlaneFormat& out, const Uniforms& uniforms, int width, int height) {
    const Value target{acquire(width, height, out.kind), out};
    steps_.push_back(Step{{makeDraw(shader, inputs, target, uniforms)}, false, -1});
    passes_.push_back({shader.name, describe(out), "1 draw; " + describe(shader.cost)});
    return target;
}

void FragmentBackend::run(const Draw& d) {
    const Plane& t = planes_[d.target];
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
        const Plane& in = planes_[d.inputs[i]];
        glBindTexture(in.layers ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, in.texture);
    }
    glDrawArrays(GL_TRIANGLES, 0, 3);
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

void FragmentBackend::runSteps() {
    const int W = format_.width, H = format_.height;
    auto readClasses = [&](int plane, std::vector<std::uint8_t>* dst) {
        glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
        dst->resize(static_cast<std::size_t>(4) * W * H);
        glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, dst->data());
    };
    for (const Step& step : steps_) {
        if (!step.repeatUntilStable) {
            for (const Draw& d : step.draws) run(d);
            continue;
        }
        // Each pair of draws moves an edge at least one pixel along every unfinished path, so
        // W * H pairs always reach the fixed point; the host compares once per batch.
        std::vector<std::uint8_t>& before = classesBefore_;
        std::vector<std::uint8_t>& after = classesAfter_;
        readClasses(step.watched, &before);
        for (long pairs = 0; pairs < static_cast<long>(W) * H + kHysteresisPairsPerCheck; pairs += kHysteresisPairsPerCheck) {
            for (int i = 0; i < kHysteresisPairsPerCheck; ++i)
                for (const Draw& d : step.draws) run(d);
            readClasses(step.watched, &after);
            if (after == before) break;
            before.swap(after);
        }
    }
    glDisable(GL_SCISSOR_TEST);
}

} // namespace striate::gles
