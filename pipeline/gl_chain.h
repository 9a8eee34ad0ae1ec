#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <memory>
#include <mutex>

#include "core/backend.h"
#include "core/spec.h"
#include "core/status.h"

namespace striate {
struct BackendChoice;
namespace gles {
class TextureBackend;
}
} // namespace striate

namespace striate::gst {

/// True when the first structure of `caps` is GL memory (`video/x-raw(memory:GLMemory)`).
bool isGlMemory(GstCaps* caps);

/// A chain that stays in GstGL (docs/design.md, GStreamer elements): when an element's caps are GL
/// memory on both sides, the fragment backend runs inside GstGL's context, on the thread that
/// owns it, from the upstream textures to textures of the element's GL buffer pool, so
/// `glupload ! striateblur ! striategabor ! gldownload` never leaves the GPU between elements.
/// The context plumbing is GstGLBaseFilter's: the display from the element's neighbours or the
/// environment, the context upstream's (glupload's) or, failing that, a new one.
class GlChain {
public:
    GlChain();
    ~GlChain();
    GlChain(const GlChain&) = delete;
    GlChain& operator=(const GlChain&) = delete;

    /// GstElement::set_context: a display or application context handed down by the bin.
    void setContext(GstElement* element, GstContext* context);
    /// Answers a GST_QUERY_CONTEXT for GstGL's display or context; false if it is not one.
    bool answerContextQuery(GstElement* element, GstQuery* query);
    /// GstBaseTransform::decide_allocation for GL memory out: a GstGLBufferPool of the context.
    bool decideAllocation(GstBaseTransform* transform, GstQuery* query);

    /// Makes and configures the fragment backend in GstGL's context (on its thread), and a second
    /// for the chroma planes of a colour blur when `chromaFormat` is not empty. An error names why
    /// the chain cannot run there; the element then runs on the cpu through maps.
    /// `choice`: chooseBackend's for Placement::CurrentContext.
    Status start(const BackendChoice& choice, const Chain& chain, const FrameFormat& format,
                 const Chain& chromaChain = {}, const FrameFormat& chromaFormat = {});
    /// Configures the running backends again for a new chain of the same format, keeping their
    /// planes' context and compiled programs (a property changed while playing).
    Status reconfigure(const Chain& chain, const FrameFormat& format, const Chain& chromaChain = {},
                       const FrameFormat& chromaFormat = {});
    /// One frame: `in` (GL memory of `inInfo`) through the chain into `out` (GL memory of
    /// `outInfo`: GRAY8, GRAY16_LE, or for striateblur the input's format, every channel blurred), with
    /// GstGL's sync points waited on and set.
    Status process(GstBuffer* in, const GstVideoInfo& inInfo, GstBuffer* out, const GstVideoInfo& outInfo,
                   const Encoding& encoding);
    bool running() const { return backend_ != nullptr; }
    /// Drops the backend (on GstGL's thread); `forget` drops the context and display as well.
    void stop(bool forget);

private:
    bool ensureContext(GstElement* element);
    /// Runs `work` on the GL thread with the context current.
    template <class Work>
    void onGlThread(Work&& work);

    // display_ and other_: set_context may come from any thread, and comes back into ensureContext
    // on the same one (gst_gl_ensure_element_data sets the context it finds on the element).
    std::recursive_mutex mutex_;
    GstGLDisplay* display_ = nullptr;
    GstGLContext* other_ = nullptr;    // the application's context, to share with
    GstGLContext* context_ = nullptr;  // streaming thread only
    std::unique_ptr<gles::TextureBackend> backend_;
    std::unique_ptr<gles::TextureBackend> chroma_;  // a colour blur's half-size chroma planes
};

} // namespace striate::gst
