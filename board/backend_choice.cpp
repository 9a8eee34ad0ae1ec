#include "board/backend_choice.h"

#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "core/params.h"
#include "cpu/neon/cpu_backend.h"
#include "cpu/reference/reference.h"
#ifdef STRIATE_HAVE_GLES
#include "board/estimates.h"
#include "board/measured.h"
#include "board/probe.h"
#include "board/profile.h"
#include "gles/texture_backend.h"
#endif

namespace striate {
namespace {

Status startCpu(const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                std::unique_ptr<Backend>* out) {
    auto cpu = std::make_unique<cpu::CpuBackend>(options.threads);
    if (Status s = cpu->configure(chain, format); !s) return s;
    *out = std::move(cpu);
    return {};
}

#ifdef STRIATE_HAVE_GLES
/// The probe, once per process: it makes and drops a GLES context.
const Probe& machine() {
    // On a thread of its own, joined: the EGL and GL dispatch state the probe's context leaves
    // behind dies with that thread, not with a GStreamer streaming thread that may still be
    // exiting when the process does (glibc's "double free or corruption" at exit: 8 of 120
    // gst-launch runs of a cpu colour blur under load, where the probe was all the EGL there was).
    static const Probe probe = [] {
        Probe p;
        std::thread([&p] { p = probeMachine(); }).join();
        return p;
    }();
    return probe;
}

/// Whether a GLES backend of `kind` can run `chain` on `format` frames under the board's limits,
/// decided before it is made: compute shaders for gles-compute, the texture limit (the GLES
/// backends do not tile: the cpu backend takes a larger frame) and the hysteresis's area.
Status gpuTakes(BackendKind kind, const BoardLimits& limits, const Chain& chain, const FrameFormat& format) {
    if (kind == BackendKind::GlesCompute && !limits.compute)
        return Status::error("gles-compute needs GLES 3.1 compute shaders; board '" + limits.profile + "' has none");
    return gles::validateFrameFor(kind, limits, chain, format);
}

/// A GLES backend of `kind` under the board's limits, or the reason it cannot run (the memory its
/// plan needs beyond what the board lends, a driver that fails).
Status startGles(BackendKind kind, const BoardLimits& limits, const gles::FragmentOptions& forms, const Chain& chain,
                 const FrameFormat& format, std::unique_ptr<Backend>* out) {
    std::unique_ptr<Backend> b;
    if (Status s = gles::createBackend(kind, limits, forms, &b); !s) return s;
    if (Status s = b->configure(chain, format); !s) return s;
    *out = std::move(b);
    return {};
}
#endif

} // namespace

#ifdef STRIATE_HAVE_GLES
std::vector<BackendKind> boardBackends(const BoardLimits& limits) {
    std::vector<BackendKind> allowed = {BackendKind::Cpu, BackendKind::GlesFragment};
    if (limits.compute) allowed.push_back(BackendKind::GlesCompute);
    return allowed;
}

BackendKind autoRule(const Probe& probe, const BoardLimits& limits, const Chain* chain, std::string* reason) {
    if (probe.softwareRenderer) {
        *reason = probe.renderer + " is a software renderer: it runs on the same cores as the cpu backend, several "
                  "times slower";
        return BackendKind::Cpu;
    }
    const std::string board = "board '" + limits.profile + "'";
    std::string sums;
    if (const auto lowest = fastestMeasured(boardEstimates(limits.profile), chain, boardBackends(limits), &sums)) {
        *reason = "the lower estimate on " + board + " for " +
                  (chain && !chain->stages.empty() ? "chains ending in " + std::string(stageName(chain->stages.back()))
                                                   : std::string("the main chains")) +
                  " (" + sums + ", summed over the sizes; board/estimates.tsv, docs/boards.md)";
        return *lowest;
    }
    if (limits.compute) {
        *reason = board + " has GLES 3.1 compute shaders";
        return BackendKind::GlesCompute;
    }
    *reason = board + " has GLES " + std::to_string(limits.glesMajor) + "." + std::to_string(limits.glesMinor) +
              " without compute shaders";
    return BackendKind::GlesFragment;
}
#endif

Status autoBackend(const BackendOptions& options, BackendKind* kind, std::string* reason, const Chain* chain) {
#ifdef STRIATE_HAVE_GLES
    const Probe& probe = machine();
    if (!probe.gpu) {
        *kind = BackendKind::Cpu;
        *reason = "no GLES context: " + probe.gpuError;
        return {};
    }
    BoardLimits limits;
    if (Status s = resolveBoard(options.board, probe, &limits); !s) return s;
    const std::string path = measurementsPath(limits.profile, probe.renderer);
    Measurements measured;
    std::string sums;
    if (readMeasurements(path, &measured))
        if (const auto fastest = fastestMeasured(measured, chain, boardBackends(limits), &sums)) {
            *kind = *fastest;
            *reason = "measured fastest on board '" + limits.profile + "' by striate selftest (" + sums + "; " + path + ")";
            return {};
        }
    *kind = autoRule(probe, limits, chain, reason);
    *reason += " (rule: nothing measured in " + path + "; striate selftest measures)";
    return {};
#else
    (void)options;
    (void)chain;
    *kind = BackendKind::Cpu;
    *reason = "this build has no GLES support";
    return {};
#endif
}

Status chooseBackend(BackendKind kind, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                     Placement placement, BackendChoice* out) {
    *out = BackendChoice::cpu(options);
    out->requested = kind;
    if (Status s = chain.validate(); !s) return s;
    if (Status s = validateFrameFormat(format); !s) return s;
#ifdef STRIATE_HAVE_GLES
    // A misspelt board is an error whichever backend runs, not something a cpu run ignores.
    if (!options.board.empty() && options.board != "auto" && !findBoardProfile(options.board)) {
        const BoardProfile* unused = nullptr;
        std::string chosenBy;
        return chooseBoardProfile(options.board, Probe{}, &unused, &chosenBy);
    }
#endif
    if (placement == Placement::CurrentContext) {
        if (kind != BackendKind::Auto && kind != BackendKind::GlesFragment)
            return Status::error(std::string("only gles-fragment runs in the caller's GLES context; ") +
                                 nickOf(kBackendKinds, kind) + " was asked for");
        kind = BackendKind::GlesFragment;
    } else if (kind == BackendKind::Auto) {
        std::string reason;
        if (Status s = autoBackend(options, &kind, &reason, &chain); !s) return s;
    }
    if (kind != BackendKind::GlesCompute && kind != BackendKind::GlesFragment) {
        out->kind = kind;
        return {};
    }
#ifdef STRIATE_HAVE_GLES
    const Probe& probe = machine();
    if (probe.gpu) {
        if (Status s = resolveBoard(options.board, probe, &out->limits); !s) return s;
        // The GPU's limits are refused here, in the decision: the cpu backend, `fallback` naming why.
        if (Status s = gpuTakes(kind, out->limits, chain, format); !s) {
            out->fallback = s.message();
            return {};
        }
        out->kind = kind;
        out->placement = placement;
        return {};
    }
    out->fallback = "no GLES context: " + probe.gpuError;
#else
    out->fallback = std::string("backend '") + nickOf(kBackendKinds, kind) + "' is not available: this build has no GLES support";
#endif
    return {};  // the cpu backend, as BackendChoice::cpu made it
}

namespace {

Status startUnguarded(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                      std::unique_ptr<Backend>* out, std::string* fallback) {
    *fallback = choice.fallback;
    switch (choice.kind) {
    case BackendKind::Reference: {
        auto r = std::make_unique<reference::ReferenceBackend>();
        if (Status s = r->configure(chain, format); !s) return s;
        *out = std::move(r);
        return {};
    }
    case BackendKind::GlesCompute:
    case BackendKind::GlesFragment: {
#ifdef STRIATE_HAVE_GLES
        const Status s = startGles(choice.kind, choice.limits, choice.fragment, chain, format, out);
        if (s) return s;
        *fallback = s.message();
#endif
        break;
    }
    case BackendKind::Auto:
    case BackendKind::Cpu: break;
    }
    return startCpu(choice.options, chain, format, out);
}

} // namespace

Status startChosen(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                   std::unique_ptr<Backend>* out, std::string* fallback) {
    // A backend's planes for a large frame can exceed what the process may allocate (a 32-bit
    // board, a memory limit): an error naming the frame, never an exception through GStreamer.
    try {
        return startUnguarded(choice, chain, format, out, fallback);
    } catch (const std::bad_alloc&) {
        out->reset();
        return Status::error("not enough memory for " + std::to_string(format.width) + "x" +
                             std::to_string(format.height) + " frames of '" + formatChain(chain) + "'");
    } catch (const std::system_error& e) {  // std::thread: no thread could be started
        out->reset();
        return Status::error(std::string("cannot start the backend's threads: ") + e.what());
    }
}

Status startBackend(BackendKind kind, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                    std::unique_ptr<Backend>* out, std::string* fallback) {
    return startBackendWithForms(kind, options, gles::FragmentOptions{}, chain, format, out, fallback);
}

Status startBackendWithForms(BackendKind kind, const BackendOptions& options, const gles::FragmentOptions& forms,
                             const Chain& chain, const FrameFormat& format, std::unique_ptr<Backend>* out,
                             std::string* fallback) {
    BackendChoice choice;
    if (Status s = chooseBackend(kind, options, chain, format, Placement::OwnContext, &choice); !s) return s;
    choice.fragment = forms;
    return startChosen(choice, chain, format, out, fallback);
}

#ifdef STRIATE_HAVE_GLES
Status startInCurrentContext(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                             std::unique_ptr<gles::TextureBackend>* out, std::shared_ptr<gles::ProgramCache> programs) {
    if (choice.kind != BackendKind::GlesFragment)
        return Status::error(choice.fallback.empty() ? "only gles-fragment runs in the caller's GLES context" : choice.fallback);
    std::unique_ptr<gles::TextureBackend> b;
    if (Status s = gles::createTextureBackend(choice.limits, choice.fragment, &b, std::move(programs)); !s) return s;
    if (Status s = b->configure(chain, format); !s) return s;
    *out = std::move(b);
    return {};
}
#endif

} // namespace striate
