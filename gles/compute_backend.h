#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "gles/compute_plan.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"

namespace striate::gles {

/// The GLES 3.1 compute backend (docs/design.md): every stage on the GPU in R32F (complex: two R32F
/// planes) images, the context current only inside its own calls, so it can be created on one
/// thread and used or destroyed on another. configure() plans the chain without a GL call
/// (ComputePlanner), then makes the plan's textures, buffers and programs and finds every uniform;
/// process() uploads the luma plane, replays the plan's dispatches and reads the result back, and
/// allocates nothing, creates no GL object and looks nothing up by name.
class ComputeBackend final : public GlesBackend {
public:
    /// Makes a context; an error names the cause (no display, no GLES 3.1, too few invocations).
    static Status create(const GpuLimits& limits, std::unique_ptr<ComputeBackend>* out);
    ~ComputeBackend() override;

    const char* name() const override { return "gles-compute"; }
    /// Whose texture limit its messages name.
    static constexpr const char* kLimitOwner = "the GPU's";

    MemoryUse memory() const override;
    const ComputePlan& plan() const { return plan_; }

private:
    explicit ComputeBackend(const GpuLimits& limits) : GlesBackend(limits, kLimitOwner), limits_(limits) {}

    Status configureCurrent(const Chain& chain, const FrameFormat& format) override;
    Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    /// With the plan's encode pass (and an encoding without offset): the codes made on the GPU
    /// and read back, a byte a pixel; else the read-back floats encoded on the host.
    Status process8Current(ImageView<const std::uint8_t> luma, const Output8& out) override;
    /// Uploads the frame and runs the plan's steps.
    void runSteps(ImageView<const std::uint8_t> luma);
    std::string explainDetails() const override;
    std::size_t plannedGpuBytes(const Chain& chain, const FrameFormat& format) const override;
    void releaseGl();
    /// The frame goes up as its codes (an R8UI plane), not as unit floats.
    bool lumaCodes() const { return plan_.luma >= 0 && plan_.planes[plan_.luma].format == ComputePlane::Format::R8UI; }
    /// Binds a pass's planes and buffers, sets its uniforms and dispatches it.
    void run(const ComputePass& pass);
    /// A repeat-until-stable step (hysteresis): batches of its passes until the gate's grid is 0.
    void runUntilStable(const ComputeStep& step, HysteresisHead& counts);
    /// After a hysteresis step: its work buffer's head (its passes, the tiles they ran and its
    /// tile loops' iterations).
    void readHysteresisCounts(const ComputeStep& step, HysteresisHead& counts);
    std::string explainFrame() const override;

    GpuLimits limits_;
    bool redReadback_ = false;  // probeRedReadback(), once
    ComputePlan plan_;
    unsigned resultFbo_ = 0;    // the result plane's framebuffer, read with glReadPixels
    // The last frame's hysteresis steps as they ran (readHysteresisCounts, for --explain), one a
    // repeated step of the plan (sized at configure: a frame allocates nothing).
    std::vector<HysteresisHead> hysteresis_;
    // The last hysteresis reached its fixed point, so its work buffer's tile bits are all clear.
    bool hysteresisSettled_ = true;
    // Per program: its workgroup's invocations, as the driver reports them (configure), and the
    // invocations the last frame dispatched, every hysteresis pass as it ran (--explain; the Pi
    // estimates' model is held to them, scripts/pi_model_check.py).
    std::vector<unsigned long> localSize_;
    std::vector<unsigned long long> invocations_;
    // The last frame's dispatches, and those of them indirect: Mesa's v3d maps an indirect
    // dispatch's grid on the cpu before it submits the job, so each waits for the gate before it.
    unsigned dispatches_ = 0, indirectDispatches_ = 0;
    // Bytes the last frame read back (--explain's transfers): floats, or process8's codes.
    std::size_t readBack_ = 0;
};

} // namespace striate::gles
