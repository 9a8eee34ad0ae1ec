#include "pipeline/gl_chain.h"

#include <string>
#include <utility>

#include "board/backend_choice.h"
#include "gles/texture_backend.h"
#include "pipeline/formats.h"

GST_DEBUG_CATEGORY_STATIC(striate_gl_debug);
#define GST_CAT_DEFAULT striate_gl_debug

namespace striate::gst {
namespace {

void initDebug() {
    static std::once_flag once;
    std::call_once(once, [] { GST_DEBUG_CATEGORY_INIT(striate_gl_debug, "striategl", 0, "striate chains in GstGL"); });
}

using Source = gles::TextureBackend::TextureFrame::Source;

/// Where the luma of a texel is (the format table's LumaSource): GstGL holds packed 4:2:2 in an
/// RG texture of the frame's width, (Y, U or V) or (U or V, Y) per texel, and GRAY16_LE in an RG
/// texture of its two bytes. Negotiation admits only the table's formats.
Source lumaSource(GstVideoFormat f) {
    switch (traitsOf(f)->luma) {
    case LumaSource::Byte0: return Source::Red;
    case LumaSource::Byte1: return Source::Green;
    case LumaSource::Gray16: return Source::Gray16;
    case LumaSource::Rgb: return Source::Rgb;
    case LumaSource::Bgr: return Source::Bgr;
    }
    return Source::Red;
}

} // namespace

GlChain::GlChain() = default;

bool isGlMemory(GstCaps* caps) {
    if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
    GstCapsFeatures* f = gst_caps_get_features(caps, 0);
    return f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
}

GlChain::~GlChain() { stop(true); }

template <class Work>
void GlChain::onGlThread(Work&& work) {
    auto trampoline = [](GstGLContext*, gpointer data) { (*static_cast<Work*>(data))(); };
    gst_gl_context_thread_add(context_, trampoline, &work);
}

void GlChain::setContext(GstElement* element, GstContext* context) {
    std::lock_guard lock(mutex_);
    gst_gl_handle_set_context(element, context, &display_, &other_);
}

bool GlChain::answerContextQuery(GstElement* element, GstQuery* query) {
    std::lock_guard lock(mutex_);
    return gst_gl_handle_context_query(element, query, display_, context_, other_);
}

bool GlChain::ensureContext(GstElement* element) {
    initDebug();
    std::lock_guard lock(mutex_);
    if (!gst_gl_ensure_element_data(element, &display_, &other_)) {
        GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("Cannot find a GL display for GL memory"), (nullptr));
        return false;
    }
    if (context_) return true;
    // Upstream's context (glupload's) first: its textures are ours to read without sharing.
    if (gst_gl_query_local_gl_context(element, GST_PAD_SINK, &context_) ||
        gst_gl_query_local_gl_context(element, GST_PAD_SRC, &context_)) {
        GST_INFO_OBJECT(element, "running in the neighbours' GL context %" GST_PTR_FORMAT, static_cast<void*>(context_));
        return true;
    }
    GError* error = nullptr;
    GST_OBJECT_LOCK(display_);
    do {
        if (context_) gst_object_unref(context_);
        context_ = gst_gl_display_get_gl_context_for_thread(display_, nullptr);
        if (!context_ && !gst_gl_display_create_context(display_, other_, &context_, &error)) break;
    } while (!gst_gl_display_add_context(display_, context_));
    GST_OBJECT_UNLOCK(display_);
    if (!context_) {
        GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("Cannot create a GL context: %s", error ? error->message : "unknown"),
                          (nullptr));
        g_clear_error(&error);
        return false;
    }
    return true;
}

bool GlChain::decideAllocation(GstBaseTransform* transform, GstQuery* query) {
    if (!ensureContext(GST_ELEMENT(transform))) return false;
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps)) return false;
    GstBufferPool* pool = nullptr;
    guint size = static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), min = 0, max = 0;
    const bool update = gst_query_get_n_allocation_pools(query) > 0;
    if (update) gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
    if (!pool || !GST_IS_GL_BUFFER_POOL(pool)) {
        if (pool) gst_object_unref(pool);
        pool = gst_gl_buffer_pool_new(context_);
    }
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (gst_query_find_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, nullptr))
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
    const bool configured = gst_buffer_pool_set_config(pool, config);
    if (update) gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
    else gst_query_add_allocation_pool(query, pool, size, min, max);
    gst_object_unref(pool);
    return configured;
}

Status GlChain::start(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                      const Chain& chromaChain, const FrameFormat& chromaFormat) {
    if (!context_) return Status::error("no GstGL context");
    if (!(gst_gl_context_get_gl_api(context_) & GST_GL_API_GLES2))
        return Status::error("GstGL's context is desktop OpenGL, not OpenGL ES (set GST_GL_API=gles2)");
    stop(false);
    Status result;
    onGlThread([&] {
        result = startInCurrentContext(choice, chain, format, &backend_);
        // The chroma planes' chain in the same context: the programs the luma's compiled are shared.
        if (result && chromaFormat.width > 0)
            result = startInCurrentContext(choice, chromaChain, chromaFormat, &chroma_, backend_->programs());
        if (!result) {
            chroma_.reset();
            backend_.reset();
        }
    });
    return result;
}

Status GlChain::reconfigure(const Chain& chain, const FrameFormat& format, const Chain& chromaChain,
                            const FrameFormat& chromaFormat) {
    if (!backend_ || (chromaFormat.width > 0) != (chroma_ != nullptr)) return Status::error("not running");
    Status result;
    onGlThread([&] {
        result = backend_->configure(chain, format);
        if (result && chroma_) result = chroma_->configure(chromaChain, chromaFormat);
    });
    return result;
}

Status GlChain::process(GstBuffer* in, const GstVideoInfo& inInfo, GstBuffer* out, const GstVideoInfo& outInfo,
                        const Encoding& encoding) {
    GstVideoFrame inFrame, outFrame;
    if (!gst_video_frame_map(&inFrame, const_cast<GstVideoInfo*>(&inInfo), in,
                             static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_GL)))
        return Status::error("cannot map the input buffer's GL memory");
    if (!gst_video_frame_map(&outFrame, const_cast<GstVideoInfo*>(&outInfo), out,
                             static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_GL))) {
        gst_video_frame_unmap(&inFrame);
        return Status::error("cannot map the output buffer's GL memory");
    }
    Status result;
    bool gl = true;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&inFrame); ++p) gl = gl && gst_is_gl_memory(inFrame.map[p].memory);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&outFrame); ++p) gl = gl && gst_is_gl_memory(outFrame.map[p].memory);
    GstGLContext* theirs = gl ? GST_GL_BASE_MEMORY_CAST(inFrame.map[0].memory)->context : nullptr;
    if (!gl) {
        result = Status::error("a buffer negotiated as GL memory holds system memory");
    } else if (theirs != context_ && !gst_gl_context_can_share(theirs, context_)) {
        result = Status::error("the input textures belong to a GL context that does not share with ours");
    } else {
        if (GstGLSyncMeta* sync = gst_buffer_get_gl_sync_meta(in)) gst_gl_sync_meta_wait(sync, context_);
        auto source = [&](guint plane, Source what) {
            auto* memory = reinterpret_cast<GstGLMemory*>(inFrame.map[plane].memory);
            gles::TextureBackend::TextureFrame t;
            t.texture = *static_cast<guint*>(inFrame.data[plane]);
            t.textureWidth = gst_gl_memory_get_texture_width(memory);
            t.textureHeight = gst_gl_memory_get_texture_height(memory);
            t.source = what;
            return t;
        };
        auto target = [&](guint plane, int channel) {
            const int bits = GST_VIDEO_INFO_FORMAT(&outInfo) == GST_VIDEO_FORMAT_GRAY16_LE ? 16 : 8;
            return gles::TextureBackend::TextureTarget{*static_cast<guint*>(outFrame.data[plane]), channel, bits};
        };
        const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&inInfo);
        const bool colour = GST_VIDEO_INFO_FORMAT(&outInfo) == format && format != GST_VIDEO_FORMAT_GRAY8 &&
                            format != GST_VIDEO_FORMAT_GRAY16_LE;
        // GRAY16_LE's bytes are red and green of an RG8 texture; a GLES 2.0 driver without
        // EXT_texture_rg gives LUMINANCE_ALPHA instead, which the import does not read.
        if (format == GST_VIDEO_FORMAT_GRAY16_LE) {
            const GstGLFormat texture = gst_gl_memory_get_texture_format(reinterpret_cast<GstGLMemory*>(inFrame.map[0].memory));
            if (texture != GST_GL_RG && texture != GST_GL_RG8)
                result = Status::error("GRAY16_LE in GL memory needs an RG texture (EXT_texture_rg on GLES 2.0)");
        }
        if (result) onGlThread([&] {
            if (!colour) {
                result = backend_->processTexture(source(0, lumaSource(format)), target(0, -1), encoding);
                return;
            }
            // A colour blur (striateblur keeps the format): every channel or plane blurred as the
            // cpu path does, chroma planes by the half-size chain, alpha or padding copied.
            const Encoding none;
            for (const ColourChannel& c : colourChannels(format)) {
                gles::TextureBackend& b = c.chroma ? *chroma_ : *backend_;
                if (result)
                    result = b.processTexture(source(c.plane, static_cast<Source>(c.component)),
                                              target(c.plane, c.components > 1 ? c.component : -1), none);
            }
            if (result && isRgb(format)) result = backend_->copyTexture(source(0, Source::Alpha), target(0, 3));
        });
        if (GstGLSyncMeta* sync = gst_buffer_get_gl_sync_meta(out)) gst_gl_sync_meta_set_sync_point(sync, context_);
    }
    gst_video_frame_unmap(&outFrame);
    gst_video_frame_unmap(&inFrame);
    return result;
}

void GlChain::stop(bool forget) {
    if (backend_ || chroma_) onGlThread([&] {  // their GL objects go on the thread that owns them
        // The chroma's first: its driver log chained onto the luma's debug callback, and puts that
        // back when it goes (the luma's then puts back GstGL's).
        chroma_.reset();
        backend_.reset();
    });
    if (!forget) return;
    std::lock_guard lock(mutex_);
    if (context_) gst_object_unref(context_);
    if (other_) gst_object_unref(other_);
    if (display_) gst_object_unref(display_);
    context_ = other_ = nullptr;
    display_ = nullptr;
}

} // namespace striate::gst
