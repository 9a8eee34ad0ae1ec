#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "gles/pixel_store.h"

namespace striate::gles {

/// Mesa's vc4 (Pi 0-3) reports its compiler's statistics through KHR_debug only with
/// VC4_DEBUG=shaderdb, and without them a fragment shader it failed to register-allocate goes
/// unnoticed: its draws are skipped with no GL error (gles/driver_log.h). This sets it, where the
/// user has not, once per process; it must come before the display (ours, or GstGL's) is
/// initialised. Other drivers ignore it. vc4 then also compiles each program once more at link,
/// with a guessed key (docs/boards.md).
void askVc4ForStatistics();

/// What a context turned out to be.
struct ContextInfo {
    std::string platform;  ///< "surfaceless", "gbm <node>" or "device"
    int major = 0;         ///< GLES version of the context
    int minor = 0;
    PixelStoreSupport pixelStore;  ///< filled by the backend with the context current
};

/// A headless OpenGL ES context through EGL: the first display that initialises among the Mesa
/// surfaceless platform, a GBM render node and the EGL device platform, then the first context
/// among GLES 3.1, 3.0 and 2.0 (a Mesa override to 2.0 refuses 3.x). No surface: rendering goes
/// to framebuffer objects. The context is current only between makeCurrent() and release(), so
/// it can be created on one thread and used or destroyed on another (one at a time).
class EglContext {
public:
    static Status create(std::unique_ptr<EglContext>* out);
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    Status makeCurrent();
    void release();
    const ContextInfo& info() const { return info_; }

private:
    EglContext() = default;
    void* display_ = nullptr;  // EGLDisplay
    void* context_ = nullptr;  // EGLContext
    int gbmFd_ = -1;
    void* gbm_ = nullptr;      // gbm_device*
    ContextInfo info_;
};

} // namespace striate::gles
