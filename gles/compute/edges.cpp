// gles-compute's edges (docs/algorithms.md 4.1, 4.2): the strength and sector (Canny's gradient or
// Gabor energy's bank), suppression and the double threshold, hysteresis until stable, the output.
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

namespace striate::gles {

int ComputePlanner::stage(const EdgeStagePlan& plan, int in) {
    const EdgeSpec& spec = plan.spec;
    const int W = format_.width, H = format_.height;
    const int sector = plane(Format::R32UI);
    const int strength = std::visit(
        Overloaded{[&](const CannyPlan& c) {
                       const int gauss = blur(c.smoothing, in);
                       const int gradient = plane(Format::R32F);
                       ComputePass& p =
                           dispatch("gradient.comp", {{"TAN22_5", glslFloat(kTan22_5)}, {"TAN67_5", glslFloat(kTan67_5)}},
                                    groups(W, kTile), groups(H, kTile), "R32F strength, R32UI sector");
                       sampler(p, 0, gauss);
                       image(p, 0, gradient, Access::Write);
                       image(p, 1, sector, Access::Write);
                       return gradient;
                   },
                   [&](const GaborEnergyPlan& g) { return gabor(g.bank, in, sector); }},
        plan.method);
    const int classes = plane(Format::R32UI);
    {
        ComputePass& p = dispatch("suppress.comp", {{"TIE", glslFloat(kTieTolerance)}}, groups(W, kTile), groups(H, kTile),
                                  "R32UI classes");
        uniform(p, "low", static_cast<float>(spec.lowThreshold));
        uniform(p, "high", static_cast<float>(spec.highThreshold));
        sampler(p, 0, strength);
        sampler(p, 1, sector);
        image(p, 0, classes, Access::Write);
    }
    hysteresis(classes);
    const int out = plane(Format::R32F);
    ComputePass& p = dispatch("edges_output.comp", enumDefines("OUTPUT", kEdgeOutputs, spec.output),
                              groups(W, kTile), groups(H, kTile), "R32F");
    sampler(p, 0, classes);
    switch (spec.output) {
    case EdgeOutput::Edges: break;
    case EdgeOutput::Strength: sampler(p, 1, strength); break;
    case EdgeOutput::Overlay: sampler(p, 1, in); break;
    }
    image(p, 0, out, Access::Write);
    return out;
}

void ComputePlanner::hysteresis(int classes) {
    const unsigned gx = static_cast<unsigned>(groups(format_.width, kTile)), gy = static_cast<unsigned>(groups(format_.height, kTile));
    if (plan_->changed < 0) {
        plan_->changed = buffer(3 * sizeof(unsigned));  // changed, passes, iterations (hysteresis.comp)
        plan_->indirect = buffer(3 * sizeof(unsigned), {}, true);
    }
    ComputeStep& loop = plan_->steps.emplace_back();
    loop.repeatUntilStable = true;
    loop.maxRepeats = static_cast<long>(gx) * gy;  // hysteresis passes
    ComputePass& pass = dispatch("hysteresis.comp", {}, static_cast<int>(gx), static_cast<int>(gy), "R32UI classes, in place", &loop);
    pass.indirect = true;
    image(pass, 0, classes, Access::ReadWrite);
    storage(pass, 0, plan_->changed);
    ComputePass& gate = dispatch("hysteresis_gate.comp", {}, 1, 1, "the next pass's dispatch size", &loop);
    plan_->passes.back().grid += " (repeated until a pass changes nothing)";
    gate.uniforms.push_back({"grid", ComputeUniform::Type::Uvec2, {}, {gx, gy}});
    storage(gate, 0, plan_->changed);
    storage(gate, 1, plan_->indirect);
}

} // namespace striate::gles
