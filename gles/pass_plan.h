#pragma once

#include <vector>

#include "core/liveness.h"

/// The shape both GPU backends' plans share (gles-compute's ComputePlan, gles-fragment's
/// FragmentPlan): steps of passes that run once or repeat until stable, and planes shared by
/// liveness over those passes. What a pass is differs (a dispatch with bindings, a draw into a
/// framebuffer), and so does a plane (an R32F or R32UI image, a render target of a given kind
/// and size); the order of passes, the planes' lives and how they share storage do not.
namespace striate::gles {

/// Passes run once, or (hysteresis) repeated until stable: gles-compute's gate pass gives the next
/// pass the tiles the last one listed, none once nothing changes; gles-fragment compares the
/// `watched` plane's read-backs.
template <class Pass>
struct Step {
    std::vector<Pass> passes;
    bool repeatUntilStable = false;
    /// A repeated step's cap, made by the planner: the runs of its passes that always reach the
    /// fixed point (hysteresis: each run but the last grows at least one pixel: the frame's
    /// pixels).
    long maxRepeats = 1;
    int watched = -1;  ///< gles-fragment: the plane whose read-back ends the repeat, or is flooded
    /// gles-fragment: the texels of each of `watched`'s rows that hold the classes (its left part
    /// where they take a wider plane's storage).
    int watchedWidth = 0;
    /// gles-fragment, a step of no passes: the edge classes of `watched` (RGBA8, a byte a pixel
    /// every this many bytes of its rows) read back, flooded on the cpu (core/hysteresis.h) and
    /// uploaded again; 0: the step's passes run.
    int cpuFloodBytesPerPixel = 0;
};

/// Planes used outside the passes (-1 entries are ignored).
struct PlaneEnds {
    std::vector<int> before;  ///< written before the first pass (the uploaded frame)
    std::vector<int> after;   ///< read after the last pass (the read-back)
    std::vector<int> pinned;  ///< alive throughout, with storage of their own (gles-fragment's
                              ///< luma, which the GstGL path swaps for its texture)
};

/// Planes shared by liveness (core/liveness.h), for either plan. Each plane lives from the pass
/// that first uses it to the one that last does, counting passes in the order they run; a
/// repeated step's planes live through the whole step (its first pass runs again after its
/// last); `ends` extend lives to before the first pass or past the last. Planes of equal
/// `kinds[i]` whose lives never overlap then share one storage. `forEachPlane(pass, f)` calls
/// f(int& plane) for each plane a pass uses, so the same walk rewrites them; the caller rewrites
/// its other references through the returned map and makes one plane per storage kind.
struct Sharing {
    std::vector<int> storage;       ///< per plane: its storage (-1: never used)
    std::vector<int> storageKinds;  ///< per storage: its kind
    int remap(int plane) const { return plane < 0 ? plane : storage[plane]; }
};

template <class Pass, class ForEachPlane>
Sharing sharePlanes(std::vector<Step<Pass>>& steps, std::vector<int> kinds, const PlaneEnds& ends,
                    ForEachPlane forEachPlane) {
    std::vector<Life> lives(kinds.size());
    int at = 0;
    for (Step<Pass>& step : steps) {
        const int first = at, last = at + static_cast<int>(step.passes.size()) - 1;
        for (Pass& pass : step.passes) {
            forEachPlane(pass, [&](int& plane) {
                if (plane < 0) return;
                lives[plane].use(step.repeatUntilStable ? first : at);
                lives[plane].use(step.repeatUntilStable ? last : at);
            });
            ++at;
        }
    }
    for (int p : ends.before)
        if (p >= 0) lives[p].use(0);
    for (int p : ends.after)
        if (p >= 0) lives[p].use(at);
    const std::vector<int> given = kinds;
    int unique = 0;
    for (int k : kinds) unique = k >= unique ? k + 1 : unique;
    for (int p : ends.pinned) {
        if (p < 0) continue;
        kinds[p] = unique++;  // a kind no other plane has
        lives[p].use(0);
        lives[p].use(at);
    }
    Sharing s;
    s.storage = shareStorage(kinds, lives, &s.storageKinds);
    for (std::size_t i = 0; i < s.storage.size(); ++i)
        if (s.storage[i] >= 0) s.storageKinds[s.storage[i]] = given[i];  // the caller's kinds
    for (Step<Pass>& step : steps) {
        for (Pass& pass : step.passes) forEachPlane(pass, [&](int& plane) { plane = s.remap(plane); });
        step.watched = s.remap(step.watched);
    }
    return s;
}

} // namespace striate::gles
