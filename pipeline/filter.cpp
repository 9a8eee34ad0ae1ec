#include "pipeline/filter.h"

#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "board/backend_choice.h"
#ifdef STRIATE_HAVE_GLES
#include "board/profile.h"
#endif
#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"
#include "cpu/neon/encode.h"
#include "pipeline/enums.h"
#include "pipeline/formats.h"
#ifdef STRIATE_HAVE_GSTGL
#include "pipeline/gl_chain.h"
#endif

GST_DEBUG_CATEGORY_STATIC(gst_striate_filter_debug);
#define GST_CAT_DEFAULT gst_striate_filter_debug

namespace striate::gst {

/// The C++ state behind a filter element (STYLE.md 6): created in instance_init, deleted in
/// finalize. `mutex` guards the properties; the rest belongs to the streaming thread.
struct FilterState {
    std::mutex mutex;
    Stage stage;
    BackendKind requested = BackendKind::Auto;
    std::string board = "auto";
    std::string active = "none";
    bool dirty = true;  // properties changed since the backend was configured
    bool resized = true;   // caps changed since then: the running configuration cannot stay
    bool reselect = true;  // backend or board changed, or a GPU failed: the backends are made anew
    bool fellBack = false;  // the running cpu backend stands in for a GPU backend that could not run
    std::string inconsistent;  // the settings' problem last warned about while playing

    // Streaming thread only.
    GstVideoInfo in{};
    GstVideoInfo out{};
    Chain chain;
    std::unique_ptr<Backend> backend;  // luma, or every full-size plane of a colour blur
    std::unique_ptr<Backend> chroma;   // striateblur on NV12 / NV21 / I420: the half-size chroma planes
    Image<std::uint8_t> luma;          // luma of packed, 16-bit or RGB input; a packed 4:2:2 blur's chroma
    Image<std::uint8_t> channel;
    std::optional<BackendKind> warnedFor;  // the request whose fallback was already reported
    bool gpuFailed = false;  // a GPU backend failed while running: cpu until the properties change
    bool glIn = false, glOut = false;  // GL memory caps on the sink / src pad
#ifdef STRIATE_HAVE_GSTGL
    GlChain gl;  // running: frames go texture to texture in GstGL's context, `backend` is unused
#endif
};

} // namespace striate::gst

using striate::gst::FilterState;

struct GstStriateFilterPrivate {
    FilterState* state;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstStriateFilter, gst_striate_filter, GST_TYPE_VIDEO_FILTER)

namespace {

using namespace striate;
using namespace striate::gst;

enum { PROP_0, PROP_BACKEND, PROP_BOARD, PROP_ACTIVE_BACKEND };

FilterState* stateOf(GstStriateFilter* f) {
    return static_cast<GstStriateFilterPrivate*>(gst_striate_filter_get_instance_private(f))->state;
}

bool keepsFormat(GstBaseTransform* t) { return GST_STRIATE_FILTER_GET_CLASS(t)->keeps_format; }

GstCaps* transformCaps(GstBaseTransform* t, GstPadDirection direction, GstCaps* caps, GstCaps* filter) {
#ifdef STRIATE_HAVE_GSTGL
    const bool glChain = true;
#else
    const bool glChain = false;
#endif
    GstCaps* result = gst::transformCaps(keepsFormat(t), glChain, direction, caps, filter);
    GST_DEBUG_OBJECT(t, "transformed %" GST_PTR_FORMAT " into %" GST_PTR_FORMAT, static_cast<void*>(caps), static_cast<void*>(result));
    return result;
}

/// striateblur keeps the input format when downstream accepts it (the templates list GRAY8 first).
GstCaps* fixateCaps(GstBaseTransform* t, GstPadDirection direction, GstCaps* caps, GstCaps* othercaps) {
    othercaps = gst_caps_make_writable(othercaps);
    if (direction == GST_PAD_SINK && keepsFormat(t) && !gst_caps_is_empty(othercaps)) {
        const char* in = gst_structure_get_string(gst_caps_get_structure(caps, 0), "format");
        othercaps = gst_caps_truncate(othercaps);
        if (in) gst_structure_fixate_field_string(gst_caps_get_structure(othercaps, 0), "format", in);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->fixate_caps(t, direction, caps, othercaps);
}

gboolean setInfo(GstVideoFilter* vf, GstCaps* incaps, GstVideoInfo* in, GstCaps* outcaps, GstVideoInfo* out) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(vf));
    s->in = *in;
    s->out = *out;
#ifdef STRIATE_HAVE_GSTGL
    s->glIn = gst::isGlMemory(incaps);
    s->glOut = gst::isGlMemory(outcaps);
#else
    (void)incaps;
    (void)outcaps;
#endif
    Status valid;
    {
        std::lock_guard lock(s->mutex);
        s->dirty = s->resized = true;  // a new size needs a new configuration
        valid = validateStage(s->stage);
    }
    if (!valid) {  // refused at caps time, before any frame (posted outside the lock: handlers read properties)
        GST_ELEMENT_ERROR(vf, LIBRARY, SETTINGS, ("Inconsistent settings: %s", valid.message().c_str()), (nullptr));
        return FALSE;
    }
    return TRUE;
}

/// Records the backend that runs, and tells listeners of active-backend when it changed.
void setActive(GstStriateFilter* f, const char* name, const FrameFormat& format) {
    FilterState* s = stateOf(f);
    bool changed;
    {
        std::lock_guard lock(s->mutex);
        changed = s->active != name;
        s->active = name;
    }
    GST_INFO_OBJECT(f, "configured %s backend for %dx%d: %s", name, format.width, format.height,
                    formatChain(s->chain).c_str());
    if (changed) g_object_notify(G_OBJECT(f), "active-backend");
}

/// One warning per request whose GPU backend cannot run (DESIGN.md).
void warnFallback(GstStriateFilter* f, BackendKind requested, const std::string& cause) {
    FilterState* s = stateOf(f);
    if (s->warnedFor != requested)
        GST_ELEMENT_WARNING(f, RESOURCE, SETTINGS, ("%s; using the cpu backend", cause.c_str()),
                            ("requested backend: %s", nickOf(kBackendKinds, requested)));
    s->warnedFor = requested;
    s->fellBack = true;
}

/// (Re)configures the backends when the properties or the size changed. Returns false after
/// posting an error the application can act on.
bool ensureConfigured(GstStriateFilter* f) {
    FilterState* s = stateOf(f);
    BackendKind requested;
    BackendOptions options;
    bool rebuild;
    {
        std::unique_lock lock(s->mutex);
#ifdef STRIATE_HAVE_GSTGL
        if (!s->dirty && (s->backend || s->gl.running())) return true;
#else
        if (!s->dirty && s->backend) return true;
#endif
        if (Status v = validateStage(s->stage); !v) {
            // Inconsistent settings: an error before the first frame or after new caps; while
            // playing, one warning and the running configuration stays until they are consistent.
#ifdef STRIATE_HAVE_GSTGL
            const bool running = s->backend || s->gl.running();
#else
            const bool running = bool(s->backend);
#endif
            const bool warn = running && !s->resized && s->inconsistent != v.message();
            s->inconsistent = v.message();
            lock.unlock();
            if (!running || s->resized) {
                GST_ELEMENT_ERROR(f, LIBRARY, SETTINGS, ("Inconsistent settings: %s", v.message().c_str()), (nullptr));
                return false;
            }
            if (warn)
                GST_ELEMENT_WARNING(f, LIBRARY, SETTINGS,
                                    ("Inconsistent settings: %s; the previous settings stay until they are consistent",
                                     v.message().c_str()),
                                    (nullptr));
            return true;
        }
        s->inconsistent.clear();
        s->chain.stages = {s->stage};
        requested = s->requested;
        options.board = s->board;
        rebuild = s->resized || s->reselect || s->fellBack;
        s->dirty = s->resized = s->reselect = false;
    }
    if (s->gpuFailed) requested = BackendKind::Cpu;
    const FrameFormat format{GST_VIDEO_INFO_WIDTH(&s->in), GST_VIDEO_INFO_HEIGHT(&s->in)};
    const GstVideoFormat inFormat = GST_VIDEO_INFO_FORMAT(&s->in);
    const bool colourBlur = keepsFormat(GST_BASE_TRANSFORM(f)) && GST_VIDEO_INFO_FORMAT(&s->out) == inFormat &&
                            isPlanar420(inFormat);
    const FrameFormat half{GST_VIDEO_INFO_COMP_WIDTH(&s->in, 1), GST_VIDEO_INFO_COMP_HEIGHT(&s->in, 1)};
    if (!rebuild) {
        // Only the stage's values changed: the running backends are configured again in place,
        // keeping their contexts and compiled programs (a GPU backend compiles only what a new
        // structure needs). If that fails they are made anew below.
        Status st = Status::error("not running");
#ifdef STRIATE_HAVE_GSTGL
        if (s->gl.running())
            st = colourBlur ? s->gl.reconfigure(s->chain, format, chromaChain(s->chain), half)
                            : s->gl.reconfigure(s->chain, format);
#endif
        if (s->backend) {
            st = s->backend->configure(s->chain, format);
            if (st && colourBlur) st = s->chroma->configure(chromaChain(s->chain), half);
        }
        if (st) return true;
    }
    s->backend.reset();  // a GPU backend's context goes before the next one is made
    s->fellBack = false;
#ifdef STRIATE_HAVE_GSTGL
    // GL memory on both pads: the fragment backend in GstGL's context, texture to texture. auto
    // picks it on any renderer, software ones included: the frames are textures already.
    s->gl.stop(false);
    if (s->glIn && s->glOut && (requested == BackendKind::Auto || requested == BackendKind::GlesFragment)) {
        // A frame beyond the board's texture limit falls back to cpu, as in startBackend: configure
        // refuses it.
        BackendChoice choice;
        Status st = chooseBackend(requested, options, s->chain, format, Placement::CurrentContext, &choice);
        if (st) {
            st = colourBlur ? s->gl.start(choice, s->chain, format, chromaChain(s->chain), half)
                            : s->gl.start(choice, s->chain, format);
        }
        if (st) {
            setActive(f, nickOf(kBackendKinds, BackendKind::GlesFragment), format);
            return true;
        }
        warnFallback(f, requested,
                     std::string(nickOf(kBackendKinds, BackendKind::GlesFragment)) + " cannot run in GstGL's context: " + st.message());
        requested = BackendKind::Cpu;
    }
#endif
    std::string fallback;
    Status st = startBackend(requested, options, s->chain, format, &s->backend, &fallback);
    if (st && !fallback.empty()) warnFallback(f, requested, fallback);  // a GPU backend that cannot run
    if (st && colourBlur) {
        st = startBackend(BackendKind::Cpu, options, chromaChain(s->chain), half, &s->chroma, &fallback);
    }
    if (!st) {
        GST_ELEMENT_ERROR(f, CORE, NEGOTIATION, ("Cannot filter %dx%d frames: %s", format.width, format.height,
                                                 st.message().c_str()),
                          ("chain: %s", formatChain(s->chain).c_str()));
        s->backend.reset();
        return false;
    }
    if (!lumaInPlace(inFormat)) s->luma.reset(format.width, format.height);
    s->channel.reset(format.width, format.height);
    setActive(f, s->backend->name(), format);
    return true;
}

/// Copies one channel of interleaved 8-bit data into a plane.
void extractChannel(const std::uint8_t* src, int stride, int step, Image<std::uint8_t>* dst) {
    for (int y = 0; y < dst->height(); ++y) {
        const std::uint8_t* p = src + static_cast<std::ptrdiff_t>(y) * stride;
        std::uint8_t* o = dst->row(y);
        for (int x = 0; x < dst->width(); ++x) o[x] = p[x * step];
    }
}

/// A GPU backend failed while running: one warning, then the cpu backend from this frame on,
/// until the properties change (DESIGN.md). False if even the cpu backend cannot start.
bool switchToCpu(GstStriateFilter* f, const Status& failure, const char* backend) {
    FilterState* s = stateOf(f);
    GST_ELEMENT_WARNING(f, RESOURCE, FAILED, ("%s failed: %s; using the cpu backend", backend, failure.message().c_str()),
                        ("backend %s failed while running", backend));
    s->gpuFailed = true;
    {
        std::lock_guard lock(s->mutex);
        s->dirty = s->reselect = true;
    }
    return ensureConfigured(f);
}

/// Runs one frame: `run` calls process() or process8() on the backend it is given. A GPU backend
/// that fails mid-stream (context loss, a GL error) posts one warning and the frame runs again on
/// the cpu backend, which stays until the properties change: the stream goes on and no frame is
/// dropped (DESIGN.md). `backend` follows the switch.
template <class Run>
bool processFrame(GstStriateFilter* f, Backend** backend, Run&& run) {
    FilterState* s = stateOf(f);
    Status st = run(**backend);
    if (st) return true;
    const bool gpu = *backend == s->backend.get() && s->backend->runsOnGpu();
    if (gpu && switchToCpu(f, st, s->backend->name())) {
        *backend = s->backend.get();
        st = run(**backend);
        if (st) return true;
    }
    GST_ELEMENT_ERROR(f, STREAM, FAILED, ("%s", st.message().c_str()), (nullptr));
    return false;
}

/// Runs a backend on a strided 8-bit channel and writes the blurred channel back.
bool blurChannel(GstStriateFilter* f, Backend* backend, Image<std::uint8_t>* scratch, const std::uint8_t* src,
                 int srcStride, int step, std::uint8_t* dst, int dstStride, int w, int h) {
    scratch->reset(w, h);
    extractChannel(src, srcStride, step, scratch);
    const Output8 out{dst, dstStride, step, Encoding{}};
    return processFrame(f, &backend, [&](Backend& b) { return b.process8(scratch->view(), out); });
}

/// striateblur on packed 4:2:2 (Y0 U Y1 V and its orders): the luma every second byte; each
/// chroma channel, half the luma's width and its full height, is taken to the luma's size (linear
/// between neighbours across), blurred there by the luma's backend at the full sigma, and read
/// back at its own sites: so it is blurred at half the sigma across in its own samples and the
/// full sigma down, as the 4:2:0 planes are at half the sigma both ways.
bool blurPacked422(GstStriateFilter* f, GstVideoFormat format, const std::uint8_t* in, int inStride, std::uint8_t* out,
                   int outStride, int W, int H) {
    FilterState* s = stateOf(f);
    const int luma = format == GST_VIDEO_FORMAT_UYVY ? 1 : 0, chroma = 1 - luma;  // first byte of each
    if (!blurChannel(f, s->backend.get(), &s->channel, in + luma, inStride, 2, out + luma, outStride, W, H)) return false;
    const int cw = (W + 1) / 2;
    if (W % 2)  // an odd width's last macropixel: its second Y is padding, copied
        for (int y = 0; y < H; ++y) out[y * outStride + 2 * W + luma] = in[y * inStride + 2 * W + luma];
    for (int c = 0; c < 2; ++c) {
        const int at = chroma + 2 * c;  // byte of this channel in each 4-byte macropixel
        s->channel.reset(W, H);
        for (int y = 0; y < H; ++y) {
            const std::uint8_t* p = in + static_cast<std::ptrdiff_t>(y) * inStride + at;
            std::uint8_t* o = s->channel.row(y);
            for (int k = 0; k < cw; ++k) {
                const int here = p[4 * k], next = k + 1 < cw ? p[4 * (k + 1)] : here;
                o[2 * k] = static_cast<std::uint8_t>(here);
                if (2 * k + 1 < W) o[2 * k + 1] = static_cast<std::uint8_t>((here + next + 1) / 2);
            }
        }
        Backend* backend = s->backend.get();
        const Output8 full{s->luma.data(), s->luma.stride(), 1, Encoding{}};
        if (!processFrame(f, &backend, [&](Backend& b) { return b.process8(s->channel.view(), full); })) return false;
        for (int y = 0; y < H; ++y) {
            const std::uint8_t* b = s->luma.row(y);
            std::uint8_t* o = out + static_cast<std::ptrdiff_t>(y) * outStride + at;
            for (int k = 0; k < cw; ++k) o[4 * k] = b[2 * k];
        }
    }
    return true;
}

GstFlowReturn transformFrame(GstVideoFilter* vf, GstVideoFrame* inFrame, GstVideoFrame* outFrame) {
    auto* f = GST_STRIATE_FILTER(vf);
    FilterState* s = stateOf(f);
    if (!ensureConfigured(f)) return GST_FLOW_ERROR;
    const int W = GST_VIDEO_FRAME_WIDTH(inFrame), H = GST_VIDEO_FRAME_HEIGHT(inFrame);
    const GstVideoFormat inFormat = GST_VIDEO_FRAME_FORMAT(inFrame);
    const GstVideoFormat outFormat = GST_VIDEO_FRAME_FORMAT(outFrame);
    auto* in0 = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(inFrame, 0));
    const int inStride0 = GST_VIDEO_FRAME_PLANE_STRIDE(inFrame, 0);
    auto* out0 = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(outFrame, 0));
    const int outStride0 = GST_VIDEO_FRAME_PLANE_STRIDE(outFrame, 0);

    // A colour blur: every channel (RGB) or every plane (YUV) blurred, alpha or padding copied.
    if (outFormat == inFormat && passesThrough(inFormat)) {
        if (isPacked422(inFormat))
            return blurPacked422(f, inFormat, in0, inStride0, out0, outStride0, W, H) ? GST_FLOW_OK : GST_FLOW_ERROR;
        auto plane = [](GstVideoFrame* fr, int p) { return static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(fr, p)); };
        const int cw = GST_VIDEO_FRAME_COMP_WIDTH(inFrame, 1), ch = GST_VIDEO_FRAME_COMP_HEIGHT(inFrame, 1);
        for (const ColourChannel& c : colourChannels(inFormat))
            if (!blurChannel(f, c.chroma ? s->chroma.get() : s->backend.get(), &s->channel, plane(inFrame, c.plane) + c.component,
                             GST_VIDEO_FRAME_PLANE_STRIDE(inFrame, c.plane), c.components, plane(outFrame, c.plane) + c.component,
                             GST_VIDEO_FRAME_PLANE_STRIDE(outFrame, c.plane), c.chroma ? cw : W, c.chroma ? ch : H))
                return GST_FLOW_ERROR;
        if (isRgb(inFormat))  // alpha or padding as it came
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) out0[y * outStride0 + 4 * x + 3] = in0[y * inStride0 + 4 * x + 3];
        return GST_FLOW_OK;
    }

    // Luma in place (GRAY8, NV12, NV21, I420: plane 0 with its stride); every second byte of
    // packed 4:2:2 (an odd width's last macropixel holds one pixel and padding: its first Y is
    // read); 16-bit grey to the nearest 8-bit code; computed from RGB.
    ImageView<const std::uint8_t> luma(in0, W, H, inStride0);
    if (!lumaInPlace(inFormat)) {
        if (isPacked422(inFormat)) {
            extractChannel(in0 + (inFormat == GST_VIDEO_FORMAT_UYVY), inStride0, 2, &s->luma);
        } else if (inFormat == GST_VIDEO_FORMAT_GRAY16_LE) {
            static_assert(G_BYTE_ORDER == G_LITTLE_ENDIAN, "GRAY16_LE input assumes a little-endian host");
            for (int y = 0; y < H; ++y) {
                const auto* p = reinterpret_cast<const std::uint16_t*>(in0 + static_cast<std::ptrdiff_t>(y) * inStride0);
                std::uint8_t* o = s->luma.row(y);
                for (int x = 0; x < W; ++x) o[x] = code8Of16(p[x]);
            }
        } else {
            const bool bgr = inFormat == GST_VIDEO_FORMAT_BGRA || inFormat == GST_VIDEO_FORMAT_BGRx;
            for (int y = 0; y < H; ++y) {
                const std::uint8_t* p = in0 + static_cast<std::ptrdiff_t>(y) * inStride0;
                std::uint8_t* o = s->luma.row(y);
                for (int x = 0; x < W; ++x, p += 4) o[x] = bgr ? lumaOf(p[2], p[1], p[0]) : lumaOf(p[0], p[1], p[2]);
            }
        }
        luma = s->luma.view();
    }
    Backend* backend = s->backend.get();
    const Encoding e = s->chain.encoding();
    if (outFormat == GST_VIDEO_FORMAT_GRAY16_LE) {
        static_assert(G_BYTE_ORDER == G_LITTLE_ENDIAN, "GRAY16_LE output assumes a little-endian host");
        return processFrame(f, &backend, [&](Backend& b) {
            ChainOutput r;
            Status st = b.process(luma, &r);
            if (st) cpu::encodePlane16(r.real, e, reinterpret_cast<std::uint16_t*>(out0), outStride0);
            return st;
        }) ? GST_FLOW_OK : GST_FLOW_ERROR;
    }
    const Output8 out{out0, outStride0, 1, e};
    if (!processFrame(f, &backend, [&](Backend& b) { return b.process8(luma, out); })) return GST_FLOW_ERROR;
    return GST_FLOW_OK;
}

#ifdef STRIATE_HAVE_GSTGL
/// GL memory through the GstGL chain when it runs; otherwise the video filter maps the frames
/// (GstGL downloads and uploads) and transformFrame runs the backend.
GstFlowReturn transform(GstBaseTransform* t, GstBuffer* in, GstBuffer* out) {
    auto* f = GST_STRIATE_FILTER(t);
    FilterState* s = stateOf(f);
    if (!ensureConfigured(f)) return GST_FLOW_ERROR;
    if (s->gl.running()) {
        const Status st = s->gl.process(in, s->in, out, s->out, s->chain.encoding());
        if (st) return GST_FLOW_OK;
        if (!switchToCpu(f, st, (std::string(nickOf(kBackendKinds, BackendKind::GlesFragment)) + " in GstGL's context").c_str()))
            return GST_FLOW_ERROR;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->transform(t, in, out);
}

/// GL memory out: a GstGL buffer pool of the chain's context (whatever backend runs).
gboolean decideAllocation(GstBaseTransform* t, GstQuery* query) {
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    if (gst::isGlMemory(caps)) return stateOf(GST_STRIATE_FILTER(t))->gl.decideAllocation(t, query);
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->decide_allocation(t, query);
}

gboolean query(GstBaseTransform* t, GstPadDirection direction, GstQuery* q) {
    if (GST_QUERY_TYPE(q) == GST_QUERY_CONTEXT && stateOf(GST_STRIATE_FILTER(t))->gl.answerContextQuery(GST_ELEMENT(t), q))
        return TRUE;
    return GST_BASE_TRANSFORM_CLASS(gst_striate_filter_parent_class)->query(t, direction, q);
}

void setContext(GstElement* element, GstContext* context) {
    stateOf(GST_STRIATE_FILTER(element))->gl.setContext(element, context);
    GST_ELEMENT_CLASS(gst_striate_filter_parent_class)->set_context(element, context);
}
#endif

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(object));
    switch (id) {
    case PROP_BACKEND: {
        std::lock_guard lock(s->mutex);
        s->requested = static_cast<BackendKind>(g_value_get_enum(value));
        s->dirty = s->reselect = true;
        s->gpuFailed = false;
        break;
    }
    case PROP_BOARD: {
        const char* v = g_value_get_string(value);
        // The board sets the GPU's limits when the backend starts: NULL or READY only (as
        // documented), not a value that silently waits for the next start.
        if (GST_STATE(GST_ELEMENT(object)) > GST_STATE_READY) {
            g_warning("%s: refusing board '%s' in the %s state: the board changes in the NULL or READY state only; "
                      "the previous value stays",
                      GST_OBJECT_NAME(object), v ? v : "", gst_element_state_get_name(GST_STATE(GST_ELEMENT(object))));
            break;
        }
#ifdef STRIATE_HAVE_GLES
        if (v && *v && std::string_view(v) != "auto" && !findBoardProfile(v)) {
            g_warning("%s: refusing board '%s': not a board profile (%s); the previous value stays", GST_OBJECT_NAME(object),
                      v, boardNames().c_str());
            break;
        }
#endif
        std::lock_guard lock(s->mutex);
        s->board = v && *v ? v : "auto";
        s->dirty = s->reselect = true;
        s->gpuFailed = false;
        break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(object));
    std::lock_guard lock(s->mutex);
    switch (id) {
    case PROP_BACKEND: g_value_set_enum(value, static_cast<gint>(s->requested)); break;
    case PROP_BOARD: g_value_set_string(value, s->board.c_str()); break;
    case PROP_ACTIVE_BACKEND: g_value_set_string(value, s->active.c_str()); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

gboolean stop(GstBaseTransform* t) {
    FilterState* s = stateOf(GST_STRIATE_FILTER(t));
    s->backend.reset();
    s->chroma.reset();
#ifdef STRIATE_HAVE_GSTGL
    s->gl.stop(true);
#endif
    std::lock_guard lock(s->mutex);
    s->dirty = s->reselect = true;
    return TRUE;
}

void finalize(GObject* object) {
    delete stateOf(GST_STRIATE_FILTER(object));
    G_OBJECT_CLASS(gst_striate_filter_parent_class)->finalize(object);
}

} // namespace

static void gst_striate_filter_class_init(GstStriateFilterClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_striate_filter_debug, "striatefilter", 0, "striate filter base");
    auto* gobject = G_OBJECT_CLASS(klass);
    gobject->set_property = setProperty;
    gobject->get_property = getProperty;
    gobject->finalize = finalize;
    g_object_class_install_property(
        gobject, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where the filter runs: auto picks the best for the board; a GPU backend that "
                          "cannot run falls back to cpu with a warning",
                          gst_striate_backend_get_type(), static_cast<gint>(BackendKind::Auto),
                          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING)));
#ifdef STRIATE_HAVE_GLES
    const std::string boards = boardNames();
#else
    const std::string boards = "auto (this build has no GLES: the cpu backend runs)";
#endif
    // The blurb must outlive the class: an interned copy.
    const char* blurb = g_intern_string(("Board profile that caps what the GPU backends use: " + boards +
                                         " (auto: STRIATE_BOARD, else the device-tree model, else host)")
                                            .c_str());
    g_object_class_install_property(
        gobject, PROP_BOARD,
        g_param_spec_string("board", "Board", blurb, "auto",
                            static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                     GST_PARAM_MUTABLE_READY)));
    g_object_class_install_property(
        gobject, PROP_ACTIVE_BACKEND,
        g_param_spec_string("active-backend", "Active backend", "The backend that actually runs (none before the first frame)",
                            "none", static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    auto* trans = GST_BASE_TRANSFORM_CLASS(klass);
    trans->transform_caps = transformCaps;
    trans->fixate_caps = fixateCaps;
    trans->stop = stop;
#ifdef STRIATE_HAVE_GSTGL
    trans->transform = transform;
    trans->decide_allocation = decideAllocation;
    trans->query = query;
    GST_ELEMENT_CLASS(klass)->set_context = setContext;
#endif
    auto* video = GST_VIDEO_FILTER_CLASS(klass);
    video->set_info = setInfo;
    video->transform_frame = transformFrame;
    gst_type_mark_as_plugin_api(gst_striate_backend_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_STRIATE_FILTER, static_cast<GstPluginAPIFlags>(0));
}

static void gst_striate_filter_init(GstStriateFilter* f) {
    static_cast<GstStriateFilterPrivate*>(gst_striate_filter_get_instance_private(f))->state = new FilterState();
}

namespace striate::gst {

/// Pad templates of a filter subclass: every input format; grey (or, for striateblur, the input
/// format as well) out.
void addPadTemplates(GstElementClass* klass, bool keepsFormat) {
#ifdef STRIATE_HAVE_GSTGL
    const bool glOut = true;
#else
    const bool glOut = false;
#endif
    GstCaps* sink = gst_caps_from_string(templateCaps(true, true).c_str());
    GstCaps* src = gst_caps_from_string(templateCaps(keepsFormat, glOut).c_str());
    gst_element_class_add_pad_template(klass, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
    gst_element_class_add_pad_template(klass, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
    gst_caps_unref(sink);
    gst_caps_unref(src);
}

void editStage(GstStriateFilter* filter, const std::function<void(Stage&)>& edit) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    edit(s->stage);
    s->dirty = true;
}

Stage currentStage(GstStriateFilter* filter) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    return s->stage;
}

void setInitialStage(GstStriateFilter* filter, const Stage& stage) {
    FilterState* s = stateOf(filter);
    std::lock_guard lock(s->mutex);
    s->stage = stage;
}

} // namespace striate::gst
