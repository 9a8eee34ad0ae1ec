#pragma once

#include <memory>

#include "core/backend.h"
#include "gles/fragment_options.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"

namespace striate::gles {

class ProgramCache;

/// Texture in, texture out: a GLES backend running a chain on frames that are textures already,
/// in a context someone else owns (GstGL's) and keeps current on the calling thread. GstGL's chain
/// (pipeline/gl_chain.*) and board/ hold this interface, never the class behind it (gles-fragment,
/// the one backend that runs there).
class TextureBackend : public GlesBackend {
public:
    /// A frame that is already a texture in the current context (GstGL memory), run through the
    /// configured chain into an 8-bit (or 16-bit: TextureTarget::bits) texture of at least the
    /// frame's size, through `encoding` as the cpu encoder rounds (within docs/algorithms.md 8's
    /// budget, in output codes). Only for a backend made in the current context
    /// (createTextureBackend). The caller's GL state (program, framebuffer, bindings, viewport,
    /// colour mask) is restored before it returns.
    struct TextureFrame {
        unsigned texture = 0;
        int textureWidth = 0, textureHeight = 0;  ///< may exceed the frame (padded rows)
        /// What the chain reads: one channel of the texels, the BT.601 luma of rgb / bgr, or a
        /// 16-bit code as GRAY16_LE's RG8 texture holds it (low byte red, high byte green),
        /// rounded to 8 bits as code8Of16 (core/image.h).
        enum class Source { Red, Green, Blue, Alpha, Rgb, Bgr, Gray16 } source = Source::Red;
    };
    struct TextureTarget {
        unsigned texture = 0;
        int channel = -1;  ///< 0..3: write that channel alone (R8 planes, RG8 chroma, RGBA8); -1: all
        /// 16: a 16-bit code (encode16) as its low byte in red and its high byte in green, the
        /// bytes of GRAY16_LE in GstGL's RG8 texture; else an 8-bit code.
        int bits = 8;
    };
    virtual Status processTexture(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding) = 0;
    /// Copies one channel of a texture frame into a channel of the target (alpha of a colour blur).
    virtual Status copyTexture(const TextureFrame& in, const TextureTarget& out) = 0;

protected:
    using GlesBackend::GlesBackend;
};

/// The texture backend (gles-fragment) made inside the context current on the calling thread,
/// under `limits`, choosing its plans' forms by `forms`; every later call, and the destructor,
/// must come on a thread where that context is current. `programs`: another backend's program
/// cache in the same context (GlesBackend::programs()), to share what it compiled, else null.
Status createTextureBackend(const GpuLimits& limits, const FragmentOptions& forms, std::unique_ptr<TextureBackend>* out,
                            std::shared_ptr<ProgramCache> programs = nullptr);

/// A GLES backend of `kind` (gles-compute or gles-fragment) in a context of its own, under
/// `limits` (gles-compute only where they have compute shaders: the caller checks, naming the
/// board), gles-fragment's plans by `forms`.
Status createBackend(BackendKind kind, const GpuLimits& limits, const FragmentOptions& forms, std::unique_ptr<Backend>* out);

/// Whether a GLES backend of `kind` takes `chain` on `format` frames under `limits`, decided
/// without a context (the chain, the texture limit, the hysteresis's area: its validate()'s
/// first check, with the same error); the memory a plan needs is checked when it is made.
Status validateFrameFor(BackendKind kind, const GpuLimits& limits, const Chain& chain, const FrameFormat& format);

} // namespace striate::gles
