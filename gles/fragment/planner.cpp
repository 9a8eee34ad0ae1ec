// gles-fragment's planner: the plane pool's bookkeeping, draws and the stage loop, all without a
// GL call (the per-stage planners are plan_blur.cpp, plan_recursive.cpp and plan_edges.cpp).
#include "gles/fragment/planner.h"

#include <algorithm>
#include <variant>

#include "gles/fragment/glsl.h"

namespace striate::gles {

FragmentPlanner::FragmentPlanner(const GpuLimits& limits, const FragmentOptions& options, const FragmentCapabilities& caps,
                                 const FrameFormat& format, FragmentPlan* plan)
    : limits_(limits), options_(options), caps_(caps), packed_(caps.packed), format_(format), plan_(plan),
      planes_(plan->planes), steps_(plan->steps), passes_(plan->passes), failure_(plan->failure) {}

void FragmentPlanner::fail(const std::string& message) {
    if (failure_) failure_ = Status::error(message);
}

PlaneFormat FragmentPlanner::planeFormat(bool complex, double bound, bool nonNegative) const {
    return PlaneFormat{packed_ ? PlaneKind::Packed : PlaneKind::Float, complex, bound, nonNegative};
}

int FragmentPlanner::newPlane(Plane::Kind kind, int width, int height) {
    Plane p;
    p.kind = kind;
    p.width = width;
    p.height = height;
    p.busy = true;
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

int FragmentPlanner::borrowedPlane(int width, int height, bool withFbo) {
    const int i = newPlane(Plane::Kind::Borrowed, width, height);
    planes_[i].withFbo = withFbo;
    return i;
}

int FragmentPlanner::acquire(const PlaneFormat& format, int width, int height) {
    if (width == 0) width = format_.width;
    if (height == 0) height = format_.height;
    const PlaneKind kind = format.kind;
    const Plane::Kind texels = kind == PlaneKind::QuadRows ? Plane::Kind::Layers
                               : packed_ || kind == PlaneKind::Packed ? Plane::Kind::Rgba8
                               : kind == PlaneKind::Quad   ? Plane::Kind::Rgba32f
                               : format.complex            ? Plane::Kind::Rg32f
                                                           : Plane::Kind::R32f;
    for (std::size_t i = 0; i < planes_.size(); ++i) {
        Plane& p = planes_[i];
        if (!p.busy && p.width == width && p.height == height && p.kind == texels) {
            p.busy = true;
            return static_cast<int>(i);
        }
    }
    return newPlane(texels, width, height);
}

void FragmentPlanner::release(const Value& v) {
    if (v.plane >= 0 && v.plane != plan_->luma) planes_[v.plane].busy = false;
}

int FragmentPlanner::shaderIndex(const FragmentShader& shader) {
    if (!failure_) return -1;
    if (!fits(shader.cost, limits_.budget)) {
        fail("gles-fragment: shader '" + shader.name + "' costs " + describe(shader.cost) +
             ", over the board's budget of " + describe(limits_.budget));
        return -1;
    }
    std::vector<FragmentShader>& shaders = plan_->shaders;
    const auto same = std::find_if(shaders.begin(), shaders.end(), [&](const FragmentShader& x) { return x.source == shader.source; });
    if (same != shaders.end()) return static_cast<int>(same - shaders.begin());
    shaders.push_back(shader);
    return static_cast<int>(shaders.size()) - 1;
}

Draw FragmentPlanner::makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs, const Value& target,
                               const Uniforms& uniforms) {
    Draw d;
    d.shader = shaderIndex(shader);
    d.target = target.plane;
    auto set = [&](const std::string& name, int components, std::vector<float> values) {
        d.uniforms.push_back({name, components, std::move(values)});
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

FragmentPlanner::Value FragmentPlanner::full(const FragmentShader& shader, const std::vector<Value>& inputs,
                                             const PlaneFormat& out, const Uniforms& uniforms, int width, int height) {
    const Value target{acquire(out, width, height), out};
    steps_.push_back(Step{{makeDraw(shader, inputs, target, uniforms)}, false, -1});
    passes_.push_back({shader.name, describe(out), "1 draw; " + describe(shader.cost)});
    return target;
}

void FragmentPlanner::planChain(const Chain& chain) {
    // The input: with float targets an R32F plane of the reference's unit values float(c / 255),
    // made on the host (a shader division need not round correctly); else the 8-bit luminance.
    plan_->luma = newPlane(Plane::Kind::Luma, format_.width, format_.height);
    Value v{plan_->luma, PlaneFormat{packed_ ? PlaneKind::Luma8 : PlaneKind::Float, false, 1, true}};
    for (std::size_t i = 0; i < chain.stages.size() && failure_; ++i) {
        const StagePlan plan = planStage(chain.stages[i]);
        Value next;
        if (std::holds_alternative<BlurSpec>(chain.stages[i])) next = blur(plan.blur, v);
        else if (std::holds_alternative<GaborSpec>(chain.stages[i])) next = gabor(plan.gabor, v);
        else next = edges(std::get<EdgeSpec>(chain.stages[i]), plan, v);
        if (i > 0) release(v);
        v = next;
    }
    plan_->result = v;
    plan_->complexOutput = chain.complexOutput();
    // A real float result is an R32F plane: read straight into the output where the driver reads
    // it as GL_RED / GL_FLOAT.
    if (caps_.redReadback && !packed_ && failure_ && v.format.kind == PlaneKind::Float && !v.format.complex)
        plan_->redResult = v.plane;
}

} // namespace striate::gles
