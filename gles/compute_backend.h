#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "cpu/neon/encode.h"
#include "cpu/neon/plan.h"
#include "gles/egl_context.h"
#include "gles/program_cache.h"

namespace striate::gles {

/// What a board profile lets the GLES backends use (board/profile.h caps the probed values).
struct GpuLimits {
    int maxTextureSize = 0;   ///< largest width or height of a texture
    int sharedBytes = 0;      ///< compute shared memory per workgroup
    int invocations = 0;      ///< compute invocations per workgroup
};

/// The largest frame, in pixels, whose edge map (edges output=edges or overlay, either method) the
/// GLES backends compute: their hysteresis spreads strong edges a few pixels per pass until nothing
/// changes, so its passes grow with the frame's side and its planes with its area (an 8192x8192
/// Canny took 385 s and 6.6 GB on llvmpipe, 2 s and 282 MB on cpu). Beyond 3840x2160 (4K UHD) the
/// cpu backend runs, as for a frame beyond the texture limit (docs/boards.md).
inline constexpr long long kMaxGpuHysteresisPixels = 3840LL * 2160;

/// The GLES backends' validate(): the chain, and a frame within [1, maxTextureSize] (they do not
/// tile) and, for an edge map, within kMaxGpuHysteresisPixels, with an error naming the limit
/// (`whose`: "the GPU's", "the board's") and the backend.
Status validateGpuFrame(const Chain& chain, const FrameFormat& format, int maxTextureSize, const char* whose,
                        const char* backend);

/// float(c / 255) for every 8-bit code c: the reference's unit values (ALGORITHMS.md 0), which the
/// GLES backends start from exactly (a shader division need not round correctly).
const std::array<float, 256>& unitValues();

/// One dispatch or draw as --explain shows it.
struct PassInfo {
    std::string name;     ///< shader file and its defines
    std::string format;   ///< what it writes
    std::string grid;     ///< workgroups (compute) or draws (fragment)
};

/// The GLES 3.1 compute backend (DESIGN.md): every stage on the GPU in R32F (complex: two R32F
/// planes) images, the context current only inside its own calls, so it can be created on one
/// thread and used or destroyed on another. Coefficients are the cpu backend's plans, computed once
/// in configure(); process() uploads the luma plane, runs the passes and reads the result back.
class ComputeBackend final : public Backend {
public:
    /// Makes a context; an error names the cause (no display, no GLES 3.1, too few invocations).
    static Status create(const GpuLimits& limits, std::unique_ptr<ComputeBackend>* out);
    ~ComputeBackend() override;

    const char* name() const override { return "gles-compute"; }
    Status validate(const Chain& chain, const FrameFormat& format) const override;
    Status configure(const Chain& chain, const FrameFormat& format) override;
    Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    Status process8(ImageView<const std::uint8_t> luma, const Output8& out) override {
        return cpu::processThenEncode8(*this, luma, out);
    }

    /// The passes of the configured chain, in order.
    const std::vector<PassInfo>& passes() const { return passes_; }
    const ContextInfo& context() const { return ctx_->info(); }

private:
    ComputeBackend() = default;
    using Taps = std::vector<std::array<unsigned, 2>>;  // direct Gabor tap buffers (x, y) per orientation

    Status configureCurrent(const Chain& chain, const FrameFormat& format);
    Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out);
    void releaseGl();

    // Passes; each records itself in passes_ while `recording_` (configure's dry run).
    unsigned program(const std::string& file, const Defines& defines);
    void dispatch(const std::string& file, const Defines& defines, unsigned program, int gx, int gy,
                  const std::string& writes);
    unsigned texture(unsigned internalFormat);
    void blur(const cpu::BlurPlan& plan, unsigned in, unsigned out);
    void gabor(const cpu::GaborPlan& plan, const Taps& taps, unsigned in, unsigned out);
    void edges(const EdgeSpec& spec, const cpu::StagePlan& plan, const Taps& taps, unsigned in, unsigned out);
    void setCascade(unsigned program, const cpu::CascadeFloat& f);
    void hysteresis();
    void runChain();

    std::unique_ptr<EglContext> ctx_;
    std::unique_ptr<ProgramCache> cache_;
    GpuLimits limits_;
    Status failure_;  // the first GL failure of a configure or process

    Chain chain_;
    FrameFormat format_;
    std::vector<cpu::StagePlan> plans_;
    std::vector<PassInfo> passes_;
    bool recording_ = false;

    std::vector<unsigned> textures_, buffers_;
    unsigned luma_ = 0, unit_ = 0, stageOut_[2] = {}, tmp_ = 0, gauss_ = 0, hRe_ = 0, hIm_ = 0, vRe_ = 0,
             vIm_ = 0, keptRe_ = 0, keptIm_ = 0, strength_ = 0, sector_ = 0, classes_ = 0;
    unsigned readback_ = 0, changed_ = 0, indirect_ = 0, boxScratch_ = 0, unitTable_ = 0;
    std::vector<Taps> taps_;  // per stage
    Image<float> real_;
    Image<Complex32> complex_;
};

} // namespace striate::gles
