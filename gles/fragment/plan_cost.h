#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gles/fragment/planner.h"
#include "gles/limits.h"

namespace striate::gles {

/// A gles-fragment plan's time on a board, estimated without a GL call from the board's GpuSpeed
/// (docs/boards.md, "The planner's choices per board"). Each draw takes the largest of three
/// bounds, plus the board's fixed cost a draw:
/// - issue: ceil(fragments / 16) x the driver's instructions x 4 clocks / (QPUs x clock), the
///   instructions from the generator's count (GpuSpeed's fit to the real compiler);
/// - texture: fragments x fetches / (TMUs x clock);
/// - memory: the bytes the draw moves at the least (FragmentPlan::drawBytes) and the tile load of
///   its target (FragmentPlan::tileLoadBytes), over the board's bandwidth.
/// A step that repeats until stable counts one round (its rounds are the scene's); the cpu's
/// share of a frame (the hysteresis's flood, the transfers) is not counted: it is the same in
/// every form the planner chooses among. An estimate, never a measurement.
struct PlanEstimate {
    struct Pass {
        std::string name;      ///< the draw's shader
        int draws = 0;         ///< consecutive draws of that shader, summed into one line
        double fragments = 0;
        double instructions = 0;  ///< the driver's, a fragment, by the fit
        double seconds = 0;
        const char* bound = "";  ///< "issue", "texture" or "memory": the largest, of the last draw
    };
    std::vector<Pass> passes;
    double seconds = 0;
    int draws = 0;
};

/// The plan's draws on the board, as a frame in system memory runs them (to the flood that gives
/// the result, FragmentPlan::floodResult).
PlanEstimate estimatePlan(const FragmentPlan& plan, const GpuSpeed& speed);

/// How far apart two estimates must be for the quicker to be taken over the smaller plan: the
/// model's own accuracy (scripts/pi_model_check.py holds its instruction counts to the compiler's
/// within 10%; its bounds and constants are less sure than that). GPU memory on a Pi is shared
/// with the camera and the display, so within this margin the smaller plan is kept.
inline constexpr double kEstimateMargin = 0.10;

/// Among `n` alternatives, the one the planner keeps: of those estimated within kEstimateMargin
/// of the quickest, the one holding the least memory (the quicker on a tie; the first on both).
std::size_t chooseQuickest(std::size_t n, const std::function<double(std::size_t)>& seconds,
                           const std::function<std::size_t(std::size_t)>& bytes);

/// The driver's instructions for a shader on the board (GpuSpeed's fit): its generator's cost,
/// and whether it works on quads (four pixels a fragment: "on quads", "quad.") or four rows of
/// them ("four rows per fragment"), told by its name as scripts/fit_shader_counts.py tells it.
double fittedInstructions(const FragmentShader& shader, const GpuSpeed& speed);

/// "12.3 ms (edges.gradient 3.1 ms issue, ...)": the estimate a line per pass, for --explain and
/// striate probe; `indent` starts each line.
std::string describeEstimate(const PlanEstimate& e, const std::string& indent);

} // namespace striate::gles
