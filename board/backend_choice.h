#pragma once

#include <memory>
#include <string>
#include <vector>

#include "board/profile.h"
#include "core/backend.h"
#include "core/status.h"
#include "gles/limits.h"

namespace striate {

struct Probe;
namespace gles {
class TextureBackend;
class ProgramCache;
}

/// Where a backend runs: in a context of its own (or on the cpu), or inside the GLES context that
/// is current on the calling thread when it is made (GstGL's), where only gles-fragment runs and
/// frames are textures.
enum class Placement { OwnContext, CurrentContext };

/// A backend chosen, not yet made (startChosen makes it): what was asked for, the kind chosen and
/// where it runs, the board's limits for a GPU kind, and, where a GPU backend was asked for but
/// cannot run at all (no GLES context, a build without GLES), why the cpu backend was chosen
/// instead.
struct BackendChoice {
    BackendKind requested = BackendKind::Cpu;
    BackendKind kind = BackendKind::Cpu;
    Placement placement = Placement::OwnContext;
    BackendOptions options;
    BoardLimits limits;  ///< a GPU kind's (the same layout in every build: without GLES, unused)
    gles::FragmentOptions fragment;  ///< gles-fragment's forms: the defaults, unless a test forces one
    std::string fallback;

    /// The cpu backend, asked for: a colour blur's chroma planes, or the stand-in for a GPU
    /// backend that failed.
    static BackendChoice cpu(const BackendOptions& options) {
        BackendChoice c;
        c.options = options;
        return c;
    }
};

/// The one backend choice (docs/design.md), for `chain` and `format`: `auto` follows autoBackend (what
/// selftest measured fastest here, else autoRule: cpu on a software renderer, else the lower of
/// the board's estimates, else gles-compute where the board profile has compute, else
/// gles-fragment). Errors are for the caller's input: an unknown or unsatisfiable board, a chain
/// or frame size no backend accepts, a backend other than auto or gles-fragment asked for in the
/// current context. The GPU's limits are refused here: where no GPU runs, or a GPU backend cannot
/// take the frame (compute shaders, the texture limit, the hysteresis's area), the choice is the
/// cpu backend (on mapped frames, for Placement::CurrentContext), `fallback` naming why. With
/// Placement::CurrentContext the choice is otherwise gles-fragment under the board's limits.
/// Call it outside any context of someone else's: the first call probes the machine with a
/// context of its own.
Status chooseBackend(BackendKind requested, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                     Placement placement, BackendChoice* out);

/// A choice made, for `chain` and `format`: the backend in a context of its own, or the cpu backend
/// where the chosen GPU backend cannot be made (its plan beyond the memory the board lends, a
/// driver that fails), `fallback` then naming why (as does the choice's own `fallback`). A choice for the
/// current context is made by startInCurrentContext instead.
Status startChosen(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                   std::unique_ptr<Backend>* out, std::string* fallback);

// startBackend (core/backend.h), the one public way to make a backend, is defined here.

/// startBackend with gles-fragment's forms forced (the tests and benchmarks force each); the
/// public one runs the defaults.
Status startBackendWithForms(BackendKind kind, const BackendOptions& options, const gles::FragmentOptions& forms,
                             const Chain& chain, const FrameFormat& format, std::unique_ptr<Backend>* out,
                             std::string* fallback);

#ifdef STRIATE_HAVE_GLES
/// A Placement::CurrentContext choice made: the texture backend (gles-fragment) in the context
/// current on the calling thread, configured; an error names why it cannot run there.
/// `programs`: another backend's program cache in that context, to share, else null.
Status startInCurrentContext(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                             std::unique_ptr<gles::TextureBackend>* out,
                             std::shared_ptr<gles::ProgramCache> programs = nullptr);
#endif

/// Runs one frame, `frame(backend)`, as the tool, the Python module and the elements (in system
/// memory) do: a GPU backend that fails on it (a shader the driver could not compile, a lost
/// context) is replaced by the cpu backend, which runs the frame (and the caller's next ones);
/// `warning` then names the GPU's failure.
template <class Frame>
Status runWithCpuFallback(std::unique_ptr<Backend>* backend, const BackendOptions& options, const Chain& chain,
                          const FrameFormat& format, const Frame& frame, std::string* warning) {
    Status s = frame(**backend);
    if (s || !(*backend)->runsOnGpu()) return s;
    *warning = s.message() + "; using the cpu backend";
    std::string unused;
    if (Status c = startBackend(BackendKind::Cpu, options, chain, format, backend, &unused); !c) return c;
    return frame(**backend);
}

/// The backend `auto` picks on this machine and board for `chain` (any chain when null), and why
/// (striate probe): the fastest that `striate selftest` measured for chains ending in the same
/// kind of stage on this board and renderer (board/measured.h), when it has; else autoRule.
Status autoBackend(const BackendOptions& options, BackendKind* kind, std::string* reason, const Chain* chain = nullptr);

#ifdef STRIATE_HAVE_GLES
/// The backends a board runs: cpu, gles-fragment, and gles-compute where it has compute shaders.
std::vector<BackendKind> boardBackends(const BoardLimits& limits);

/// auto's rule on a probed machine under a board profile, for `chain` (the main chains when
/// null): cpu where the renderer is a software one (Mesa llvmpipe or softpipe run on the same
/// cores, several times slower than the cpu backend); else the backend with the lower estimate
/// for chains ending in the same kind of stage on that board (board/estimates.h: rpi3, rpi4,
/// rpi5), summed over the sizes estimated; else gles-compute where the board has compute
/// shaders, else gles-fragment.
BackendKind autoRule(const Probe& probe, const BoardLimits& limits, const Chain* chain, std::string* reason);

#endif

} // namespace striate
