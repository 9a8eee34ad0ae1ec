#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend.h"
#include "core/image.h"
#include "core/plan.h"
#include "cpu/neon/thread_pool.h"

namespace striate::cpu {

/// method=auto for a Gabor whose every orientation runs row-wise (0 and 90 degrees, GaborBand):
/// the direct method below this sigma, where it is faster than the recursive filter
/// (docs/performance-history.md, "Crossovers"); other Gabors keep GaborSpec::resolvedMethod's choice.
inline constexpr double kAutoRowWiseGaborBelowSigma = 8.0;

/// Where the cpu's edges stage writes its output from its classes (cpu_edges.cpp): rows(y0, y1)
/// as soon as their band's hysteresis is done, in the band's job while its classes are in cache,
/// then edge(x, y) for each weak pixel that the hysteresis across the bands marks afterwards.
class EdgeWriter {
public:
    virtual void rows(int y0, int y1) const = 0;
    virtual void edge(int x, int y) const = 0;

protected:
    ~EdgeWriter() = default;
};

/// The multi-threaded NEON backend (SIMDe on non-ARM hosts). configure() computes every
/// coefficient and sizes every plane and per-thread block; process() then runs without allocating.
class CpuBackend final : public Backend {
public:
    /// threads <= 0: one per hardware thread.
    explicit CpuBackend(int threads = 0);
    ~CpuBackend() override;

    const char* name() const override { return "cpu"; }
    Status validate(const Chain& chain, const FrameFormat& format) const override;
    Status configure(const Chain& chain, const FrameFormat& format) override;
    Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) override;
    /// Encodes in the worker threads; an edges stage last writes its codes from the edge classes
    /// without the float plane; a blur alone runs the fixed-point direct Gaussian (fixed.h) where
    /// its method is direct, or auto below kAutoFixedBelowSigma: within one code of the direct
    /// method's correctly rounded result.
    Status process8(ImageView<const std::uint8_t> luma, const Output8& out) override;

    /// The kernel chosen for each configured stage, in order ("blur.recursive.yvv3", ...), with
    /// the 8-bit one where process8 runs another (".avx2" where it runs at AVX2's width).
    std::vector<std::string> kernels() const;
    /// The configured chain with each method=auto the cpu resolves on its own (a row-wise Gabor
    /// below kAutoRowWiseGaborBelowSigma) written out as the method it runs; the reference
    /// configured with it computes what this backend approximates.
    const Chain& runs() const { return chain_; }
    std::string explain() const override;
    /// Host planes, per-thread blocks and the hysteresis queue of the configured chain.
    MemoryUse memory() const override;
    int threads() const { return pool_.size(); }

private:
    struct Scratch {
        std::vector<float> block[5];
        std::vector<float> ring;  // FirBand's workspace
        std::vector<std::int16_t> fixed;  // FixedBand's workspace
    };
    /// Which planes the configured chain uses (configure() sizes those alone).
    struct Planes {
        bool rowPass = false;   ///< a blur's rows (row-wise schedule or block engine)
        bool complex = false;   ///< a Gabor's real and imaginary planes (re_, im_)
        bool halfColumns = false;  ///< ... holding half the columns' strips at a time (halfColumns_)
        bool gauss = false;     ///< a blurred plane: a Gabor's DC, a Canny smoothing outside the bands
        bool strength = false;  ///< an edge strength plane
        bool sector = false;    ///< a Gabor bank's NMS sectors
        bool edges = false;     ///< edge classes and the hysteresis queue
        bool halves = true;     ///< every Gabor stage's complex planes may hold half the columns
    };
    Planes planesFor() const;

    // Each kind of stage (STRIATE_STAGE_PLANS), in the stage's file (cpu_blur.cpp, cpu_gabor.cpp,
    // cpu_edges.cpp, cpu_threshold.cpp), each function instantiated there for 8-bit and float
    // input. The backend's visits call the one for the plan they hold:
    // - planes: adds the planes the stage uses to `need`;
    // - kernelName: the kernel that runs the stage, as logs and --explain show it;
    // - toFloats: the stage from `in` to floats in `out`;
    // - toCodes: the stage from `in` to 8-bit codes, `floats` a plane it may use: an edge map
    //   from its classes, a threshold from its comparison, the others through floats (encodeTo).
#define STRIATE_DECLARE(Plan)                                                                              \
    void planes(const Plan& plan, Planes* need) const;                                                     \
    static std::string kernelName(const Plan& plan);                                                       \
    template <class Src>                                                                                   \
    void toFloats(const Plan& plan, ImageView<const Src> in, ImageView<float> out);                        \
    template <class Src>                                                                                   \
    void toCodes(const Plan& plan, ImageView<const Src> in, ImageView<float> floats, const Output8& out);
    STRIATE_STAGE_PLANS(STRIATE_DECLARE)
#undef STRIATE_DECLARE
    /// A float plane to 8-bit codes through the output's encoding, in the workers.
    void encodeTo(ImageView<const float> floats, const Output8& out);
    /// Whether a blur needs the row-pass plane (any but a banded direct blur).
    bool blurRows(const BlurPlan& plan) const { return !bandedDirect(plan); }
    /// A Gabor filter's or bank's planes (a Gabor stage's, Gabor energy's).
    void gaborPlanes(const GaborPlan& plan, Planes* need) const;
    /// Rows per band of the banded passes: two bands per worker, at least kLanes rows.
    int bandRows() const;
    /// Whether a direct blur runs banded (FirBand): where the horizontal pass each band repeats
    /// for its halo (2R rows) stays within a quarter of the band.
    bool banded(const DirectBlur& plan) const;
    bool bandedRadius(int radius) const;
    /// The blur's taps where it is a direct blur that runs banded, else null.
    const DirectBlur* bandedDirect(const BlurPlan& plan) const;
    /// Whether an orientation runs row-wise (GaborBand): it separates into real passes, and along
    /// y its halo's horizontal passes cost at most a quarter of a band's.
    bool rowWise(const GaborOrientationPlan& o) const;
    /// The stage as the cpu runs it: a Gabor's auto resolved per kAutoRowWiseGaborBelowSigma.
    Stage resolveAuto(const Stage& stage) const;
    Stage resolveAuto(const GaborSpec& gabor) const;
    template <class Src>
    void runStage(std::size_t index, ImageView<const Src> in, ImageView<float> out);
    template <class Src>
    void blur(const BlurPlan& plan, ImageView<const Src> in, ImageView<float> out);
    template <class Src>
    void directBlur(const DirectBlur& plan, ImageView<const Src> in, ImageView<float> out);
    /// A blur on the block engine (boxes, recursive): `filter(scratch, n)` filters the n samples
    /// of each line gathered into scratch.block[0] after `pad` free samples.
    template <class Src, class Filter>
    void blockBlur(ImageView<const Src> in, ImageView<float> out, int pad, const Filter& filter);
    /// The fixed-point direct Gaussian from 8 bits to 8 bits, banded.
    void blur8(ImageView<const std::uint8_t> in, const Output8& out);
    template <class Src>
    void gabor(const GaborPlan& plan, ImageView<const Src> in, ImageView<float> out);
    /// Where a visit of a bank's columns stands: `first` initialises the maximum; `squared`: the
    /// maximum is of squared magnitudes (ties at (1 + kTieTolerance)^2) until the `last` visit
    /// takes its root; `sectors`: the winner's sector is kept.
    struct TailStep {
        bool first, last, squared, sectors;
    };
    /// Which kLanes columns a visit covers and how they are held: the frame's strip `group`, at
    /// `slot` of the complex planes; the horizontal pass in strips (else in rows, gathered), the
    /// DC plane in strips, demodulated, the horizontal pass real (no frequency along x).
    struct Columns {
        int group, slot;
        bool strips, gaussStrips, demod, realX;
    };
    /// The vertical passes and the running maximum of a bank's orientation, and of its mirror
    /// where it has one, over one strip of columns (cpu_gabor.cpp).
    void columnsOfBank(const GaborPlan& plan, const TailStep& step, const GaborOrientationPlan& o,
                       const GaborOrientationPlan* mirror, const Columns& at, Scratch& s, ImageView<float> out);
    /// A plane's storage as column strips: strip `group` holds columns [group x kLanes, + kLanes)
    /// of every row, in the block layout (cpu/neon/lines.h), which a vertical pass uses in place.
    static float* strip(Image<float>& plane, int group);
    /// Whether a Gabor stage makes its DC plane (a recursive Gaussian) straight in strips, with no
    /// row-pass plane: every sink but the complex planes.
    static bool dcInStrips(const GaborPlan& plan) {
        return plan.recursive && !sinkTraits(plan.sink).complex;
    }
    /// A horizontal pass's block (rows [firstRow, + kLanes)) into the plane's strips: strips
    /// [g0, g1) of the frame, stored from the plane's first.
    void toStrips(float* block, int firstRow, Image<float>& plane, int g0, int g1) const;
    /// cos and sin of w i along x (i < width rounded up to kLanes) and y (i < height) for each orientation of a
    /// demodulated bank (GaborPlan::demodulated), made at configure.
    struct Phases {
        struct Axis {
            std::vector<float> cos, sin;
        } x, y;
    };
    /// One orientation's response over a block of kLanes columns: its vertical pass (re, im)
    /// before the DC is removed, K_x K_y and its sector.
    struct Response {
        const float *re, *im;
        float dcGain;
        std::uint8_t sector;
        /// Demodulated (DemodCascade): the response is the modulated one times e^{-i(wx x + wy y)},
        /// and the DC term is turned alike. Else none.
        const Phases* phases = nullptr;
    };
    /// A bank's tail over the kLanes columns from c0: the DC removed (dc: the Gaussian's block,
    /// or none), the magnitude, and the running maximum (and sector) of `a` and then of `b` where
    /// given (a mirror): the first of near-equal maxima stays (kTieTolerance).
    void bankTail(const Response& a, const Response* b, const float* dc, const TailStep& step, int c0,
                  ImageView<float> out);
    /// One row-wise orientation of a Gabor stage, banded, into the plan's sink (first: the
    /// bank's first member, which a running maximum starts from).
    template <class Src>
    void gaborRows(const GaborPlan& plan, const GaborOrientationPlan& o, bool first, ImageView<const Src> in,
                   ImageView<float> out);
    /// Canny: smoothing, then gradient, suppression, the band's hysteresis and its output rows
    /// fused per band (a banded smoothing fused too), then hysteresis across the bands.
    template <class Src>
    void canny(const BlurPlan& smoothing, ImageView<const Src> in, const EdgeSpec& spec, bool keepStrength,
               const EdgeWriter& out);
    /// Gabor energy edges from strength_ and sector_: suppression, then hysteresis.
    void suppressAndTrace(const EdgeSpec& spec, const EdgeWriter& out);
    /// Hysteresis on class_: banded over the workers, then what crosses bands.
    void trace(const EdgeWriter& out);
    /// Hysteresis within rows [y0, y1), from their strong pixels (one band's part of trace).
    void floodBand(int y0, int y1);
    /// Hysteresis across the edges of bands of `rows` rows, once every band has flooded.
    void floodAcross(int rows, const EdgeWriter& out);
    /// An edges stage from its input to `out`.
    template <class Src>
    void edges(const EdgeStagePlan& plan, ImageView<const Src> in, const EdgeWriter& out);

    /// Runs stages [0, count) and calls f with the input of stage `count` (the luma or a float plane).
    template <class F>
    void runStagesBefore(std::size_t count, ImageView<const std::uint8_t> luma, F&& f);

    ThreadPool pool_;
    Chain chain_;
    FrameFormat format_;
    std::vector<StagePlan> plans_;
    std::vector<std::string> kernels_;  // kernelName() of each stage
    std::vector<std::int16_t> fixedTaps_;  // the first stage's, where it is a blur the 8-bit path runs
    bool fixed8_ = false;  // process8 runs blur8: the chain is one blur with fixed-point taps
    bool avx2_;            // the fixed-point and float FIRs at AVX2's width (runsAvx2, read once)
    std::vector<Scratch> scratch_;  // one per worker thread
    std::unordered_map<const GaborOrientationPlan*, Phases> phases_;  // Phases, per orientation
    /// The complex planes hold half the frame's column strips: every Gabor stage is a
    /// demodulated bank (its lines in two calls, DemodSpan) and no blur's rows need them whole.
    bool halfColumns_ = false;
    std::vector<float> spanStates_;  // DemodSpan's states, 12 x kLanes floats per row group
    Image<float> stageOut_[2];
    Image<float> re_, im_, gauss_, strength_;
    ImageView<float> rowPass_;  // a blur's rows: re_'s storage (their lives never overlap)
    Image<std::uint8_t> sector_, class_;
    Image<Complex32> complex_;
    std::unique_ptr<std::int32_t[]> queue_;  // hysteresis's flood queues: one entry per pixel, one more per row
    std::size_t queueSize_ = 0;
};

} // namespace striate::cpu
