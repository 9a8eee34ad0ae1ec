#pragma once

#include <complex>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "core/plan.h"
#include "gles/fragment/fir_shaders.h"
#include "gles/fragment/shader_writer.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"

namespace striate::gles {

/// The fragment backend (DESIGN.md): every stage as full-screen or strip draws of generated
/// GLSL ES 1.00 shaders, so it runs on a real GLES 2.0 context. Intermediates are RGBA32F where the
/// board renders to float, else packed RGBA8 (ALGORITHMS.md 5) with each plane's bound derived
/// from its pass. Every shader is planned to fit the board's budget (ALU, fetches, uniforms);
/// configure() refuses a plan with a shader over budget rather than run it.
class FragmentBackend final : public GlesBackend {
public:
    static Status create(const GpuLimits& limits, const FragmentOptions& options, std::unique_ptr<FragmentBackend>* out);
    /// The backend inside a GLES context that someone else owns (GstGL's) and that is current on
    /// the calling thread: every later call, and the destructor, must come on a thread where that
    /// context is current. It never makes a context current or releases one.
    static Status createInCurrentContext(const GpuLimits& limits, const FragmentOptions& options,
                                         std::unique_ptr<FragmentBackend>* out);
    ~FragmentBackend() override;

    const char* name() const override { return "gles-fragment"; }
    bool packedIntermediates() const override { return packed_; }

    /// Every distinct shader of the configured plan (the budget test compiles and checks them).
    const std::vector<FragmentShader>& shaders() const { return shaders_; }
    /// Programs compiled since creation: configure() again with new values of the same structure
    /// compiles none.
    std::size_t programCount() const { return cache_->size(); }
    bool packed() const { return packed_; }
    /// How process() reads the result back: "R32F", "RGBA32F" or "RGBA8 packed".
    const char* readbackFormat() const { return packed_ ? "RGBA8 packed" : redResult_ > 0 ? "R32F" : "RGBA32F"; }

    /// A frame that is already a texture in the current context (GstGL memory), run through the
    /// configured chain into an 8-bit (or 16-bit: TextureTarget::bits) texture of at least the
    /// frame's size, through `encoding` as the cpu encoder rounds (within ALGORITHMS.md 8's
    /// budget, in output codes). Only for a backend made by
    /// createInCurrentContext. The caller's GL state (program, framebuffer, bindings, viewport,
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
    Status processTexture(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding);
    /// Copies one channel of a texture frame into a channel of the target (alpha of a colour blur).
    Status copyTexture(const TextureFrame& in, const TextureTarget& out);

private:
    FragmentBackend(const GpuLimits& limits, const FragmentOptions& options)
        : GlesBackend(limits.maxTextureSize, "the board's"), limits_(limits), options_(options) {}
    void init();  // with the context current
    std::string explainDetails() const override;

    struct Value {
        int plane = -1;
        PlaneFormat format;
    };
    struct UniformValue {
        int location = -1;
        int components = 4;  // 2: vec2, 4: vec4 (or arrays of them)
        std::vector<float> values;
    };
    using Uniforms = std::vector<std::pair<std::string, std::vector<float>>>;  // vec4s by name
    /// How a draw uses the target's stencil buffer (hysteresis: only weak pixels are drawn).
    enum class Stencil {
        None,
        Mark,  ///< clear it, then set 1 where the shader does not discard; no colour written
        Test,  ///< draw only where it is 1
    };
    struct Draw {
        unsigned program = 0;
        std::vector<int> inputs;  // planes, by sampler slot
        int target = -1;
        int x = 0, y = 0, w = 0, h = 0;  // scissor (strips); w == 0: the whole target
        std::vector<UniformValue> uniforms;
        Stencil stencil = Stencil::None;
    };
    struct Step {
        std::vector<Draw> draws;
        bool repeatUntilStable = false;  // hysteresis: repeat the draws until the watched plane stops changing
        int watched = -1;
    };
    struct Plane {
        unsigned texture = 0, fbo = 0;
        int width = 0, height = 0;
        bool busy = false;
        bool layers = false;  // a QuadRows plane: an RGBA32F array texture of four layers, all attached
        bool floatTexels = false;  // RGBA32F, else RGBA8
    };

    Status textureDraws(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding, bool runChain);
    /// processTexture's import and encode draws, made by `make` the first time `key` is asked for.
    const Draw& textureDraw(const std::string& key, const std::function<Draw()>& make);
    void beginDraws();  // the full-screen triangle, no blending
    void run(const Draw& d);
    void runSteps();
    Status configureCurrent(const Chain& chain, const FrameFormat& format) override;
    Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    void releaseGl();

    // Planning (configure): planes, programs and the draw list.
    /// A free plane of this size (0: the frame's) for values of `kind`: an array texture for
    /// QuadRows, RGBA8 for Packed (and everywhere on packed profiles), else RGBA32F.
    int acquire(int width = 0, int height = 0, PlaneKind kind = PlaneKind::Float);
    int newPlane(int width, int height, bool floatTexels);  // a plane no other is reused as
    int newLayersPlane(int width, int height);
    /// The backend's one stencil buffer (the frame's size; made by the first call) attached to
    /// both planes, or false where no stencil format completes their framebuffers (they are left
    /// as they were).
    bool shareStencil(int a, int b);
    /// A plane entry for a texture that is not ours (GstGL's): drawn into or read, never deleted
    /// (its texture is 0 between frames).
    int borrowedPlane(int width, int height, bool withFbo);
    void release(const Value& v);
    PlaneFormat planeFormat(bool complex, double bound, bool nonNegative = false) const;
    unsigned program(const FragmentShader& shader);
    /// A draw of `shader` reading `inputs` (by slot) into `target`, with the packed planes'
    /// code uniforms and `uniforms` set.
    Draw makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs, const Value& target,
                  const Uniforms& uniforms = {});
    /// One full-target draw into a new plane (of the frame's size unless given).
    Value full(const FragmentShader& shader, const std::vector<Value>& inputs, const PlaneFormat& out,
               const Uniforms& uniforms = {}, int width = 0, int height = 0);
    Value blur(const BlurPlan& plan, const Value& in);
    /// Both axes of a symmetric FIR on Quad planes (four pixels per RGBA32F texel), the result
    /// in a QuadRows plane, where the planes are float and each axis fits one shader; else
    /// Value{} and the caller runs the per-pixel passes.
    Value quadBlur(const QuadWeights& q, const std::string& what, const Value& in);
    Value directGaussian(double sigma, int axis, const Value& in);
    Value boxes(const BlurPlan& plan, int axis, const Value& in);
    /// One box pass from the sum pyramid of the line (`length` samples: sample j at texel j +
    /// shift of `in`); output texel q holds line position q + outShift, in a plane of the given
    /// size (0: the frame's).
    Value pyramidBox(const ExtendedBox& box, int axis, const Value& in, int length, int shift, int outShift, int outWidth,
                     int outHeight);
    Value recursiveAxis(const CascadeFloat& cf, int axis, const Value& in, bool complexOut);
    Value section(const CascadeFloat& cf, int axis, int k, bool anticausal, const Value& in, const Value& border,
                  const PlaneFormat& out);
    Value blockSection(std::complex<double> pole, std::complex<double> gain, int axis, bool anticausal, int S, bool real,
                       const Value& in, const Value& start, const PlaneFormat& out);
    /// A symmetric FIR along one axis (direct Gabor taps, or a recursive filter's response), split
    /// into accumulating draws to fit the budget; `what` names its shaders.
    Value tapsAxis(const GaborTaps& taps, int axis, const Value& in, bool complexOut, const std::string& what);
    /// One axis of a recursive filter in the form the limits ask for.
    Value recursive(const CascadeFloat& cf, int axis, const Value& in, bool complexOut);
    /// Whether a recursive filter runs as the FIR of its response (responseTaps, into `taps`):
    /// under RecursiveForm::Auto on quads whatever its length (they fit the budget or are not
    /// taken), in per-pixel passes up to kMaxResponseTaps per axis.
    bool response(const CascadeFloat& cf, bool onQuads, GaborTaps* taps) const;
    Value gabor(const GaborPlan& plan, const Value& in);
    Value edges(const EdgeSpec& spec, const StagePlan& plan, const Value& in);

    GpuLimits limits_;
    FragmentOptions options_;
    bool packed_ = true;
    bool quadRows_ = false;  // QuadRows planes render (GLES 3.0 float targets; checked in init)
    unsigned readFbo_ = 0;   // reading a QuadRows result layer by layer

    std::vector<Plane> planes_;
    std::vector<Step> steps_;
    std::vector<FragmentShader> shaders_;
    unsigned vertexBuffer_ = 0;
    struct StencilBuffer {
        unsigned renderbuffer = 0;  // the frame's size; attached to every hysteresis plane
        std::vector<unsigned> attachments;
        bool tried = false;  // no format completed: hysteresis draws the whole frame
    };
    StencilBuffer stencil_;
    int luma_ = -1;
    int redResult_ = 0;  // the R32F plane the last draw writes a real float result to, if any
    Value result_, complexResult_;
    bool complexOutput_ = false;
    std::vector<std::uint8_t> lumaUpload_, readback8_, classesBefore_, classesAfter_;  // reused across frames
    std::vector<float> readbackF_, unitUpload_;
    // processTexture: the borrowed input texture, an RGBA8 plane of its luma (in texel.r), and the
    // borrowed output texture with a framebuffer of ours.
    int inputPlane_ = -1, importPlane_ = -1, outputPlane_ = -1;
    std::deque<std::pair<std::string, Draw>> textureDrawCache_;  // textureDraw(): a deque keeps references valid
};

} // namespace striate::gles
