// gles-compute's blur (docs/algorithms.md 2): each axis a direct, box or recursive pass.
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

namespace striate::gles {

int ComputePlanner::stage(const BlurStagePlan& plan, int in) { return blur(plan.blur, in); }

int ComputePlanner::blur(const BlurPlan& plan, int in) {
    int source = in;
    for (int axis = 0; axis < 2; ++axis)
        source = std::visit(Overloaded{[&](const DirectBlur& d) { return directPass(d, plan.sigma, axis, source); },
                                       [&](const BoxBlur& b) { return boxPass(b, axis, source); },
                                       [&](const RecursiveBlur& r) { return recursivePass(r, axis, source); }},
                            plan.method);
    return source;
}

int ComputePlanner::directPass(const DirectBlur& plan, double sigma, int axis, int source) {
    const int target = plane(Format::R32F);
    ComputePass& p = dispatch("gaussian_direct.comp", {{"AXIS", std::to_string(axis)}, {"RADIUS", std::to_string(plan.radius())}},
                              groups(format_.width, kTile), groups(format_.height, kTile), "R32F");
    uniform(p, "sigma", static_cast<float>(sigma));
    sampler(p, 0, source);
    image(p, 0, target, Access::Write);
    return target;
}

int ComputePlanner::boxPass(const BoxBlur& plan, int axis, int source) {
    const int W = format_.width, H = format_.height;
    const int lines = axis == 0 ? H : W, length = axis == 0 ? W : H;
    const int target = plane(Format::R32F);
    const int r = plan.box.r;
    const int total = length + 2 * plan.pad;
    int block = 8;
    while (block < 2 * r + 2) block *= 2;
    // Two float arrays of the padded line in workgroup memory, or in a storage buffer.
    const bool shared = static_cast<long>(2 * sizeof(float)) * total <= limits_.computeSharedBytes;
    const int capacity = shared ? total : std::max(W, H) + 2 * plan.pad;
    ComputePass& p = dispatch("box_blur.comp",
                              {{"AXIS", std::to_string(axis)},
                               {"PAD", std::to_string(plan.pad)},
                               {"PASSES", std::to_string(kBoxPasses)},
                               {"BLOCK", std::to_string(block)},
                               {"LINE", std::to_string(capacity)},
                               {"SHARED_LINE", shared ? "1" : "0"}},
                              lines, 1, "R32F");
    uniformInt(p, "r", r);
    uniform(p, "alpha", static_cast<float>(plan.box.alpha));
    uniform(p, "invNorm", static_cast<float>(1.0 / plan.box.norm));
    sampler(p, 0, source);
    image(p, 0, target, Access::Write);
    if (!shared) {
        // A padded line pair per workgroup, a workgroup per line: one scratch buffer, as large as
        // the longest padded axis needs, for every box pass of the plan.
        const std::size_t bytes = sizeof(float) * 2 * (std::max(W, H) + 2 * plan.pad) * std::max(W, H);
        if (kept_.boxScratch < 0) kept_.boxScratch = buffer(bytes);
        plan_->buffers[kept_.boxScratch].bytes = std::max(plan_->buffers[kept_.boxScratch].bytes, bytes);
        storage(p, 0, kept_.boxScratch);
    }
    return target;
}

int ComputePlanner::recursivePass(const RecursiveBlur& plan, int axis, int source) {
    // Along columns in place: the rows' result is the columns' input and output.
    const int lines = axis == 0 ? format_.height : format_.width;
    const bool inPlace = axis == 1;
    ComputePass& p = dispatch("recursive_line.comp",
                              {{"AXIS", std::to_string(axis)},
                               {"COMPLEX_IN", "0"},
                               {"COMPLEX_OUT", "0"},
                               {"IN_PLACE", inPlace ? "1" : "0"}},
                              groups(lines, kLineGroup), 1, inPlace ? "R32F, in place" : "R32F");
    cascade(p, plan.cascade);
    const int target = inPlace ? source : plane(Format::R32F);
    if (!inPlace) sampler(p, 0, source);
    image(p, 0, target, Access::ReadWrite);
    return target;
}

} // namespace striate::gles
