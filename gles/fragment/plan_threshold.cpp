// gles-fragment's adaptive threshold (docs/algorithms.md 4.3): the local mean (blur), then one
// comparison pass.
#include "gles/fragment/planner.h"

namespace striate::gles {

FragmentPlanner::Value FragmentPlanner::stage(const ThresholdStagePlan& plan, const Value& in) {
    // 1 where the input exceeds its local mean less the offset (u_threshold.x), else 0.
    const Value mean = blur(plan.mean, in);
    FragmentWriter w("threshold.compare", !packed_);
    w.input(0, in.format);
    w.input(1, mean.format);
    w.uniform("u_threshold");
    w.line("float d = " + w.fetch(0, "") + ".x - (" + w.fetch(1, "") + ".x - u_threshold.x);", 2);
    const PlaneFormat out = planeFormat(false, 1, true);
    return full(w.finish("vec2(d > 0.0 ? 1.0 : 0.0, 0.0)", out), {in, mean}, out,
                {{"u_threshold", {static_cast<float>(plan.spec.offset), 0, 0, 0}}});
}

} // namespace striate::gles
