#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "core/plan.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"
#include "gles/pass_plan.h"
#include "gles/program_cache.h"

/// gles-compute's plan of a chain (docs/design.md): its planes, buffers, programs and the dispatches of
/// each frame, made by ComputePlanner without a GL call (tested without a context), then made real
/// and replayed by ComputeBackend. The planner gives every value a plane of its own; then each
/// plane's life (its first and last pass) is found and planes of one format whose lives do not
/// overlap share a texture (gles/pass_plan.h, as gles-fragment's plan), as a register allocator
/// shares registers.
/// Recursive passes along columns run in place, and the frame arrives as R32F unit values (as its
/// codes, R8UI, where a Gabor bank's horizontal passes on pair buffers are its only readers), so a
/// blur holds two planes and Canny two float and two integer ones.
namespace striate::gles {

/// Invocations of box_blur.comp's workgroup (one per line): the most gles-compute needs.
inline constexpr int kBoxWorkgroup = 256;

/// Pixels of a row an invocation of encode8.comp encodes (a uvec2 of codes): its rows in the codes
/// buffer are (width + 7) / 8 of them.
inline constexpr int kEncodeBlock = 8;

/// A texture of the frame's size.
struct ComputePlane {
    enum class Format { R32F, R32UI, R8UI };
    Format format = Format::R32F;
    std::size_t texelBytes() const { return format == Format::R8UI ? 1 : 4; }
    unsigned texture = 0;  ///< set by the backend
};

/// A buffer: the read-back, the hysteresis gate's two, the unit table, the box scratch, taps.
/// The head of the hysteresis's work buffer, as hysteresis.comp's `Work` declares it; a bit a
/// tile for each of its two lists follows.
struct HysteresisHead {
    unsigned count[2];  ///< tiles in each list
    unsigned current;   ///< the list a pass reads (the other it writes)
    unsigned passes, tiles, iterations;
};

struct ComputeBuffer {
    bool indirect = false;    ///< GL_DISPATCH_INDIRECT_BUFFER, else a shader storage buffer
    std::size_t bytes = 0;
    std::vector<float> data;  ///< initial contents (empty: none)
    unsigned buffer = 0;      ///< set by the backend
};

/// What a pass binds: a plane as a sampler (texelFetch) or an image, or a storage buffer.
struct ComputeBinding {
    enum class Kind { Sampler, Image, Buffer };
    enum class Access { Read, Write, ReadWrite };
    Kind kind = Kind::Sampler;
    int slot = 0;   ///< texture unit, image unit or storage-buffer binding
    int index = 0;  ///< plane or buffer
    Access access = Access::Read;
};

struct ComputeUniform {
    enum class Type { Float, Int, Uint, Vec2, Uvec2 };
    std::string name;
    Type type = Type::Float;
    std::vector<float> f;     ///< Float, Vec2 (pairs)
    std::vector<unsigned> u;  ///< Int, Uint, Uvec2
    int location = -1;        ///< set by the backend at configure time
};

/// One dispatch of a program of the plan.
struct ComputePass {
    int program = -1;  ///< index into ComputePlan::programs
    std::vector<ComputeBinding> bindings;
    std::vector<ComputeUniform> uniforms;
    int groupsX = 1, groupsY = 1;
    bool indirect = false;  ///< the grid comes from the plan's indirect buffer
};

/// Passes run once, or (hysteresis) a first pass over every tile, then a gate and a pass repeated
/// until a pass lists no tile: the gate writes the next pass's grid (the tiles the last pass
/// listed) into the indirect buffer.
using ComputeStep = Step<ComputePass>;

struct ComputeProgram {
    std::string file;
    Defines defines;
    std::string name;      ///< file and defines, as --explain and the driver log name it
    unsigned program = 0;  ///< set by the backend
};

struct ComputePlan {
    std::vector<ComputePlane> planes;
    std::vector<ComputeBuffer> buffers;
    std::vector<ComputeProgram> programs;
    std::vector<ComputeStep> steps;
    std::vector<PassInfo> passes;  ///< what --explain shows, one per dispatch
    int luma = -1;                 ///< the plane the frame goes to: R32F unit values, or R8UI codes
    int result = -1;               ///< the R32F plane read back through a framebuffer, or
    int readback = -1;             ///< the buffer the result is stored to and read back from
    int hysteresis = -1, indirect = -1;  ///< the hysteresis's work and the gate's grid (-1: no hysteresis)
    bool complexOutput = false;
    /// process8's codes on the GPU (encode8.comp, after the steps, into buffer `codes`, one no
    /// pass needs by then: rows of kEncodeBlock-code blocks), its last uniform, `scale`, set per
    /// frame; codes = -1: the host encodes the read-back floats.
    ComputePass encode;
    int codes = -1;
    Status status;  ///< ok, or the first planning failure

    /// GPU memory the plan holds: its textures and buffers, in bytes, at `format`.
    std::size_t bytes(const FrameFormat& format) const;
};

/// Plans a chain for gles-compute (GLES 3.1) at one frame size within `limits`: no GL call.
class ComputePlanner {
public:
    /// redReadback: an R32F framebuffer reads back as GL_RED / GL_FLOAT here (else the result is
    /// stored to a buffer first).
    ComputePlanner(const GpuLimits& limits, const FrameFormat& format, bool redReadback, ComputePlan* plan)
        : limits_(limits), format_(format), redReadback_(redReadback), plan_(plan) {}
    void planChain(const Chain& chain);

private:
    /// planChain's stages and read-back, before share().
    void planStages(const Chain& chain);
    using Format = ComputePlane::Format;
    using Access = ComputeBinding::Access;
    /// Workgroup shapes of the shaders (their local_size layouts).
    static constexpr int kTile = 16;       // per-pixel passes: 16 x 16
    static constexpr int kLineGroup = 64;  // recursive_line.comp: one invocation per line
    // recursive_pairs.comp: one invocation per line, a workgroup of a QPU's 16 lanes (V3D): at most
    // 15 idle invocations at a frame's end (63 with 64).
    static constexpr int kPairsGroup = 16;
    static int groups(int n, int size) { return (n + size - 1) / size; }
    /// A new value's plane (storage is shared afterwards, by share()).
    int plane(Format format);
    /// Each plane's life in the passes, then planes of one format that never overlap as one.
    void share();
    int buffer(std::size_t bytes, std::vector<float> data = {}, bool indirect = false);
    /// A dispatch of FILE with DEFINES, a step of its own or the last of `step`; `writes` is what
    /// --explain says it writes.
    ComputePass& dispatch(const std::string& file, const Defines& defines, int gx, int gy, const std::string& writes,
                          ComputeStep* step = nullptr);
    /// dispatch()'s pass outside the steps (its program made and --explain told).
    ComputePass pass(const std::string& file, const Defines& defines, int gx, int gy, const std::string& writes);
    /// plan_->encode and codes, where a buffer no pass needs at the end can hold the codes.
    void planEncode();
    static void sampler(ComputePass& p, int unit, int plane);
    static void image(ComputePass& p, int unit, int plane, Access access);
    static void storage(ComputePass& p, int binding, int buffer);
    static void uniform(ComputePass& p, const std::string& name, float v);
    static void uniformInt(ComputePass& p, const std::string& name, int v);
    static void uniformUint(ComputePass& p, const std::string& name, unsigned v);
    static void cascade(ComputePass& p, const CascadeFloat& f);
    /// recursive_pairs.comp's DEMOD uniforms (d0, a1, a2, g, m; no B: its outputs are over B^2).
    static void demodulatedCascade(ComputePass& p, const DemodCascade& f);
    /// Its borders alone (g and m over B, or the names given: WITH_DC's dcG and dcM).
    static void demodulatedBorders(ComputePass& p, const DemodCascade& f, const std::string& causal, const std::string& anticausal);

    /// A stage's dispatches from plane `in`, returning the plane of its result: one overload per
    /// kind of stage (STRIATE_STAGE_PLANS), each in the stage's file (gles/compute/blur.cpp ...),
    /// which planChain calls for the plan it holds.
#define STRIATE_DECLARE(Plan) int stage(const Plan& plan, int in);
    STRIATE_STAGE_PLANS(STRIATE_DECLARE)
#undef STRIATE_DECLARE

    int blur(const BlurPlan& plan, int in);
    /// One axis of a blur (0: rows, 1: columns) from plane `source`; returns the plane it wrote.
    int directPass(const DirectBlur& plan, double sigma, int axis, int source);
    int boxPass(const BoxBlur& plan, int axis, int source);
    int recursivePass(const RecursiveBlur& plan, int axis, int source);
    /// A Gabor stage into a new plane; a MaxEnergy bank writes each pixel's NMS sector to `sector`.
    int gabor(const GaborPlan& plan, int in, int sector = -1);
    void hysteresis(int classes);

    GpuLimits limits_;
    FrameFormat format_;
    bool redReadback_;
    ComputePlan* plan_;
    /// The planes and buffers kept across a plan's stages, reset with the plan when the chain
    /// is planned again.
    struct Kept {
        int re = -1, im = -1;  ///< a complex output's planes
        int boxScratch = -1;
    } kept_;
    bool codesAllowed_ = true;  // a bank may take the frame as codes (planChain)
};

} // namespace striate::gles
