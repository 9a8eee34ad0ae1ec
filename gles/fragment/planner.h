#pragma once

#include <complex>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "core/plan.h"
#include "gles/fragment/fir_shaders.h"
#include "gles/fragment/shader_writer.h"
#include "gles/gles_backend.h"
#include "gles/limits.h"
#include "gles/pass_plan.h"

namespace striate::gles {

/// What the context lets gles-fragment use, found once when the backend is made
/// (FragmentBackend::init) and given to the planner, which then makes no GL call.
struct FragmentCapabilities {
    bool packed = true;        ///< packed RGBA8 intermediates: no float targets (or GLES 2.0)
    bool quadRows = false;     ///< four RGBA32F array layers render as one target (QuadRows planes)
    bool stencil = false;      ///< a stencil buffer completes a class plane's framebuffer (hysteresis)
    bool redReadback = false;  ///< an R32F target reads back as GL_RED / GL_FLOAT
};

/// One plane of a plan: what FragmentBackend makes for it (a texture, and a framebuffer unless
/// it is the luma or borrowed). The planner sets everything but `texture` and `fbo`. Float
/// values take the channels they have (R32F real, RG32F complex), quads all four.
struct Plane {
    /// The texture behind the plane (how its values are encoded in the texels: PlaneFormat).
    enum class Storage {
        Rgba8,     ///< packed values, Quad8 planes, edge classes
        Rgba32f,   ///< Quad planes
        Rg32f,     ///< a complex float value
        Layers,    ///< a QuadRows plane: an RGBA32F array texture of four layers, all attached
        Luma,      ///< the input's 8-bit codes: L8 when packed (GLES 2.0), else R8; no framebuffer
        R32f,      ///< a real float value
        Borrowed,  ///< GstGL's texture, bound per frame, never deleted (`fbo` for a target)
    };
    Storage storage = Storage::Rgba32f;
    int width = 0, height = 0;
    bool stencil = false;  ///< the backend's stencil buffer is attached (hysteresis)
    bool withFbo = true;   ///< Borrowed: drawn into
    unsigned texture = 0, fbo = 0;
};

/// How a draw uses the target's stencil buffer (hysteresis: only weak pixels are drawn).
enum class Stencil {
    None,
    Mark,  ///< clear it, then set 1 where the shader does not discard; no colour written
    Test,  ///< draw only where it is 1
};

struct UniformValue {
    std::string name;
    int components = 4;  ///< 2: vec2, 4: vec4 (or arrays of them)
    std::vector<float> values;
    int location = -1;  ///< set when the backend compiles the draw's program
};

/// One draw: a shader of the plan (by index) reading planes by sampler slot into a target plane.
struct Draw {
    int shader = -1;
    std::vector<int> inputs;
    int target = -1;
    int x = 0, y = 0, w = 0, h = 0;  ///< scissor (strips); w == 0: the whole target
    /// Reads its inputs whole though its scissor covers part of the target (edge classes or a Pair
    /// plane drawn into the left part of a wider plane), where a strip reads the part it writes.
    bool readsInputsWhole = false;
    std::vector<UniformValue> uniforms;
    Stencil stencil = Stencil::None;
    unsigned program = 0;  ///< set when the backend compiles it
};

/// The pass --explain shows for HysteresisForm::CpuFlood.
inline constexpr const char* kFloodPass = "edges.hysteresis (cpu flood)";

/// Draws run once, or (hysteresis) repeated until the watched plane stops changing.
using DrawStep = Step<Draw>;

/// A plane and how its texels hold the values it carries.
struct PlaneValue {
    int plane = -1;
    PlaneFormat format;
};

/// gles-fragment's configuration of a chain: planes, the distinct shaders (each within the
/// board's budget), the steps of draws, the passes --explain shows. Made without a GL call by
/// FragmentPlanner; FragmentBackend makes its planes and programs and runs its steps.
struct FragmentPlan {
    std::vector<Plane> planes;
    std::vector<FragmentShader> shaders;
    std::vector<DrawStep> steps;
    std::vector<PassInfo> passes;
    int luma = -1;
    PlaneValue result;
    int redResult = 0;  ///< the result's plane where it is R32F and reads back as GL_RED / GL_FLOAT
    /// The step whose cpu flood also gives the result of a frame in system memory: an edge
    /// stage's `edges` output (0 or 1: class strong or edge) as the chain's result, drawn by the
    /// step after it. Such a frame uploads no classes and runs no step after it, and reads nothing
    /// back but the classes; a frame into a texture runs every step. -1: none.
    int floodResult = -1;
    /// The step that unpairs a packed bank's RowPair maximum (unpairRows) where its plane is the
    /// chain's result: a frame in system memory stops before it and reads the RowPair plane
    /// (`pairedRows`, ceil(H / 2) rows of texels, half the bytes) and unpairs it on the host; a
    /// frame into a texture runs it. -1: none.
    int pairedResult = -1;
    int pairedRows = -1;
    bool pairedPhases = false;  ///< the RowPair plane's columns are in phase order (phaseColumn)
    bool complexOutput = false;
    Status status;  ///< ok, or the first planning failure (a shader over the budget, a cascade too long)
    /// On a board with a speed (GpuLimits::speed): the forms the planner chose by the board's
    /// estimate, and the estimate of each alternative it planned (--explain); else empty.
    std::string formsChosen;

    /// GPU memory of the plan's textures (borrowed ones are not ours), in bytes.
    std::size_t bytes() const;
    /// Fragments a draw shades: its scissor, or its whole target.
    double fragments(const Draw& d) const;
    /// Bytes a draw moves at the least: its target's texels in the scissor written (a stencil
    /// draw: the stencil byte too, and only that when it marks), and of each input the share the
    /// scissor covers, each texel read once (the texture cache keeping every neighbour).
    std::size_t drawBytes(const Draw& d) const;
    /// Bytes a tile-based GPU loads before a draw: its target's texels in the scissor (and the
    /// stencil's where it tests it). Mesa's vc4 and v3d load every tile a job writes but did not
    /// clear (v3d_rcl.c and vc4's: `job->resolve & ~job->cleared`), and no draw here clears.
    std::size_t tileLoadBytes(const Draw& d) const;
};

/// Plans a chain, or single draws (GstGL's import and encode), into a FragmentPlan: the per-stage
/// planners of plan_blur.cpp, plan_recursive.cpp and plan_edges.cpp, splitting every pass until
/// its shaders fit the budget. Pure: no GL call, so budget splits are testable without a context.
class FragmentPlanner {
public:
    FragmentPlanner(const GpuLimits& limits, const FragmentOptions& options, const FragmentCapabilities& caps,
                    const FrameFormat& format, FragmentPlan* plan);

    /// Plans `chain` into the (empty) plan. On a board with a speed, every form the options leave
    /// free (RecursiveForm::Auto, PyramidUse::WhereCheaper, TileUse::WhereSmaller) and the chain
    /// has a use for is chosen by the board's estimate (plan_cost.h): each combination planned,
    /// and of those that fit the board's memory the quickest kept (chooseQuickest: within the
    /// model's margin, the smallest). Elsewhere (the host profile: llvmpipe) the rules measured
    /// there: under TileUse::WhereSmaller planned both ways, the smaller kept.
    void planChain(const Chain& chain);

    using Value = PlaneValue;
    using Uniforms = std::vector<std::pair<std::string, std::vector<float>>>;  // vec4s by name
    /// A draw of `shader` reading `inputs` (by slot) into `target`, with the packed planes'
    /// code uniforms and `uniforms` set; the shader joins the plan's list.
    Draw makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs, const Value& target,
                  const Uniforms& uniforms = {});
    /// A plane no other is reused as.
    int newPlane(Plane::Storage storage, int width, int height);
    /// A plane entry for a texture that is not ours (GstGL's): drawn into (withFbo) or read.
    int borrowedPlane(int width, int height, bool withFbo);

private:
    /// How a two-pass FIR (a horizontal pass, then a vertical one reading it) runs on a tall
    /// frame: a band of output rows at a time, its horizontal pass into a tile of the rows the
    /// band reads (plan_blur.cpp, bandsFor).
    struct Bands {
        int outputRows = 0;     ///< of the vertical pass's target
        int rowsPerOutput = 1;  ///< frame rows an output row holds (4: QuadRows)
        int R = 0;              ///< the vertical pass's radius
        int rows = 0;           ///< output rows a band (the last may be shorter)
        int count = 1;
        int tileRows = 0;       ///< frame rows a tile holds: rows x rowsPerOutput + 2 R
        bool tiled = false;     ///< the tile is at most half the frame, and tiles are allowed;
                                ///< else one band of all rows, its tile the frame-sized plane
    };

    /// A ShaderTail with the planes it reads (from its first slot on) and the uniforms it sets.
    struct Tail {
        ShaderTail shader;
        std::vector<Value> inputs;
        Uniforms uniforms;
    };

    void fail(const std::string& message);
    /// planChain on a board with a speed: each free form's alternatives, the quickest kept.
    void chooseByEstimate(const Chain& chain);
    /// A new value's plane of this size (0: the frame's) for values of `format`: an array texture
    /// for QuadRows, RGBA8 for Packed (and everywhere on packed profiles), RGBA32F for quads, else
    /// R32F or RG32F as the value is real or complex. Planes are shared afterwards, by share().
    int acquire(const PlaneFormat& format, int width = 0, int height = 0);
    /// Planes of one texture kind and size whose lives in the draws never overlap as one
    /// (gles/pass_plan.h, as gles-compute's plan does); the result lives to after the last draw.
    /// The luma is pinned: the GstGL path puts another texture in its place while the draws run.
    void share();
    PlaneFormat planeFormat(bool complex, double bound, bool nonNegative = false) const;
    /// The shader's index in the plan, or -1 (and a failure) where it is over the budget.
    int shaderIndex(const FragmentShader& shader);
    /// One full-target draw into `target`, a step and a pass of its own.
    Value into(const FragmentShader& shader, const std::vector<Value>& inputs, const Value& target,
               const Uniforms& uniforms = {});
    /// One full-target draw into a new plane (of the frame's size unless given).
    Value full(const FragmentShader& shader, const std::vector<Value>& inputs, const PlaneFormat& out,
               const Uniforms& uniforms = {}, int width = 0, int height = 0);

    /// A stage's passes from `in`, returning its result: one overload per kind of stage
    /// (STRIATE_STAGE_PLANS), each in the stage's file (plan_blur.cpp, plan_edges.cpp for a Gabor
    /// stage and edges, plan_threshold.cpp), which planChain calls for the plan it holds.
#define STRIATE_DECLARE(Plan) Value stage(const Plan& plan, const Value& in);
    STRIATE_STAGE_PLANS(STRIATE_DECLARE)
#undef STRIATE_DECLARE

    // plan_blur.cpp
    /// `weight`: what the result is multiplied by on its way to the output (a Gabor's DC plane:
    /// its largest |K|), which the response form's cut follows (response()).
    Value blur(const BlurPlan& plan, const Value& in, double weight = 1);
    /// Both axes of a symmetric FIR on Quad planes (four pixels per RGBA32F texel), the result
    /// in a QuadRows plane, where the planes are float and each axis fits one shader; else
    /// Value{} and the caller runs the per-pixel passes.
    Value quadBlur(const QuadWeights& q, const std::string& what, const Value& in);
    /// Notes in tilesWouldApply_ where tiles, were they allowed, would make bands.
    Bands bandsFor(int outputRows, int rowsPerOutput, int R);
    /// Per band: `rows` (reading `in`, moved to the tile's rows) into `tile`, then each of
    /// `columns` (reading the tile, moved back, and from the second on the previous one's sums in
    /// slot 1) into its plane of `sums`, scissored to the band (untiled: once, unshifted, the
    /// whole planes). Returns the last of `sums`.
    Value banded(const Bands& b, const FragmentShader& rows, const Value& in, const Value& tile,
                 const std::vector<FragmentShader>& columns, const std::vector<Value>& sums);
    /// A direct Gaussian whose axes each fit one shader, in bands (Bands); Value{} where the
    /// frame is too short for tiles or an axis needs a cascade.
    Value tiledDirect(double sigma, const Value& in);
    Value directGaussian(double sigma, int axis, const Value& in);
    /// A direct Gaussian two pixels a fragment into Pair planes (pairShader), on packed profiles
    /// where each axis fits one shader; Value{} elsewhere. For a reader that takes a Pair plane
    /// (Canny's gradient: cannyClasses).
    Value pairGaussian(double sigma, const Value& in);
    Value boxes(const BoxBlur& plan, int axis, const Value& in);
    /// One box pass from the sum pyramid of the line (`length` samples: sample j at texel j +
    /// shift of `in`); output texel q holds line position q + outShift, in a plane of the given
    /// size (0: the frame's).
    Value pyramidBox(const ExtendedBox& box, int axis, const Value& in, int length, int shift, int outShift, int outWidth,
                     int outHeight);
    // plan_recursive.cpp
    Value recursiveAxis(const CascadeFloat& cf, int axis, const Value& in, bool complexOut);
    Value section(const CascadeFloat& cf, int axis, int k, bool anticausal, const Value& in, const Value& border,
                  const PlaneFormat& out);
    Value blockSection(std::complex<double> pole, std::complex<double> gain, int axis, bool anticausal, int S, bool real,
                       const Value& in, const Value& start, const PlaneFormat& out);
    /// A symmetric FIR along one axis (direct Gabor taps, or a recursive filter's response), split
    /// into accumulating draws to fit the budget; `what` names its shaders.
    /// With a tail: its value, the tail in the last draw where that fits the budget.
    Value tapsAxis(const GaborTaps& taps, int axis, const Value& in, bool complexOut, const std::string& what,
                   const Tail* tail = nullptr);
    /// One axis of a recursive filter in the form the options ask for; with a tail, its value
    /// (fused into the response's last draw, else a draw of its own).
    Value recursive(const CascadeFloat& cf, int axis, const Value& in, bool complexOut, const Tail* tail = nullptr,
                    double weight = 1);
    /// The tail as a draw of its own, reading z from `z`.
    Value applyTail(const Value& z, const Tail& tail);
    /// Whether a recursive filter runs as the FIR of its response (responseTaps, into `taps`):
    /// under RecursiveForm::Auto on quads whatever its length (they fit the budget or are not
    /// taken), in per-pixel passes up to kMaxResponseTaps per axis. The response is cut where the
    /// L1 mass beyond is the board's cut (kResponseTail, kPackedResponseTail) over `weight`.
    bool response(const CascadeFloat& cf, bool onQuads, GaborTaps* taps, double weight = 1) const;
    // plan_edges.cpp
    Value gabor(const GaborPlan& plan, const Value& in);
    /// A packed bank of magnitudes (orientations > 1) with each vertical pass two rows a fragment
    /// (rowPairVertical), the maximum in RowPair planes, unpaired at the end (docs/algorithms.md
    /// 5): an orientation with an axis free of frequency runs that axis real with the DC's
    /// removal folded into the other, and its real horizontal pass serves the DC plane too; a
    /// mirror runs in its partner's vertical pass; the horizontal passes from the frame read it
    /// four pixels a fetch, a draw a phase (phaseAxis). Value{} where a program would be over the
    /// board's budget, the sink is another or the planes are float: gabor() runs the per-pixel
    /// passes.
    Value rowPairBank(const GaborPlan& plan, const Value& in);
    /// A packed bank of magnitudes' vertical pass with its tail, two rows a fragment: z of
    /// rows 2q and 2q + 1 from `taps` (real ones where form.realTaps; the mirror's too where
    /// form.withMirror) over `h` (complex or real; 2R + 2 fetches where two pixels took 4R + 2),
    /// DC removed (`gauss` times `dcGain`, where `gauss` is a plane: packed or RowPair), the
    /// magnitudes' codes, and the running maximum with `best` (a RowPair plane, where it is
    /// one), into a RowPair plane of codes of `bound`; with form.values, the two rows' real
    /// values instead (the DC plane).
    Value rowPairVertical(const GaborTaps& taps, const RowPairForm& form, const std::string& what, const Value& h,
                          const Value& gauss, double dcGain, const Value& best, double bound);
    /// The RowPair plane's codes a pixel a fragment into a packed real plane (`out`), byte for byte
    /// (`phases`: from columns in phase order, phaseColumn).
    Value unpairRows(const Value& rows, const PlaneFormat& out, bool phases);
    /// A horizontal FIR from the frame's Quad8 plane `quads` (`pad` texels of border a side,
    /// at least quadPad of the taps' radius; values within `inBound`), four pixels a fetch, one
    /// draw a phase x mod 4 into a frame-sized plane whose columns are in phase order
    /// (phaseShader, phaseColumn).
    Value phaseAxis(const GaborTaps& taps, const Value& quads, int pad, double inBound, bool complexOut,
                    const std::string& what);
    /// Canny's gradient four pixels a fragment, from a QuadRows blur into a Quad plane.
    Value quadGradient(const Value& smooth);
    /// Canny's gradient two pixels a fragment from pairGaussian's Pair plane, into a Pair plane
    /// of strengths with the sector in the codes' lowest bits.
    Value pairGradient(const Value& smooth);
    /// Canny: the smoothing, the gradient (quadGradient where the blur ends in quads), then
    /// edgeClasses.
    Value cannyClasses(const EdgeSpec& spec, const CannyPlan& plan, const Value& in);
    /// Suppression, the double threshold, hysteresis and the stage's output from the strengths
    /// (sectorBits: the sector in their two lowest mantissa bits, as Canny's on float planes).
    Value edgeClasses(const EdgeSpec& spec, bool sectorBits, const Value& in, const Value& strength);
    /// The edge stage's output four rows of four pixels a fragment, into a QuadRows plane (where
    /// the strengths are a Quad plane).
    Value quadRowsOutput(const EdgeSpec& spec, const Value& in, const Value& classes, const Value& strength);
    /// An edges stage's output a pixel a fragment from its classes (a byte a pixel in Quad8
    /// texels where `quads`), the strength (sectorBits as edgeClasses) or the input.
    Value edgesOutput(const EdgeSpec& spec, const Value& in, const Value& classes, const Value& strength, bool sectorBits,
                      bool quads);
    /// HysteresisForm::Draws on the edge classes (on quads: four pixels a texel): pairs of draws
    /// repeated until stable, on the weak pixels alone where the stencil completes the planes.
    void hysteresisDraws(const Value& classes, int classWidth, const Uniforms& thresholds, bool quads,
                         const std::string& classPlanes, const std::string& perFragment);
    /// Scissors `d` to the first `width` texels of each row where its target is wider: a plane
    /// narrower than the frame (edge classes, a Pair plane) drawn into the left part of a
    /// frame-sized one, the kind the packed values take, so that it shares their storage.
    void intoLeftPart(Draw& d, int width) const;

    GpuLimits limits_;
    FragmentOptions options_;
    FragmentCapabilities caps_;
    bool packed_;
    FrameFormat format_;
    FragmentPlan* plan_;
    // The plan's parts under the names the planners use.
    std::vector<Plane>& planes_;
    std::vector<DrawStep>& steps_;
    std::vector<PassInfo>& passes_;
    Status& status_;
    /// Some bandsFor() of this plan would tile under TileUse::Always: without one, the tiled plan
    /// is the untiled one, and planChain() under TileUse::WhereSmaller does not make it twice.
    bool tilesWouldApply_ = false;
    /// Some recursive filter of this plan read RecursiveForm (response()), some box PyramidUse:
    /// without one, those forms' alternatives plan the same draws, and chooseByEstimate() does
    /// not make them.
    mutable bool recursiveFormsApply_ = false;
    bool pyramidApplies_ = false;
    /// The last edge stage whose `edges` output its cpu flood can make: the flood's step and the
    /// output's plane (FragmentPlan::floodResult where that plane is the chain's result).
    struct FloodOutput {
        int step = -1, plane = -1;
    } edgesFromFlood_;
    /// The last unpairRows: its step, its output's plane and the RowPair plane it reads
    /// (FragmentPlan::pairedResult where that output is the chain's result).
    struct Unpaired {
        int step = -1, plane = -1, rows = -1;
        bool phases = false;
    } unpaired_;
    /// The widest strip whose section shaders fit the budget, by what they depend on
    /// (section()): found by generating shaders, so kept for every candidate plan of a
    /// chooseByEstimate() (it hands its map to them).
    std::shared_ptr<std::map<std::string, int>> stripWidths_ = std::make_shared<std::map<std::string, int>>();
};

} // namespace striate::gles
