#pragma once

#include <cstddef>

/// GL objects and their storage counted by interposition (gl_accounting.cpp): a program that links
/// the `striate_gl_accounting` object library exports wrappers of the GL and EGL calls that create,
/// specify, bind and delete objects, so every call of the process reaches them first (the plugin's,
/// the backends'), and they forward to the real functions (dlsym RTLD_NEXT), as tracing tools do.
/// The same wrappers build into an LD_PRELOAD module (libstriate-gl-accounting.so) for programs
/// that do not link them (bench/memory.sh runs `striate filter` under it).
///
/// Bytes are width x height (x layers) x the bytes per texel of each texture level, buffer and
/// renderbuffer as specified, whether or not a driver pads them; objects are keyed by their EGL
/// context, and destroying a context drops its objects.
namespace striate::testing {

struct GlAccount {
    std::size_t liveObjects = 0;  ///< textures, framebuffers, buffers, renderbuffers, programs, shaders
    std::size_t liveBytes = 0;    ///< storage of the live textures, buffers and renderbuffers
    std::size_t peakBytes = 0;    ///< the most liveBytes has been since the last resetPeak()
    long created = 0;             ///< objects generated or created
    long specified = 0;           ///< storage (re)specified: glTexImage*, glTexStorage*, glBufferData, glRenderbufferStorage
    long uniformLookups = 0;      ///< glGetUniformLocation calls (a lookup by string)
    long unknownFormats = 0;      ///< specifications whose bytes per texel are not known (counted as 0)
};

/// The counts so far (all contexts).
GlAccount glAccount();
/// Starts a new peak from the bytes alive now.
void resetGlPeak();
/// True where the wrappers are the ones the GL calls reach (a call made through them since start).
bool glAccountingActive();

} // namespace striate::testing
