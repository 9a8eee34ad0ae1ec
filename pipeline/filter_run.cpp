// The filter elements' configuration and frames in system memory: backends (re)configured as the
// settings and caps change, the cpu fallback, and the per-format frame work.
#include <string>

#include "board/backend_choice.h"
#include "cpu/neon/encode.h"
#include "pipeline/filter_state.h"
#include "pipeline/formats.h"
#include "pipeline/frames.h"

#define GST_CAT_DEFAULT gst_striate_filter_debug

namespace striate::gst {
namespace {

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

/// One warning per request whose GPU backend cannot run (docs/design.md).
void warnFallback(GstStriateFilter* f, BackendKind requested, const std::string& cause) {
    FilterState* s = stateOf(f);
    if (s->warnedFor != requested)
        GST_ELEMENT_WARNING(f, RESOURCE, SETTINGS, ("%s; using the cpu backend", cause.c_str()),
                            ("requested backend: %s", nickOf(kBackendKinds, requested)));
    s->warnedFor = requested;
    s->fellBack = true;
}

} // namespace

bool decideBackend(GstStriateFilter* f, BackendKind requested, const BackendOptions& options, const Chain& chain) {
    FilterState* s = stateOf(f);
    const FrameFormat format{GST_VIDEO_INFO_WIDTH(&s->in), GST_VIDEO_INFO_HEIGHT(&s->in)};
    const bool textures = s->glIn && s->glOut && (requested == BackendKind::Auto || requested == BackendKind::GlesFragment);
    BackendChoice choice;
    if (Status st = chooseBackend(requested, options, chain, format,
                                  textures ? Placement::CurrentContext : Placement::OwnContext, &choice);
        !st) {
        s->choice.reset();
        GST_ELEMENT_ERROR(f, CORE, NEGOTIATION, ("Cannot filter %dx%d frames: %s", format.width, format.height,
                                                 st.message().c_str()),
                          ("chain: %s", formatChain(chain).c_str()));
        return false;
    }
    GST_INFO_OBJECT(f, "backend decided for %dx%d: %s%s (asked for %s)%s%s", format.width, format.height,
                    nickOf(kBackendKinds, choice.kind),
                    choice.placement == Placement::CurrentContext ? " in GstGL's context" : "",
                    nickOf(kBackendKinds, requested), choice.fallback.empty() ? "" : ": ", choice.fallback.c_str());
    s->choice = std::move(choice);
    return true;
}

namespace {

bool running(const FilterState* s) {
#ifdef STRIATE_HAVE_GSTGL
    if (s->gl.running()) return true;
#endif
    return s->backend != nullptr;
}

/// What the next frame must do before it runs, from the settings.
struct Work {
    enum What { Nothing, Fail, Values, Backends } what = Nothing;
    BackendKind requested = BackendKind::Auto;  ///< for a new decision
    BackendOptions options;
    bool decide = false;  ///< the backend or board changed, or nothing was decided since stop
};

/// Takes the settings into the chain that runs (under the property lock). Inconsistent settings
/// are an error before the first frame or after new caps; while playing, one warning, and the
/// running configuration stays until they are consistent.
Work takeSettings(GstStriateFilter* f) {
    FilterState* s = stateOf(f);
    std::unique_lock lock(s->mutex);
    if (s->pending == Pending::Nothing && running(s)) return {};
    if (Status v = settingsStatus(s); !v) {
        const bool keep = running(s) && s->pending != Pending::Caps;
        const bool warn = keep && s->inconsistent != v.message();
        s->inconsistent = v.message();
        lock.unlock();  // handlers of the message read properties
        if (!keep) {
            GST_ELEMENT_ERROR(f, LIBRARY, SETTINGS, ("Inconsistent settings: %s", v.message().c_str()), (nullptr));
            Work failed;
            failed.what = Work::Fail;
            return failed;
        }
        if (warn)
            GST_ELEMENT_WARNING(f, LIBRARY, SETTINGS,
                                ("Inconsistent settings: %s; the previous settings stay until they are consistent",
                                 v.message().c_str()),
                                (nullptr));
        return {};
    }
    s->inconsistent.clear();
    s->chain = s->settings;
    Work w;
    w.what = s->pending >= Pending::Backends || s->fellBack ? Work::Backends : Work::Values;
    w.requested = s->gpuFailed ? BackendKind::Cpu : s->requested;
    w.options.board = s->board;
    w.decide = s->requestChanged || !s->choice;
    s->requestChanged = false;
    s->pending = Pending::Nothing;
    return w;
}

/// The frame's planes: the luma's (or every full-size plane's), and a colour blur's half-size
/// chroma planes (4:2:0).
struct Sizes {
    FrameFormat full, half;
    bool colourBlur = false;  ///< striateblur keeping a 4:2:0 format: `half` runs on the chroma backend
};

Sizes sizesOf(GstStriateFilter* f) {
    const FilterState* s = stateOf(f);
    const GstVideoFormat in = GST_VIDEO_INFO_FORMAT(&s->in);
    return {{GST_VIDEO_INFO_WIDTH(&s->in), GST_VIDEO_INFO_HEIGHT(&s->in)},
            {GST_VIDEO_INFO_COMP_WIDTH(&s->in, 1), GST_VIDEO_INFO_COMP_HEIGHT(&s->in, 1)},
            keepsFormat(GST_BASE_TRANSFORM(f)) && GST_VIDEO_INFO_FORMAT(&s->out) == in && isPlanar420(in)};
}

/// Only the stage's values changed: the running backends are configured again in place, keeping
/// their contexts and compiled programs (a GPU backend compiles only what a new structure needs).
Status reconfigureInPlace(FilterState* s, const Sizes& z) {
#ifdef STRIATE_HAVE_GSTGL
    if (s->gl.running())
        return z.colourBlur ? s->gl.reconfigure(s->chain, z.full, chromaChain(s->chain), z.half)
                            : s->gl.reconfigure(s->chain, z.full);
#endif
    if (!s->backend) return Status::error("not running");
    Status st = s->backend->configure(s->chain, z.full);
    if (st && z.colourBlur) st = s->chroma->configure(chromaChain(s->chain), z.half);
    return st;
}

#ifdef STRIATE_HAVE_GSTGL
/// The choice made in GstGL's context (GL memory on both pads): texture to texture.
Status startInGl(FilterState* s, const BackendChoice& choice, const Sizes& z) {
    return z.colourBlur ? s->gl.start(choice, s->chain, z.full, chromaChain(s->chain), z.half)
                        : s->gl.start(choice, s->chain, z.full);
}
#endif

/// The choice made for mapped frames (system memory, or GL memory GstGL maps), with a colour
/// blur's chroma backend on the cpu. False after posting an error.
bool startMapped(GstStriateFilter* f, const BackendChoice& choice, const Sizes& z) {
    FilterState* s = stateOf(f);
    std::string fallback;
    Status st = startChosen(choice, s->chain, z.full, &s->backend, &fallback);
    if (st && !fallback.empty()) warnFallback(f, choice.requested, fallback);  // a GPU backend that cannot run
    if (st && z.colourBlur)
        st = startChosen(BackendChoice::cpu(choice.options), chromaChain(s->chain), z.half, &s->chroma, &fallback);
    if (!st) {
        GST_ELEMENT_ERROR(f, CORE, NEGOTIATION, ("Cannot filter %dx%d frames: %s", z.full.width, z.full.height,
                                                 st.message().c_str()),
                          ("chain: %s", formatChain(s->chain).c_str()));
        s->backend.reset();
        return false;
    }
    if (!lumaInPlace(GST_VIDEO_INFO_FORMAT(&s->in))) s->luma.reset(z.full.width, z.full.height);
    s->channel.reset(z.full.width, z.full.height);
    setActive(f, s->backend->name(), z.full);
    return true;
}

} // namespace

bool ensureConfigured(GstStriateFilter* f) {
    FilterState* s = stateOf(f);
    const Work w = takeSettings(f);
    if (w.what == Work::Nothing) return true;
    if (w.what == Work::Fail) return false;
    const Sizes z = sizesOf(f);
    if (w.what == Work::Values && reconfigureInPlace(s, z)) return true;  // else made anew below
    if (w.decide && !decideBackend(f, w.requested, w.options, s->chain)) return false;
    s->backend.reset();  // a GPU backend's context goes before the next one is made
    s->fellBack = false;
    BackendChoice choice = *s->choice;
#ifdef STRIATE_HAVE_GSTGL
    s->gl.stop(false);
    if (choice.placement == Placement::CurrentContext) {
        // No GstGL context, a plan beyond the memory the board lends: the cpu backend on mapped
        // frames.
        const Status st = startInGl(s, choice, z);
        if (st) {
            setActive(f, nickOf(kBackendKinds, choice.kind), z.full);
            return true;
        }
        warnFallback(f, choice.requested,
                     std::string(nickOf(kBackendKinds, choice.kind)) + " cannot run in GstGL's context: " + st.message());
        choice = BackendChoice::cpu(choice.options);
    }
#endif
    return startMapped(f, choice, z);
}

namespace {

/// A GPU backend failed while running: one warning; the cpu backend from then on, until the
/// backend or board setting changes (docs/design.md).
/// `warning`: the failure and what follows (runWithCpuFallback's words).
void warnGpuFailed(GstStriateFilter* f, const char* backend, const std::string& warning) {
    FilterState* s = stateOf(f);
    GST_ELEMENT_WARNING(f, RESOURCE, FAILED, ("%s failed: %s", backend, warning.c_str()),
                        ("backend %s failed while running", backend));
    std::lock_guard lock(s->mutex);
    s->gpuFailed = true;
}

} // namespace

bool switchToCpu(GstStriateFilter* f, const Status& failure, const char* backend) {
    FilterState* s = stateOf(f);
    warnGpuFailed(f, backend, failure.message() + "; using the cpu backend");
    {
        std::lock_guard lock(s->mutex);
        s->requestChanged = true;  // decided again: the cpu
        need(s, Pending::Backends);
    }
    return ensureConfigured(f);
}

namespace {

/// Runs one frame: `run` calls process() or process8() on the backend it is given. A GPU backend
/// that fails mid-stream (context loss, a GL error) is replaced by the cpu backend, which runs the
/// frame again (runWithCpuFallback, the tool's and the Python module's rule too) and stays: one
/// warning, the stream goes on and no frame is dropped. `backend` follows the switch.
template <class Run>
bool processFrame(GstStriateFilter* f, Backend** backend, Run&& run) {
    FilterState* s = stateOf(f);
    Status st;
    if (*backend == s->backend.get()) {
        const char* const gpu = s->backend->name();  // a literal: it outlives the backend
        std::string warning;
        st = runWithCpuFallback(&s->backend, s->choice->options, s->chain, sizesOf(f).full, run, &warning);
        if (!warning.empty()) {
            warnGpuFailed(f, gpu, warning);
            s->choice = BackendChoice::cpu(s->choice->options);  // as decided with gpuFailed
            setActive(f, s->backend->name(), sizesOf(f).full);
            *backend = s->backend.get();
        }
    } else {
        st = run(**backend);  // a colour blur's chroma backend: the cpu's
    }
    if (st) return true;
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
    if (W % 2)  // an odd width's last macropixel: its second Y is padding, copied
        for (int y = 0; y < H; ++y) out[y * outStride + 2 * W + luma] = in[y * inStride + 2 * W + luma];
    for (int c = 0; c < 2; ++c) {
        const int at = chroma + 2 * c;  // byte of this channel in each 4-byte macropixel
        widenChroma422(in, inStride, at, W, H, &s->channel);
        Backend* backend = s->backend.get();
        const Output8 full{s->luma.data(), s->luma.stride(), 1, Encoding{}};
        if (!processFrame(f, &backend, [&](Backend& b) { return b.process8(s->channel.view(), full); })) return false;
        narrowChroma422(s->luma.view(), out, outStride, at);
    }
    return true;
}

} // namespace

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

    // Luma in place (GRAY8, NV12, NV21, I420: plane 0 with its stride); else read per the
    // format's table entry (frames.cpp; an odd width's last 4:2:2 macropixel holds one pixel and
    // padding: its first Y is read).
    ImageView<const std::uint8_t> luma(in0, W, H, inStride0);
    if (!lumaInPlace(inFormat)) {
        const FormatTraits* traits = traitsOf(inFormat);
        if (!traits) {
            GST_ELEMENT_ERROR(f, CORE, NEGOTIATION, ("Cannot read the luma of %s frames", gst_video_format_to_string(inFormat)),
                              (nullptr));
            return GST_FLOW_NOT_NEGOTIATED;
        }
        readLuma(*traits, in0, inStride0, &s->luma);
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

} // namespace striate::gst
