// gles-compute's Gabor stage and bank (docs/algorithms.md 3): each orientation's horizontal and
// vertical passes, then its tail (a combine pass, or fused into a recursive vertical pass).
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

namespace striate::gles {

int ComputePlanner::stage(const GaborStagePlan& plan, int in) { return gabor(plan.gabor, in); }

int ComputePlanner::gabor(const GaborPlan& plan, int in, int sector) {
    const int W = format_.width, H = format_.height;
    const int gauss = plan.removeDc ? blur(plan.dcBlur, in) : -1;
    const int out = plane(Format::R32F);
    const bool bank = isBankSink(plan.sink);
    if (sinkTraits(plan.sink).complex) {
        keptRe_ = plane(Format::R32F);
        keptIm_ = plane(Format::R32F);
    }
    Defines tailDefines = enumDefines("SINK", kGaborSinks, plan.sink);
    tailDefines.insert(tailDefines.end(), {{"REMOVE_DC", plan.removeDc ? "1" : "0"}, {"TIE", glslFloat(kTieTolerance)}});
    // The stage's output from orientation o's response (gabor_combine.comp's, or a recursive
    // vertical pass's tail): its inputs and outputs past the response's own.
    const auto bindTail = [&](ComputePass& p, const GaborOrientationPlan& o, bool first) {
        if (plan.removeDc) {
            sampler(p, 2, gauss);
            uniform(p, "dcGain", o.dcGain);
        }
        image(p, 2, out, bank ? Access::ReadWrite : Access::Write);
        if (bank) uniformInt(p, "first", first);
        if (sinkTraits(plan.sink).sector) {
            image(p, 3, sector, Access::Write);
            uniformUint(p, "orientationSector", o.sector);
        }
    };
    // A recursive vertical pass ends in the tail itself where the output is a magnitude (a
    // magnitude, a bank's maximum): no combine pass, the final response never stored.
    const bool fusedTail = plan.recursive && sinkTraits(plan.sink).magnitude;
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        // Horizontal pass (real in), then vertical (complex in; recursive: in place).
        int re = -1, im = -1;
        for (int axis = 0; axis < 2; ++axis) {
            Defines d = {{"AXIS", std::to_string(axis)}, {"COMPLEX_IN", std::to_string(axis)}};
            if (plan.recursive) {
                const bool inPlace = axis == 1, tail = axis == 1 && fusedTail;
                d.insert(d.end(), {{"COMPLEX_OUT", "1"}, {"IN_PLACE", inPlace ? "1" : "0"}});
                if (tail) {
                    d.push_back({"TAIL", "1"});
                    d.insert(d.end(), tailDefines.begin(), tailDefines.end());
                }
                ComputePass& p = dispatch("recursive_line.comp", d, groups(axis == 0 ? H : W, kLineGroup), 1,
                                          tail   ? (bank ? "R32F (running maximum)" : "R32F")
                                          : inPlace ? "2 x R32F (re, im), in place"
                                                    : "2 x R32F (re, im)");
                cascade(p, axis == 0 ? o.x : o.y);
                if (!inPlace) {
                    sampler(p, 0, in);
                    re = plane(Format::R32F);
                    im = plane(Format::R32F);
                }
                image(p, 0, re, Access::ReadWrite);
                image(p, 1, im, Access::ReadWrite);
                if (tail) bindTail(p, o, k == 0);
                continue;
            }
            // The plan's half taps (c_k, s_k), k = 0..R, of this orientation and axis.
            const GaborTaps& t = axis == 0 ? o.tx : o.ty;
            std::vector<float> v;
            for (std::size_t j = 0; j < t.c.size(); ++j) v.insert(v.end(), {t.c[j], t.s[j]});
            const int taps = buffer(sizeof(float) * v.size(), v);
            d.push_back({"RADIUS", std::to_string(o.tx.c.size() - 1)});
            ComputePass& p = dispatch("gabor_direct.comp", d, groups(W, kTile), groups(H, kTile), "2 x R32F (re, im)");
            storage(p, 0, taps);
            sampler(p, 0, axis == 0 ? in : re);
            if (axis == 1) sampler(p, 1, im);
            re = plane(Format::R32F);
            im = plane(Format::R32F);
            image(p, 0, re, Access::Write);
            image(p, 1, im, Access::Write);
        }
        if (fusedTail) continue;
        ComputePass& p = dispatch("gabor_combine.comp", tailDefines, groups(W, kTile), groups(H, kTile),
                                  bank ? "R32F (running maximum)" : "R32F");
        sampler(p, 0, re);
        sampler(p, 1, im);
        bindTail(p, o, k == 0);
        if (sinkTraits(plan.sink).complex) {
            image(p, 0, keptRe_, Access::Write);
            image(p, 1, keptIm_, Access::Write);
        }
    }
    return out;
}

} // namespace striate::gles
