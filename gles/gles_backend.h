#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "gles/driver_log.h"
#include "gles/egl_context.h"
#include "gles/limits.h"
#include "gles/program_cache.h"

namespace striate::gles {

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

/// Whether an R32F texture completes a framebuffer and reads back as GL_RED / GL_FLOAT in the
/// current context (4 bytes a pixel; else a float result is read as RGBA or through a buffer).
bool probeRedReadback(const PixelStoreSupport& pixelStore);

/// The name of a GL error code ("GL_INVALID_OPERATION"), for messages.
const char* glErrorName(unsigned error);

/// One dispatch or draw as --explain shows it.
struct PassInfo {
    std::string name;     ///< shader file and its defines
    std::string format;   ///< what it writes
    std::string grid;     ///< workgroups (compute) or draws (fragment)
};

/// What both GLES backends share (docs/design.md): a context (their own, current only inside their
/// calls, so one can be created on one thread and used or destroyed on another; or someone else's
/// that the caller keeps current), the program cache, the first GL failure of a configure or
/// process, validation against the texture limit, the passes --explain shows, and the host planes
/// a frame is read back into.
class GlesBackend : public Backend {
public:
    bool runsOnGpu() const override { return true; }
    Status validate(const Chain& chain, const FrameFormat& format) const override;
    /// Validates, makes the context current (when it is ours) and calls configureCurrent().
    Status configure(const Chain& chain, const FrameFormat& format) final;
    /// Checks the frame's size, makes the context current (when it is ours) and calls
    /// processCurrent(). After a frame that ran programs for the first time, an error where the
    /// driver did not compile one (driverLog()), on this frame and every later one.
    Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) final;
    /// As process(), into 8-bit samples: process8Current().
    Status process8(ImageView<const std::uint8_t> luma, const Output8& out) final;
    std::string explain() const override;

    /// The passes of the configured chain, in order.
    const std::vector<PassInfo>& passes() const { return passes_; }
    /// What the driver's compiler said at each program's first draw or dispatch (in our own
    /// context, where it offers KHR_debug): statistics per stage, and which passes failed.
    const DriverLog& driverLog() const { return driverLog_; }
    /// Programs in its cache (with a shared cache, the other backends' too): configure() again
    /// with new values of the same structure compiles none.
    std::size_t programCount() const { return cache_ ? cache_->size() : 0; }
    /// Program-cache lookups since creation (ProgramCache::lookups).
    std::size_t programLookups() const { return cache_ ? cache_->lookups() : 0; }
    /// The program cache, for another backend made later in the same context (createInCurrentContext).
    std::shared_ptr<ProgramCache> programs() const { return cache_; }

protected:
    /// `whose`: what the texture limit belongs to in messages ("the GPU's", "the board's").
    GlesBackend(const GpuLimits& limits, const char* whose)
        : maxTextureSize_(limits.maxTextureSize), memoryBytes_(limits.memoryBytes), whose_(whose) {}

    /// The backend's context current on this thread for the lifetime of the object: ours made
    /// current and released after, or someone else's that the caller keeps current; an error
    /// where there is none (creation failed).
    class Current {
    public:
        explicit Current(const GlesBackend& b);
        ~Current();
        Current(const Current&) = delete;
        Current& operator=(const Current&) = delete;
        const Status& status() const { return status_; }

    private:
        EglContext* c_;
        Status status_;
    };

    /// Makes our own context and the program cache in it; info_ describes it.
    Status createContext();
    /// Adopts the context current on this thread (GstGL's): an error where none is or it is not GLES.
    /// `programs`: a program cache of that context to share (another backend's there), else null
    /// for one of our own.
    Status adoptCurrentContext(std::shared_ptr<ProgramCache> programs);
    virtual Status configureCurrent(const Chain& chain, const FrameFormat& format) = 0;
    virtual Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) = 0;
    /// process8's frame, the context current: processCurrent() and the host's encode8 of its
    /// read-back floats, unless the backend encodes on the GPU.
    virtual Status process8Current(ImageView<const std::uint8_t> luma, const Output8& out);
    /// What explain() says after the context: ", 12 passes per frame".
    virtual std::string explainDetails() const;
    /// "; a frame in system memory uploads U bytes and reads back V" (processCurrent's transfers;
    /// scripts/pi_passes.py reads them).
    static std::string explainTransfers(std::size_t uploaded, std::size_t readBack);
    /// What explain() says after the passes about the last frame as it ran ("" before one).
    virtual std::string explainFrame() const { return {}; }
    /// GPU memory the plan of `chain` at `format` would hold (planned without a GL call).
    virtual std::size_t plannedGpuBytes(const Chain& chain, const FrameFormat& format) const = 0;

    /// Runs `call`, a draw (or, with `dispatch`, a compute dispatch) of `program`. Its first run
    /// compiles the program: the driver log listens meanwhile, naming the pass by `name()` (called
    /// only then).
    template <class Name, class Call>
    void runHeard(unsigned program, bool dispatch, Name&& name, Call&& call) {
        const bool first = driverLog_.installed() && program != 0 &&
                           std::find(heard_.begin(), heard_.end(), program) == heard_.end();
        if (first) {
            heard_.push_back(program);
            driverLog_.begin(name(), dispatch);
            unheardVerdict_ = true;
        }
        call();
        if (first) driverLog_.end();
    }
    /// The driver's verdict on the programs run so far (the first failed one, kept for good): a
    /// frame's work is done when the driver compiled all it ran.
    Status heardVerdict();
    /// process() and process8(): the frame's size checked, the context current, `run` (the
    /// frame's work) unless the driver failed a program before, then the driver's verdict.
    template <class Run>
    Status frame(ImageView<const std::uint8_t> luma, Run&& run) {
        if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
        const Current current(*this);
        if (!current.status()) return current.status();
        // A program the driver failed to compile skips its draws on every frame: the failure stays.
        if (!driverVerdict_) return driverVerdict_;
        if (Status s = run(); !s) return s;
        return heardVerdict();
    }
    /// Removes the driver callback (the context current): the destructors call it.
    void stopListening() { driverLog_.uninstall(); }

    /// Keeps the first failure of a configure or process.
    void fail(const std::string& message);
    /// status_, or the pending GL error named, `during` what ("while processing a frame").
    Status glStatus(const char* during) const;
    /// The frame's output from the read-back planes: real_, or complex_ (filled by the caller)
    /// with its magnitude written into real_.
    ChainOutput output(bool complex);
    /// Sizes the read-back planes for the configured format, and the upload band where the
    /// backend uploads unit values (gles-compute; gles-fragment uploads the 8-bit codes).
    void resetOutputs(bool complex, bool unitBand);
    /// Bytes of the read-back planes and the upload band.
    std::size_t hostBytes() const;
    /// Uploads the frame's unit values unitValues()[c] into the bound R32F texture, a band of
    /// rows at a time (the host holds a band, not a float frame).
    void uploadUnitValues(ImageView<const std::uint8_t> luma);

    std::unique_ptr<EglContext> ctx_;  // null: someone else's context (shared_) or none yet
    bool shared_ = false;              // runs in the context current on the caller's thread
    ContextInfo info_;
    std::shared_ptr<ProgramCache> cache_;  // shared with other backends in a context not ours
    Status status_;  // ok, or the first failure of a configure or process: later calls return it
    Chain chain_;
    FrameFormat format_;
    std::vector<PassInfo> passes_;
    DriverLog driverLog_;
    Image<float> real_;
    Image<Complex32> complex_;
    std::vector<float> unitBand_;

private:
    std::vector<unsigned> heard_;  // programs whose first use the driver log has heard
    bool unheardVerdict_ = false;  // a first use since the last verdict
    Status driverVerdict_;         // the first program the driver did not compile, for good
    int maxTextureSize_;
    std::size_t memoryBytes_;  // GpuLimits::memoryBytes
    const char* whose_;
};

} // namespace striate::gles
