#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/chain.h"
#include "core/image.h"
#include "core/status.h"

namespace striate {

enum class BackendKind { Auto, Reference, Cpu, GlesCompute, GlesFragment };
inline constexpr EnumName<BackendKind> kBackendKinds[] = {
    {BackendKind::Auto, "auto", "Best available for the board"},
    {BackendKind::Reference, "reference", "Reference (scalar double, slow)"},
    {BackendKind::Cpu, "cpu", "CPU (NEON, threads)"},
    {BackendKind::GlesCompute, "gles-compute", "OpenGL ES 3.1 compute"},
    {BackendKind::GlesFragment, "gles-fragment", "OpenGL ES 2.0/3.0 fragment"}};

/// What a backend is configured for: an 8-bit luma plane of this size.
struct FrameFormat {
    int width = 0;
    int height = 0;
    bool operator==(const FrameFormat&) const = default;
};

/// The result of one frame: a real plane, or a complex one when the chain's last stage outputs
/// complex values. The planes belong to the backend and stay valid until the next process().
struct ChainOutput {
    bool complex = false;
    ImageView<const float> real;
    ImageView<const Complex32> complexPlane;
};

/// Where process8() writes: 8-bit samples `step` bytes apart (a channel of interleaved data when
/// above 1), rows `stride` bytes apart, each the real output through `encoding` (encode8).
struct Output8 {
    std::uint8_t* data = nullptr;
    std::ptrdiff_t stride = 0;
    int step = 1;
    Encoding encoding;
};

/// encode8 of a frame's real output into `out`: Backend::process8's codes from process()'s output.
void writeCodes(const ChainOutput& r, const Output8& out);

/// What a configured backend holds for its frames, in bytes: GPU textures, buffers and
/// renderbuffers, and host planes and scratch (docs/design.md, Data flow: memory is planned, not found).
struct MemoryUse {
    std::size_t gpu = 0;
    std::size_t host = 0;
};

/// Bytes as people read them: "512 B", "7.9 MiB".
std::string describeBytes(std::size_t bytes);

/// Largest width or height any backend accepts; GPU backends lower it to their texture limit.
inline constexpr int kMaxDimension = 1 << 15;

/// A backend's name (auto, cpu, reference, gles-compute, gles-fragment), or an error naming it and
/// the names (the tool's --backend, the Python module's backend=).
Status parseBackendKind(std::string_view name, BackendKind* out);

/// Checks a frame size against [1, maxDimension] with a message that names the bad value.
Status validateFrameFormat(const FrameFormat& format, int maxDimension = kMaxDimension);

/// Checks that a frame has the size a backend was configured for.
Status checkFrameSize(int width, int height, const FrameFormat& configured);

/// The one interface every backend implements (docs/design.md): validate() has no side effects,
/// configure() allocates what frames of that format need, process() runs one frame and does not
/// allocate after the first frame of a configuration.
class Backend {
public:
    virtual ~Backend() = default;
    virtual const char* name() const = 0;
    /// True for a backend whose frames run on the GPU (the GLES backends).
    virtual bool runsOnGpu() const { return false; }
    /// True where intermediate planes are quantised (gles-fragment's packed RGBA8 planes): its
    /// outputs are held to the packed budget of docs/algorithms.md 8 rather than the float one.
    virtual bool packedIntermediates() const { return false; }
    /// What --explain prints after the backend's name, for the configured chain: the kernels or
    /// passes that run it, one line each ("" for none).
    virtual std::string explain() const { return {}; }
    /// What the configured backend holds for its frames (nothing before configure()).
    virtual MemoryUse memory() const { return {}; }
    /// The board's estimate of a frame of the configured chain, a line per pass, where the
    /// backend has one (gles-fragment on a Pi board's profile: gles/fragment/plan_cost.h); ""
    /// elsewhere. An estimate from the board's published figures, never a measurement.
    virtual std::string boardEstimate() const { return {}; }
    virtual Status validate(const Chain& chain, const FrameFormat& format) const = 0;
    virtual Status configure(const Chain& chain, const FrameFormat& format) = 0;
    virtual Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) = 0;
    /// One frame straight to 8-bit samples: the same codes as process() and encode8 of its real
    /// output (chains with a real output only). The default does exactly that on the calling
    /// thread (writeCodes: vectorised by the compiler on contiguous samples, as the GLES backends
    /// do after their read-back); backends override it with a faster way (threads, NEON, an 8-bit
    /// form of the last stage that never writes the float plane, gles-compute's codes made on the
    /// GPU and read back a byte a pixel). Where that form is in
    /// fixed point (the cpu backend's blur, docs/algorithms.md) the codes are within one of the
    /// correctly rounded result of its method, and for method=auto the method may differ from
    /// process()'s: the fastest for 8-bit outputs.
    virtual Status process8(ImageView<const std::uint8_t> luma, const Output8& out);
};

/// How a backend is made.
struct BackendOptions {
    int threads = 0;    ///< cpu backend threads; <= 0: one per hardware thread
    std::string board;  ///< board profile name; empty or "auto": STRIATE_BOARD, device tree, host
};

/// The one public way to make a backend: the backend of `kind` (auto: the one choice of
/// docs/design.md) made and configured for `chain` and `format`. Defined in board/backend_choice.cpp,
/// which knows every backend. A frame whose planes the process cannot allocate is an error
/// (std::bad_alloc is caught and named). A GPU
/// backend that cannot start or configure (no EGL display, no GLES 3.1, a shader that does not
/// compile, a frame beyond the board's texture limit: the GLES backends do not tile) is not an
/// error: the cpu backend runs instead and `fallback` names the cause, for the caller's one warning.
Status startBackend(BackendKind kind, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                    std::unique_ptr<Backend>* out, std::string* fallback);

} // namespace striate
