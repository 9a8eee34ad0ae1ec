// The GLES a test run must find, read once for every GLES test.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "gles/egl_context.h"

namespace striate::test {

/// What this run's GLES context must be: gles31, es3, es2 or none. CTest sets STRIATE_EXPECT per
/// environment (MESA_GLES_VERSION_OVERRIDE, no EGL vendor) and picks the suites each can run.
/// Unset (the binary run by hand, on a board), it is whatever context this machine offers, so a
/// suite the machine cannot run skips rather than fails.
inline std::string expectedGles() {
    if (const char* e = std::getenv("STRIATE_EXPECT")) return e;
    static const std::string found = [] {
        std::unique_ptr<gles::EglContext> ctx;
        if (!gles::EglContext::create(&ctx)) return std::string("none");
        const auto& info = ctx->info();
        return std::string(info.major > 3 || (info.major == 3 && info.minor >= 1) ? "gles31" : info.major == 3 ? "es3" : "es2");
    }();
    return found;
}
inline bool expectsCompute() { return expectedGles() == "gles31"; }
inline bool expectsGles() { return expectedGles() != "none"; }

} // namespace striate::test
