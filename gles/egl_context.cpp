#include "gles/egl_context.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <fcntl.h>
#include <gbm.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace striate::gles {
namespace {

std::string eglError() {
    const EGLint e = eglGetError();
    const char* name = e == EGL_NOT_INITIALIZED ? " (EGL_NOT_INITIALIZED)"
                       : e == EGL_BAD_ALLOC      ? " (EGL_BAD_ALLOC)"
                       : e == EGL_BAD_CONTEXT    ? " (EGL_BAD_CONTEXT)"
                       : e == EGL_BAD_DISPLAY    ? " (EGL_BAD_DISPLAY)"
                       : e == EGL_BAD_MATCH      ? " (EGL_BAD_MATCH)"
                       : e == EGL_CONTEXT_LOST   ? " (EGL_CONTEXT_LOST)"
                                                 : "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "EGL error 0x%04x%s", static_cast<unsigned>(e), name);
    return buf;
}

bool hasExtension(EGLDisplay display, const char* name) {
    const char* all = eglQueryString(display, EGL_EXTENSIONS);
    if (!all) return false;
    const std::string list = std::string(" ") + all + " ";
    return list.find(std::string(" ") + name + " ") != std::string::npos;
}

} // namespace

void askVc4ForStatistics() {
    static std::once_flag vc4Statistics;
    std::call_once(vc4Statistics, [] { setenv("VC4_DEBUG", "shaderdb", 0); });
}

Status EglContext::create(std::unique_ptr<EglContext>* out) {
    askVc4ForStatistics();
    std::unique_ptr<EglContext> c(new EglContext());
    auto getPlatformDisplay =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    // What to install or check, for a user who meets one of the two errors below.
    const std::string hint =
        ": install Mesa's EGL and GL drivers (Debian: libegl-mesa0 libgl1-mesa-dri), and for the GPU check that "
        "/dev/dri/renderD128 exists and this user may open it (the render group, and video on a Pi: sudo usermod -aG "
        "render,video $USER, then log in again)";
    if (!getPlatformDisplay) return Status::error("no EGL display: eglGetPlatformDisplayEXT is missing (no EGL vendor library)" + hint);
    std::string tried;
    auto tryDisplay = [&](EGLDisplay d, const std::string& name) {
        EGLint major = 0, minor = 0;
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
            c->display_ = d;
            c->info_.platform = name;
            return true;
        }
        tried += (tried.empty() ? "" : ", ") + name + " (" + eglError() + ")";
        return false;
    };
    // 1. Mesa's surfaceless platform (llvmpipe, V3D, VC4).
    bool found = tryDisplay(getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr), "surfaceless");
    // 2. A GBM render node.
    for (int n = 128; !found && n < 136; ++n) {
        const std::string node = "/dev/dri/renderD" + std::to_string(n);
        const int fd = open(node.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        gbm_device* gbm = gbm_create_device(fd);
        if (gbm && tryDisplay(getPlatformDisplay(EGL_PLATFORM_GBM_KHR, gbm, nullptr), "gbm " + node)) {
            c->gbmFd_ = fd;
            c->gbm_ = gbm;
            found = true;
            break;
        }
        if (gbm) gbm_device_destroy(gbm);
        close(fd);
    }
    // 3. The EGL device platform (NVIDIA and other non-Mesa drivers).
    if (!found) {
        auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (queryDevices && queryDevices(8, devices, &count))
            for (EGLint i = 0; !found && i < count; ++i)
                found = tryDisplay(getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr), "device");
    }
    if (!found) return Status::error("no EGL display: tried " + (tried.empty() ? std::string("nothing") : tried) + hint);
    const EGLDisplay display = c->display_;
    if (!hasExtension(display, "EGL_KHR_surfaceless_context") || !hasExtension(display, "EGL_KHR_no_config_context"))
        return Status::error("the EGL display (" + c->info_.platform +
                             ") lacks EGL_KHR_surfaceless_context or EGL_KHR_no_config_context");
    if (!eglBindAPI(EGL_OPENGL_ES_API)) return Status::error("eglBindAPI(OpenGL ES) failed: " + eglError());
    const int versions[][2] = {{3, 1}, {3, 0}, {2, 0}};
    std::string refused;
    for (const auto& v : versions) {
        const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, v[0], EGL_CONTEXT_MINOR_VERSION, v[1], EGL_NONE};
        EGLContext ctx = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
        if (ctx != EGL_NO_CONTEXT) {
            c->context_ = ctx;
            c->info_.major = v[0];
            c->info_.minor = v[1];
            *out = std::move(c);
            return {};
        }
        refused += (refused.empty() ? "" : ", ") + std::to_string(v[0]) + "." + std::to_string(v[1]) + " (" +
                   eglError() + ")";
    }
    return Status::error("no OpenGL ES context on the " + c->info_.platform + " display: " + refused);
}

EglContext::~EglContext() {
    if (context_) {
        // Current on this thread? Release first. The display itself stays initialised: Mesa's
        // surfaceless display is shared by the process.
        if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display_, context_);
    }
    if (gbm_) {
        eglTerminate(display_);  // a GBM display is ours alone, and it refers to the device
        gbm_device_destroy(static_cast<gbm_device*>(gbm_));
    }
    if (gbmFd_ >= 0) close(gbmFd_);
}

Status EglContext::makeCurrent() {
    if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
        return Status::error("eglMakeCurrent failed: " + eglError());
    return {};
}

void EglContext::release() {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    // And EGL's state for this thread: GStreamer's pooled streaming threads can still be exiting
    // when the process does, and libEGL's per-thread data freed then by the thread while exit()
    // unloads the driver was freed twice (glibc's "double free or corruption" at exit, a few
    // runs in a hundred under load). The next makeCurrent() sets it up again.
    eglReleaseThread();
}

} // namespace striate::gles
