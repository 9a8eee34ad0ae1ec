// gles-fragment: a plan's estimated time on a board (plan_cost.h), without a GL call.
#include "gles/fragment/plan_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace striate::gles {

std::size_t chooseQuickest(std::size_t n, const std::function<double(std::size_t)>& seconds,
                           const std::function<std::size_t(std::size_t)>& bytes) {
    double quickest = 0;
    for (std::size_t i = 0; i < n; ++i) quickest = i == 0 ? seconds(i) : std::min(quickest, seconds(i));
    std::size_t kept = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (seconds(i) > quickest * (1 + kEstimateMargin)) continue;
        if (kept == n || bytes(i) < bytes(kept) || (bytes(i) == bytes(kept) && seconds(i) < seconds(kept))) kept = i;
    }
    return kept;
}

double fittedInstructions(const FragmentShader& shader, const GpuSpeed& speed) {
    const std::string& n = shader.name;
    const bool quad = n.find("on quads") != std::string::npos || n.starts_with("quad.");
    const bool rows = n.find("four rows per fragment") != std::string::npos;
    const double alu = speed.perAlu + (quad ? speed.quadAlu : 0) + (rows ? speed.rowsAlu : 0);
    const double fetches = speed.perFetch + (quad ? speed.quadFetch : 0) + (rows ? speed.rowsFetch : 0);
    return std::max(1.0, speed.base + alu * shader.cost.alu + fetches * shader.cost.fetches);
}

PlanEstimate estimatePlan(const FragmentPlan& plan, const GpuSpeed& speed) {
    PlanEstimate e;
    if (speed.qpus <= 0 || speed.clockMHz <= 0 || speed.tmus <= 0 || speed.bandwidthGBs <= 0) return e;
    const double clock = speed.clockMHz * 1e6;
    const std::size_t steps = plan.floodResult >= 0    ? static_cast<std::size_t>(plan.floodResult) + 1
                              : plan.pairedResult >= 0 ? static_cast<std::size_t>(plan.pairedResult)
                                                       : plan.steps.size();
    for (std::size_t k = 0; k < steps; ++k)
        for (const Draw& d : plan.steps[k].passes) {
            if (d.shader < 0) continue;
            const FragmentShader& shader = plan.shaders[static_cast<std::size_t>(d.shader)];
            const double fragments = plan.fragments(d);
            const double instructions = fittedInstructions(shader, speed);
            const double issue = std::ceil(fragments / 16) * instructions * 4 / (speed.qpus * clock);
            const double texture = fragments * shader.cost.fetches / (speed.tmus * clock);
            const double memory =
                static_cast<double>(plan.drawBytes(d) + plan.tileLoadBytes(d)) / (speed.bandwidthGBs * 1e9);
            const double largest = std::max({issue, texture, memory});
            const double seconds = largest + speed.drawMicroseconds * 1e-6;
            const char* bound = largest == issue ? "issue" : largest == texture ? "texture" : "memory";
            if (e.passes.empty() || e.passes.back().name != shader.name)
                e.passes.push_back({shader.name, 0, 0, instructions, 0, bound});
            PlanEstimate::Pass& p = e.passes.back();
            ++p.draws;
            p.fragments += fragments;
            p.seconds += seconds;
            p.bound = bound;
            e.seconds += seconds;
            ++e.draws;
        }
    return e;
}

std::string describeEstimate(const PlanEstimate& e, const std::string& indent) {
    std::string s;
    char line[160];
    for (const PlanEstimate::Pass& p : e.passes) {
        std::snprintf(line, sizeof line, "%.3f ms, %d draw%s, %.0f fragments, %.0f instructions a fragment (%s bound): ",
                      p.seconds * 1e3, p.draws, p.draws == 1 ? "" : "s", p.fragments, p.instructions, p.bound);
        s += indent + line + p.name + "\n";
    }
    return s;
}

} // namespace striate::gles
