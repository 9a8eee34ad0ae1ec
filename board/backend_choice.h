#pragma once

#include <memory>
#include <string>

#include "core/backend.h"
#include "core/status.h"

namespace striate::gles {
struct FragmentLimits;
}

namespace striate {

struct Probe;
struct BoardLimits;

struct BackendOptions {
    int threads = 0;    ///< cpu backend threads; <= 0: one per hardware thread
    std::string board;  ///< board profile name; empty or "auto": STRIATE_BOARD, device tree, host
    RecursiveForm recursiveForm = RecursiveForm::Auto;  ///< gles-fragment: how recursive filters run
    PyramidUse boxPyramid = PyramidUse::WhereCheaper;   ///< gles-fragment: boxes from the sum pyramid
    bool hysteresisStencil = true;  ///< gles-fragment: hysteresis draws only the weak pixels (stencil)
};

/// The one place that turns a requested backend into a running one (DESIGN.md), configured for
/// `chain` and `format`. `auto` follows autoBackend: what selftest measured fastest here, else
/// autoRule (cpu on a software renderer, else gles-compute where the board profile has compute,
/// else gles-fragment). Errors are for the caller's
/// input: an unknown or unsatisfiable board, a chain or frame size no backend accepts, a frame
/// whose planes the process cannot allocate (std::bad_alloc is caught and named). A GPU
/// backend that cannot start or configure (no EGL display, no GLES 3.1, a shader that does not
/// compile, a frame beyond the board's texture limit: the GLES backends do not tile) is not an
/// error: the cpu backend runs instead and `fallback` names the cause, for the caller's one warning.
Status startBackend(BackendKind kind, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                    std::unique_ptr<Backend>* out, std::string* fallback);

/// The backend `auto` picks on this machine and board for `chain` (any chain when null), and why
/// (striate probe): the fastest that `striate selftest` measured for chains ending in the same
/// kind of stage on this board and renderer (board/measured.h), when it has; else autoRule.
Status autoBackend(const BackendOptions& options, BackendKind* kind, std::string* reason, const Chain* chain = nullptr);

#ifdef STRIATE_HAVE_PROBE
/// auto's rule on a probed machine under a board profile: cpu where the renderer is a software
/// one (Mesa llvmpipe or softpipe run on the same cores, several times slower than the cpu
/// backend); else gles-compute where the board has compute shaders, else gles-fragment.
BackendKind autoRule(const Probe& probe, const BoardLimits& limits, std::string* reason);

/// The fragment backend's limits under the board profile of `options` on this machine, as
/// startBackend applies them, for a backend made inside someone else's context
/// (gles::FragmentBackend::createInCurrentContext: GstGL's). Call it outside that context: the
/// first call probes the machine with a context of its own, made current and released.
Status fragmentLimits(const BackendOptions& options, gles::FragmentLimits* out);
#endif

} // namespace striate
