#pragma once

// The state behind a filter element, shared by filter.cpp (the GObject and GStreamer glue) and
// filter_run.cpp (configuration, fallback and the frames in system memory).

#include <gst/video/video.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "board/backend_choice.h"
#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"
#include "pipeline/filter.h"
#ifdef STRIATE_HAVE_GSTGL
#include "pipeline/gl_chain.h"
#endif

GST_DEBUG_CATEGORY_EXTERN(gst_striate_filter_debug);

namespace striate::gst {

/// What the next frame must do before it runs, least to most: a new need only raises it (need()).
enum class Pending {
    Nothing,   ///< the running configuration is the settings'
    Values,    ///< properties changed: the running backends are configured again in place
    Backends,  ///< backend or board changed, a GPU failed, or stopped: the backends are made anew
    Caps,      ///< new caps: made anew, and inconsistent settings are an error (nothing may stay)
};

/// The C++ state behind a filter element : created in instance_init, deleted in
/// finalize. `mutex` guards the properties; the rest belongs to the streaming thread.
struct FilterState {
    std::mutex mutex;
    Chain settings;  // the chain the properties describe
    Status refused;  // a setting refused as a whole (striatechain's chain string), until the next edit
    BackendKind requested = BackendKind::Auto;
    std::string board = "auto";
    std::string active = "none";
    Pending pending = Pending::Caps;
    bool fellBack = false;  // the running cpu backend stands in for a GPU backend that could not run
    bool gpuFailed = false;  // a GPU backend failed while running: cpu until the backend or board changes
    bool requestChanged = false;  // the backend or board changed since the backend was decided
    std::string inconsistent;  // the settings' problem last warned about while playing

    // Streaming thread only.
    GstVideoInfo in{};
    GstVideoInfo out{};
    Chain chain;
    std::optional<BackendChoice> choice;  // decided once per caps (and per backend or board setting)
    std::unique_ptr<Backend> backend;  // luma, or every full-size plane of a colour blur
    std::unique_ptr<Backend> chroma;   // striateblur on NV12 / NV21 / I420: the half-size chroma planes
    Image<std::uint8_t> luma;          // luma of packed, 16-bit or RGB input; a packed 4:2:2 blur's chroma
    Image<std::uint8_t> channel;
    std::optional<BackendKind> warnedFor;  // the request whose fallback was already reported
    bool glIn = false, glOut = false;  // GL memory caps on the sink / src pad
#ifdef STRIATE_HAVE_GSTGL
    GlChain gl;  // running: frames go texture to texture in GstGL's context, `backend` is unused
#endif
};

FilterState* stateOf(GstStriateFilter* f);
/// Raises what the next frame must do (under the property lock).
inline void need(FilterState* s, Pending p) { s->pending = std::max(s->pending, p); }
/// The settings' problem, if any: a refused setting, or an inconsistent chain.
Status settingsStatus(const FilterState* s);
inline bool keepsFormat(GstBaseTransform* t) { return GST_STRIATE_FILTER_GET_CLASS(t)->keeps_format; }

// filter_run.cpp
/// Decides the backend for the negotiated caps, `requested` and `options` (GL memory on both pads:
/// gles-fragment in GstGL's context where auto or gles-fragment is asked for), once per caps and
/// again only when the backend or board setting changes or a GPU fails. Logged at INFO ("backend
/// decided"). False after posting an error: no backend takes this chain, size or board.
bool decideBackend(GstStriateFilter* f, BackendKind requested, const BackendOptions& options, const Chain& chain);
/// (Re)configures the backends when the properties or the size changed. Returns false after
/// posting an error the application can act on.
bool ensureConfigured(GstStriateFilter* f);
/// GstGL's chain (gles-fragment in GstGL's context) failed while running: one warning, then the
/// cpu backend on mapped frames from this frame on, until the backend or board setting changes
/// (docs/design.md; a backend on mapped frames falls back in processFrame). False if even the cpu
/// backend cannot start.
bool switchToCpu(GstStriateFilter* f, const Status& failure, const char* backend);
/// GstVideoFilter::transform_frame: one frame in system memory.
GstFlowReturn transformFrame(GstVideoFilter* vf, GstVideoFrame* inFrame, GstVideoFrame* outFrame);

} // namespace striate::gst
