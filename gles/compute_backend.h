#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "core/plan.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"

namespace striate::gles {

/// The GLES 3.1 compute backend (DESIGN.md): every stage on the GPU in R32F (complex: two R32F
/// planes) images, the context current only inside its own calls, so it can be created on one
/// thread and used or destroyed on another. Coefficients are the cpu backend's plans, computed once
/// in configure(); process() uploads the luma plane, runs the passes and reads the result back.
class ComputeBackend final : public GlesBackend {
public:
    /// Makes a context; an error names the cause (no display, no GLES 3.1, too few invocations).
    static Status create(const GpuLimits& limits, std::unique_ptr<ComputeBackend>* out);
    ~ComputeBackend() override;

    const char* name() const override { return "gles-compute"; }

private:
    explicit ComputeBackend(const GpuLimits& limits) : GlesBackend(limits.maxTextureSize, "the GPU's"), limits_(limits) {}
    using Taps = std::vector<std::array<unsigned, 2>>;  // direct Gabor tap buffers (x, y) per orientation

    Status configureCurrent(const Chain& chain, const FrameFormat& format) override;
    Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    void releaseGl();

    // Passes; each records itself in passes_ while `recording_` (configure's dry run).
    unsigned program(const std::string& file, const Defines& defines);
    void dispatch(const std::string& file, const Defines& defines, unsigned program, int gx, int gy,
                  const std::string& writes);
    unsigned texture(unsigned internalFormat);
    void blur(const BlurPlan& plan, unsigned in, unsigned out);
    void gabor(const GaborPlan& plan, const Taps& taps, unsigned in, unsigned out);
    void edges(const EdgeSpec& spec, const StagePlan& plan, const Taps& taps, unsigned in, unsigned out);
    void setCascade(unsigned program, const CascadeFloat& f);
    void hysteresis();
    void runChain();

    GpuLimits limits_;
    std::vector<StagePlan> plans_;
    bool recording_ = false;

    std::vector<unsigned> textures_, buffers_;
    unsigned luma_ = 0, unit_ = 0, stageOut_[2] = {}, tmp_ = 0, gauss_ = 0, hRe_ = 0, hIm_ = 0, vRe_ = 0,
             vIm_ = 0, keptRe_ = 0, keptIm_ = 0, strength_ = 0, sector_ = 0, classes_ = 0;
    unsigned readback_ = 0, changed_ = 0, indirect_ = 0, boxScratch_ = 0, unitTable_ = 0;
    std::vector<Taps> taps_;  // per stage
};

} // namespace striate::gles
