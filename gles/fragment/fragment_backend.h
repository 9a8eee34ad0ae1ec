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
#include "gles/fragment/planner.h"
#include "gles/fragment/shader_writer.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"
#include "gles/texture_backend.h"

namespace striate::gles {

/// A fragment shader over VideoCore IV's limit, for the tests of the driver log: 48 serially
/// dependent texture reads whose results all stay live to the end (vc4's compiler: 48 or more
/// fail to register-allocate, docs/boards.md), reading sampler s0. With STRIATE_GLES_TEST_PASS=over-vc4-limit in
/// the environment, gles-fragment adds a draw of it to every plan (docs/testing.md): the way a
/// test sees a driver's failure on a pass in any context, GstGL's included.
std::string overVc4LimitShader();
inline constexpr const char* kOverVc4LimitName = "test-only: 48 dependent texture results kept live";

/// The fragment backend (docs/design.md): every stage as full-screen or strip draws of generated
/// GLSL ES 1.00 shaders, so it runs on a real GLES 2.0 context. Intermediates are RGBA32F where the
/// board renders to float, else packed RGBA8 (docs/algorithms.md 5) with each plane's bound derived
/// from its pass. Every shader is planned to fit the board's budget (ALU, fetches, uniforms);
/// configure() refuses a plan with a shader over budget rather than run it.
class FragmentBackend final : public TextureBackend {
public:
    static Status create(const GpuLimits& limits, const FragmentOptions& options, std::unique_ptr<FragmentBackend>* out);
    /// The backend inside a GLES context that someone else owns (GstGL's) and that is current on
    /// the calling thread: every later call, and the destructor, must come on a thread where that
    /// context is current. It never makes a context current or releases one.
    /// `programs`: another backend's program cache in the same context (GlesBackend::programs()),
    /// to share what it compiled, else null.
    static Status createInCurrentContext(const GpuLimits& limits, const FragmentOptions& options,
                                         std::unique_ptr<FragmentBackend>* out,
                                         std::shared_ptr<ProgramCache> programs = nullptr);
    ~FragmentBackend() override;

    const char* name() const override { return "gles-fragment"; }
    /// Whose texture limit its messages name.
    static constexpr const char* kLimitOwner = "the board's";
    MemoryUse memory() const override;
    bool packedIntermediates() const override { return packed_; }

    /// Every distinct shader of the configured plan (the budget test compiles and checks them).
    const std::vector<FragmentShader>& shaders() const { return plan_.shaders; }
    bool packed() const { return packed_; }
    /// How process() reads the result back: "R32F", "RGBA float" (the format every float target
    /// reads as), "RGBA8 packed", or its row pairs.
    const char* readbackFormat() const {
        return plan_.floodResult >= 0    ? "the hysteresis's classes (the flood gives the result)"
               : plan_.pairedResult >= 0 ? "RGBA8 packed, two rows a texel (the host unpairs them)"
               : packed_                 ? "RGBA8 packed"
               : plan_.redResult > 0 ? "R32F"
                                     : "RGBA float";
    }
    /// Bytes of a frame's result read back in system memory (processCurrent).
    std::size_t resultBytes() const;

    Status processTexture(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding) override;
    Status copyTexture(const TextureFrame& in, const TextureTarget& out) override;

private:
    FragmentBackend(const GpuLimits& limits, const FragmentOptions& options)
        : TextureBackend(limits, kLimitOwner), limits_(limits), options_(options) {}
    void init();  // with the context current: the capabilities
    std::string explainDetails() const override;
    std::string explainFrame() const override;
    std::string boardEstimate() const override;
    std::size_t plannedGpuBytes(const Chain& chain, const FrameFormat& format) const override;
    Status configureCurrent(const Chain& chain, const FrameFormat& format) override;
    Status processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    /// A planner that adds to the configured plan (processTexture's planes and draws).
    FragmentPlanner planner() { return FragmentPlanner(limits_, options_, caps_, format_, &plan_); }

    // planes.cpp: the plan's planes as textures and framebuffers.
    /// Makes plane i's texture and framebuffer (nothing for a borrowed texture), the stencil
    /// buffer attached where the plan asks; a failure names what did not complete.
    void makePlane(int i);
    void releaseGl();
    // draws.cpp: programs and the executor.
    /// Compiles the draw's program (once per shader) and finds its uniforms.
    void compile(Draw& d);
    void beginDraws();  // the full-screen triangle, no blending
    void run(const Draw& d);
    /// Runs the plan's steps; `toHost`: for a frame in system memory, which ends at the flood
    /// that gives the result (FragmentPlan::floodResult).
    void runSteps(bool toHost);
    /// The RGBA8 texels of a step's edge classes (DrawStep::watched, watchedWidth) into *dst,
    /// sized to them.
    void readClasses(const DrawStep& step, std::vector<std::uint8_t>* dst);
    /// HysteresisForm::CpuFlood: the step's edge classes read back, flooded on the cpu from the
    /// strong pixels (core/hysteresis.h) and uploaded again, or (`toResult`,
    /// FragmentPlan::floodResult) written into real_ as the `edges` output.
    void floodOnCpu(const DrawStep& step, bool toResult);
    // texture_io.cpp
    Status textureDraws(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding, bool runChain);
    /// processTexture's import and encode draws, made by `make` (and compiled) the first time
    /// `key` is asked for.
    const Draw& textureDraw(const std::string& key, const std::function<Draw()>& make);

    GpuLimits limits_;
    FragmentOptions options_;
    FragmentCapabilities caps_;
    bool packed_ = true;
    FragmentPlan plan_;
    /// The plan validate() made to count its memory, kept for the configure() that follows with
    /// the same chain and frame: planning writes every shader's text, most of a configure's cpu
    /// time, and it need not run twice.
    struct Validated {
        bool held = false;
        Chain chain;
        FrameFormat format;
        FragmentPlan plan;
    };
    mutable Validated validated_;
    std::vector<unsigned> programs_;  // per shader of the plan, 0 until compiled
    static constexpr std::size_t kTriangleBytes = 6 * sizeof(float);  // the full-screen triangle's vertices
    unsigned vertexBuffer_ = 0;
    unsigned readFbo_ = 0;  // reading a QuadRows result layer by layer
    // Per step of the plan, how often the last frame ran it (a step that repeats until stable: its
    // rounds): --explain derives the frame's draws, bytes and fragments from it (lastFrame()), and
    // the Pi estimates count them.
    std::vector<int> stepRuns_;
    struct FrameCount {
        std::size_t draws = 0, bytes = 0;  // bytes: FragmentPlan::drawBytes, summed
        std::size_t tileLoads = 0;         // FragmentPlan::tileLoadBytes, summed
        int rounds = 0;                    // of the steps that repeat until stable
        std::size_t flooded = 0;           // bytes cpu floods read back
        std::size_t floodUploaded = 0;     // and uploaded again (none where the flood gave the result)
        std::vector<std::size_t> fragments;  // per shader of the plan: its draws' scissors
    };
    FrameCount lastFrame() const;
    struct StencilBuffer {
        unsigned format = 0;  // what completes a class plane's framebuffer here (init), 0: none
        std::vector<unsigned> attachments;
        unsigned renderbuffer = 0;  // the frame's size; attached to every hysteresis plane
    };
    StencilBuffer stencil_;
    std::vector<std::uint8_t> lumaUpload_, readback8_, classesBefore_, classesAfter_;  // reused across frames
    std::vector<int> columns_;  // a RowPair result's column of each pixel (FragmentPlan::pairedPhases)
    std::unique_ptr<std::int32_t[]> floodQueue_;  // HysteresisForm::CpuFlood: (W + 1) x H entries
    std::size_t floodMarked_ = 0;                 // the pixels the last frame's flood marked
    std::size_t floodUploaded_ = 0;               // bytes the last frame's floods uploaded
    std::vector<float> readbackF_;
    // processTexture: the borrowed input texture, an RGBA8 plane of its luma (in texel.r), and the
    // borrowed output texture with a framebuffer of ours.
    int inputPlane_ = -1, importPlane_ = -1, outputPlane_ = -1;
    int copyPlane_ = -1;  // the encode's target where the output texture renders to nothing (GLES 2.0 luminance)
    std::deque<std::pair<std::string, Draw>> textureDrawCache_;  // textureDraw(): a deque keeps references valid
};

} // namespace striate::gles
