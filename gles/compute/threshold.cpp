// gles-compute's adaptive threshold (docs/algorithms.md 4.3): the local mean, then the comparison.
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

namespace striate::gles {

int ComputePlanner::stage(const ThresholdStagePlan& plan, int in) {
    // The comparison over the mean, in place.
    const int mean = blur(plan.mean, in);
    ComputePass& pass = dispatch("threshold.comp", {}, groups(format_.width, kTile), groups(format_.height, kTile), "R32F, in place");
    uniform(pass, "offset", static_cast<float>(plan.spec.offset));
    sampler(pass, 0, in);
    image(pass, 0, mean, Access::ReadWrite);
    return mean;
}

} // namespace striate::gles
