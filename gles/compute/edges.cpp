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
    const std::size_t tiles = std::size_t{gx} * gy, words = (tiles + 31) / 32;
    // The gate dispatches the listed tiles in one row of workgroups (at most 65535, GLES 3.1's
    // least GL_MAX_COMPUTE_WORK_GROUP_COUNT): a frame within kMaxGpuHysteresisPixels has fewer.
    if (tiles > 65535) {
        plan_->status = Status::error("gles-compute: " + std::to_string(tiles) + " hysteresis tiles exceed a dispatch's 65535");
        return;
    }
    if (plan_->hysteresis < 0) {  // one pair for every edge stage of the chain: they run in turn
        // hysteresis.comp's Work: its head and a bit a tile for each list, all zero (the passes
        // leave the bits so: each clears its own).
        const std::size_t bytes = sizeof(HysteresisHead) + 2 * words * sizeof(unsigned);
        plan_->hysteresis = buffer(bytes, std::vector<float>(bytes / sizeof(float), 0.0f));
        // The gate writes the grid before each listed pass; it starts empty (a driver that runs no
        // job, the Pi compilers' noop shim, sees the fixed point after the first batch).
        plan_->indirect = buffer(3 * sizeof(unsigned), std::vector<float>(3, 0.0f), true);
    }
    // The two lists of tiles, 2 x tiles texels of an R32UI plane whose life is the hysteresis (so
    // it shares the storage of a plane no longer needed: the sector's). A plane of two tiles or
    // more has at least twice as many texels as tiles; a single tile has no neighbour to list.
    const int lists = plane(Format::R32UI);
    ComputeStep& loop = plan_->steps.emplace_back();
    loop.repeatUntilStable = true;
    // Every pass after the first follows one that grew a pixel (a pass that grows none lists
    // none), so a frame's pixels bound the passes.
    loop.maxRepeats = static_cast<long>(format_.width) * format_.height + 1;
    const auto bind = [&](ComputePass& p) {
        p.uniforms.push_back({"grid", ComputeUniform::Type::Uvec2, {}, {gx, gy}});
        image(p, 0, classes, Access::ReadWrite);
        image(p, 1, lists, Access::ReadWrite);
        storage(p, 0, plan_->hysteresis);
    };
    bind(dispatch("hysteresis.comp", {}, static_cast<int>(gx), static_cast<int>(gy), "R32UI classes, in place, and the tiles to run next", &loop));
    ComputePass& gate = dispatch("hysteresis_gate.comp", {}, 1, 1, "the next pass's dispatch size", &loop);
    storage(gate, 0, plan_->hysteresis);
    storage(gate, 1, plan_->indirect);
    ComputePass& listed = dispatch("hysteresis.comp", {{"LISTED", "1"}}, static_cast<int>(gx), static_cast<int>(gy),
                                   "R32UI classes, in place, at the listed tiles", &loop);
    listed.indirect = true;
    bind(listed);
    plan_->passes.back().grid += " at most (the tiles the last pass listed: the gate and this pass repeated until a pass lists none)";
}

} // namespace striate::gles
