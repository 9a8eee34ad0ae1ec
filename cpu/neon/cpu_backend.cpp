#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "core/params.h"
#include "cpu/neon/avx2.h"
#include "cpu/neon/encode.h"
#include "cpu/neon/fixed.h"
#include "cpu/neon/kernels.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
namespace {

/// One row of the threshold's strict comparison (docs/algorithms.md 4.3): `one` where the input
/// exceeds its local mean less `c`, else `zero`, samples `step` apart.
template <class Src, class T>
void thresholdRow(const Src* v, const float* m, int n, float c, T* o, int step, T zero, T one) {
    const float* units = unitValues().data();  // once a row, not once a sample
    const auto unit = [&](const Src* p, int x) {
        if constexpr (std::is_same_v<Src, std::uint8_t>) return units[p[x]];
        else return p[x];
    };
    if (step == 1)
        for (int x = 0; x < n; ++x) o[x] = unit(v, x) > m[x] - c ? one : zero;
    else
        for (int x = 0; x < n; ++x) o[x * step] = unit(v, x) > m[x] - c ? one : zero;
}

/// The comparison over row bands into `out` (rows `stride` apart), which may be the mean's plane:
/// each sample is read before it is written.
template <class Src, class T>
void thresholdRows(ThreadPool& pool, ImageView<const Src> in, ImageView<const float> mean, double offset, T* out,
                   std::ptrdiff_t stride, int step, T zero, T one) {
    const float c = static_cast<float>(offset);
    pool.parallelFor(laneGroups(in.height), [&](int g, int) {
        for (int y = g * kLanes; y < std::min(in.height, (g + 1) * kLanes); ++y)
            thresholdRow(in.row(y), mean.row(y), in.width, c, out + y * stride, step, zero, one);
    });
}

} // namespace

CpuBackend::CpuBackend(int threads)
    : pool_(threads > 0 ? threads : defaultThreadCount()), avx2_(runsAvx2()) {}
CpuBackend::~CpuBackend() = default;

Status CpuBackend::validate(const Chain& chain, const FrameFormat& format) const {
    if (Status s = chain.validate(); !s) return s;
    return validateFrameFormat(format);
}

Status CpuBackend::configure(const Chain& chain, const FrameFormat& format) {
    if (Status s = validate(chain, format); !s) return s;
    format_ = format;
    chain_.stages.clear();
    plans_.clear();
    kernels_.clear();
    for (const Stage& st : chain.stages) {
        chain_.stages.push_back(resolveAuto(st));
        plans_.push_back(planStage(chain_.stages.back()));
        kernels_.push_back(kernelName(chain_.stages.back()));
    }
    // A chain of one blur has an 8-bit form in fixed point (process8).
    fixedTaps_.clear();
    if (chain.stages.size() == 1)
        std::visit(Overloaded{[&](const BlurStagePlan& p) { fixedTaps_ = fixedTapsFor(p.spec); }, [](const auto&) {}},
                   plans_[0]);
    const int W = format.width, H = format.height;
    // A block holds a line plus the box cascade's padding; a direct blur's padded row (firRows)
    // needs W + 2R floats, which exceeds a block on narrow frames with a wide kernel.
    int pad = 0, radius = 0;
    for (const StagePlan& p : plans_)
        for (const BlurPlan* b : blursOf(p)) {
            pad = std::max(pad, b->pad);
            radius = std::max(radius, static_cast<int>(b->taps.size()));
        }
    // A Gabor's horizontal block is written out as whole strips (toStrips): W rounded up to kLanes.
    const std::size_t blockSize = std::max(static_cast<std::size_t>(std::max(laneGroups(W) * kLanes, H) + 2 * pad) * kLanes,
                                           static_cast<std::size_t>(W + 2 * radius));
    std::size_t ring = 0;
    for (const StagePlan& p : plans_)
        for (const BlurPlan* b : blursOf(p))
            if (b->method == BlurMethod::Direct && !b->taps.empty() && banded(*b))
                ring = std::max(ring, FirBand<float>::workspaceFloats(W, static_cast<int>(b->taps.size()) - 1));
    for (const StagePlan& p : plans_)
        if (const GaborPlan* g = gaborOf(p))
            for (const GaborOrientationPlan& o : g->bank)
                if (rowWise(o)) ring = std::max(ring, GaborBand<float>::workspaceFloats(W, static_cast<int>(o.across.size()) - 1));
    // A demodulated bank's phases e^{i w n} along each axis (DemodCascade), per orientation.
    phases_.clear();
    const auto table = [](double w, int n) {
        Phases::Axis a;
        for (int i = 0; i < n; ++i) {
            a.cos.push_back(static_cast<float>(std::cos(w * i)));
            a.sin.push_back(static_cast<float>(std::sin(w * i)));
        }
        return a;
    };
    for (const StagePlan& p : plans_)
        if (const GaborPlan* g = gaborOf(p); g && g->demodulated)
            for (const GaborOrientationPlan& o : g->bank) phases_[&o] = Phases{table(o.wx, laneGroups(W) * kLanes), table(o.wy, H)};
    fixed8_ = !fixedTaps_.empty();
    const std::size_t fixed = fixed8_ ? FixedBand::workspaceShorts(W, static_cast<int>(fixedTaps_.size()) - 1) : 0;
    scratch_.assign(pool_.size(), Scratch{});
    for (Scratch& s : scratch_) {
        for (auto& b : s.block) b.assign(blockSize, 0.0f);
        s.ring.assign(ring, 0.0f);
        s.fixed.assign(fixed, 0);
    }
    // The planes this chain uses, no others (an unused plane is freed).
    const Planes need = planesFor();
    const auto size = [&](auto& plane, bool used) {
        if (used) plane.reset(W, H);
        else plane.release();
    };
    size(stageOut_[0], true);
    size(stageOut_[1], chain_.stages.size() > 1);
    // Half the columns: the first part's strips (toStrips), the larger.
    const int complexWidth = need.halfColumns ? (laneGroups(W) + 1) / 2 * kLanes : W;
    halfColumns_ = need.halfColumns;
    if (need.rowPass || need.complex) re_.reset(need.rowPass ? W : complexWidth, H);
    else re_.release();
    if (need.complex) im_.reset(complexWidth, H);
    else im_.release();
    spanStates_.assign(need.halfColumns ? static_cast<std::size_t>(laneGroups(H)) * 12 * kLanes : 0, 0.0f);
    size(gauss_, need.gauss);
    size(strength_, need.strength);
    size(sector_, need.sector);
    size(class_, need.edges);
    size(complex_, chain.complexOutput());
    rowPass_ = re_.view();  // a blur's rows never live beside a Gabor's complex planes
    // The hysteresis's flood queues: room for every pixel, but only what a flood pushes is ever
    // written, so only that becomes resident.
    queue_.reset(need.edges ? new std::int32_t[static_cast<std::size_t>(W + 1) * H] : nullptr);
    queueSize_ = need.edges ? static_cast<std::size_t>(W + 1) * H : 0;
    return {};
}

CpuBackend::Planes CpuBackend::planesFor() const {
    Planes need;
    const auto blurRows = [&](const BlurPlan& b) { return !(b.method == BlurMethod::Direct && banded(b)); };
    bool halves = true;  // every Gabor stage's complex planes may hold half the columns
    const auto gabor = [&](const GaborPlan& g) {
        const bool allRowWise = std::all_of(g.bank.begin(), g.bank.end(), [&](const auto& o) { return rowWise(o); });
        const bool complex = !allRowWise || g.sink == GaborSink::Complex;
        need.complex |= complex;
        if (complex) halves &= g.demodulated && isBankSink(g.sink);
        if (g.removeDc && !allRowWise) {
            need.gauss = true;
            need.rowPass |= !dcInStrips(g) && blurRows(g.dcBlur);
        }
    };
    for (const StagePlan& plan : plans_)
        std::visit(Overloaded{[&](const BlurStagePlan& p) { need.rowPass |= blurRows(p.blur); },
                              [&](const GaborStagePlan& p) { gabor(p.gabor); },
                              [&](const EdgeStagePlan& p) {
                                  need.edges = true;
                                  need.strength |= !p.spec.tracesEdges();
                                  std::visit(Overloaded{[&](const CannyPlan& c) {
                                                            if (blurRows(c.smoothing)) need.gauss = need.rowPass = true;
                                                        },
                                                        [&](const GaborEnergyPlan& g) {
                                                            need.strength = need.sector = true;
                                                            gabor(g.bank);
                                                        }},
                                             p.method);
                              },
                              [&](const ThresholdStagePlan& p) { need.rowPass |= blurRows(p.mean); }},
                   plan);
    need.halfColumns = need.complex && halves && !need.rowPass && laneGroups(format_.width) > 1;
    return need;
}

MemoryUse CpuBackend::memory() const {
    std::size_t host = sizeof(std::int32_t) * queueSize_ + sizeof(std::int16_t) * fixedTaps_.size();
    for (const Scratch& s : scratch_) {
        for (const auto& b : s.block) host += sizeof(float) * b.size();
        host += sizeof(float) * s.ring.size() + sizeof(std::int16_t) * s.fixed.size();
    }
    for (const Image<float>* p : {&stageOut_[0], &stageOut_[1], &re_, &im_, &gauss_, &strength_}) host += p->bytes();
    return {0, host + sector_.bytes() + class_.bytes() + complex_.bytes()};
}

std::vector<std::string> CpuBackend::kernels() const {
    std::vector<std::string> names = kernels_;
    if (fixed8_) names[0] += avx2_ ? ", 8-bit output: blur.direct.fixed-q15.avx2" : ", 8-bit output: blur.direct.fixed-q15";
    return names;
}

std::string CpuBackend::explain() const {
    std::string s = std::string("cpu: ") + simdPathName() + ", " + std::to_string(threads()) + " threads, " +
                    describeBytes(memory().host) + " of planes and scratch\n";
    const std::vector<std::string> names = kernels();
    for (std::size_t i = 0; i < names.size(); ++i)
        s += "  stage " + std::to_string(i + 1) + " " + stageName(chain_.stages[i]) + ": " + names[i] + "\n";
    return s;
}

int CpuBackend::bandRows() const {
    const int bands = 2 * pool_.size();
    return std::max(kLanes, (format_.height + bands - 1) / bands);
}

bool CpuBackend::banded(const BlurPlan& plan) const { return bandedRadius(static_cast<int>(plan.taps.size()) - 1); }

bool CpuBackend::bandedRadius(int radius) const { return 8 * radius <= bandRows(); }

bool CpuBackend::rowWise(const GaborOrientationPlan& o) const {
    // Along x a band's 2R halo rows only enter the ring as floats; along y each is filtered
    // horizontally, which stays within a quarter of the band's work where 4R <= its rows.
    return !o.across.empty() && (o.alongX || 4 * (static_cast<int>(o.across.size()) - 1) <= bandRows());
}

template <class Src>
void CpuBackend::blur(const BlurPlan& plan, ImageView<const Src> in, ImageView<float> out) {
    const int W = in.width, H = in.height;
    if (plan.method == BlurMethod::Direct && banded(plan)) {
        const int rows = bandRows();
        pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
            FirBand<Src> band(in, plan.taps, scratch_[worker].ring.data(), avx2_);
            for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.row(y));
        });
        return;
    }
    if (plan.method == BlurMethod::Direct) {
        // Row-wise schedule: no transposes for an FIR (the block engine serves the recursions).
        pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
            firRows(in, rowPass_, g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps,
                    scratch_[worker].block[0].data(), avx2_);
        });
        pool_.parallelFor(laneGroups(H), [&](int g, int) {
            firColumns(ImageView<const float>(rowPass_), out, g * kLanes, std::min(H, (g + 1) * kLanes), plan.taps,
                       avx2_);
        });
        return;
    }
    // Boxes and recursive run on the block engine. For boxes the block holds `pad` replicated
    // samples before and after the line (replicate borders are defined on the padded copy,
    // docs/algorithms.md 0). filter() returns where the result's first sample lies.
    const int pad = plan.pad;
    auto filter = [&plan, pad](Scratch& s, int n) -> float* {
        float* a = s.block[0].data();
        if (plan.method != BlurMethod::Boxes) {
            recursiveBlock(a, n, plan.recursive);
            return a;
        }
        float* b = s.block[1].data();
        replicateEnds(a, n, pad);
        for (int p = 0; p < kBoxPasses; ++p) {
            boxBlock(a, b, n + 2 * pad, plan.box);
            std::swap(a, b);
        }
        return a + static_cast<std::ptrdiff_t>(pad) * kLanes;
    };
    const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(pad) * kLanes;
    pool_.parallelFor(laneGroups(H), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherRows(in, g * kLanes, s.block[0].data() + offset);
        scatterRows(filter(s, W), g * kLanes, rowPass_);
    });
    pool_.parallelFor(laneGroups(W), [&](int g, int worker) {
        Scratch& s = scratch_[worker];
        gatherColumns(ImageView<const float>(rowPass_), g * kLanes, s.block[0].data() + offset);
        scatterColumns(filter(s, H), g * kLanes, out);
    });
}

void CpuBackend::blur8(ImageView<const std::uint8_t> in, const Output8& out) {
    // Bands of at least 4R rows: each band filters its 2R halo rows horizontally too.
    const int H = in.height, rows = std::max(bandRows(), 4 * (static_cast<int>(fixedTaps_.size()) - 1));
    pool_.parallelFor((H + rows - 1) / rows, [&](int b, int worker) {
        FixedBand band(in, fixedTaps_, scratch_[worker].fixed.data(), avx2_);
        for (int y = b * rows; y < std::min(H, (b + 1) * rows); ++y) band.rowInto(y, out.data + y * out.stride, out.step);
    });
}

const char* kernelName(const Stage& stage) {
    return std::visit(
        Overloaded{[](const BlurSpec& b) {
                       switch (b.resolvedMethod()) {
                       case BlurMethod::Boxes: return "blur.boxes.running-sum-x4";
                       case BlurMethod::Recursive: return "blur.recursive.yvv3";
                       default: return "blur.direct.fir-symmetric";
                       }
                   },
                   [](const GaborSpec& g) {
                       return g.resolvedMethod() == GaborMethod::Recursive ? "gabor.recursive.yvv3-complex"
                                                                           : "gabor.direct.fir-complex";
                   },
                   [](const EdgeSpec& e) {
                       switch (e.method) {
                       case EdgeMethod::Canny: return "edges.canny.fir-nms-hysteresis";
                       case EdgeMethod::Gabor: return "edges.gabor-energy.bank-nms-hysteresis";
                       }
                       return "?";  // not an EdgeMethod
                   },
                   [](const ThresholdSpec& t) {
                       switch (t.mean().resolvedMethod()) {
                       case BlurMethod::Boxes: return "threshold.boxes-mean-compare";
                       case BlurMethod::Recursive: return "threshold.recursive-mean-compare";
                       default: return "threshold.direct-mean-compare";
                       }
                   }},
        stage);
}

Stage CpuBackend::resolveAuto(const Stage& stage) const {
    return std::visit(Overloaded{[&](const GaborSpec& g) { return resolveAuto(g); }, [&](const auto&) { return stage; }},
                      stage);
}

Stage CpuBackend::resolveAuto(const GaborSpec& g) const {
    if (g.method != GaborMethod::Auto || g.resolvedMethod() == GaborMethod::Direct || !(g.sigma < kAutoRowWiseGaborBelowSigma))
        return g;
    GaborSpec direct = g;
    direct.method = GaborMethod::Direct;
    const GaborPlan plan = planGabor(direct);
    const bool allRowWise = std::all_of(plan.bank.begin(), plan.bank.end(), [&](const auto& o) { return rowWise(o); });
    return allRowWise ? Stage{direct} : Stage{g};
}

template <class Src>
void CpuBackend::runStage(std::size_t index, ImageView<const Src> in, ImageView<float> out) {
    std::visit(Overloaded{[&](const BlurStagePlan& p) { blur(p.blur, in, out); },
                          [&](const GaborStagePlan& p) { gabor(p.gabor, in, out); },
                          [&](const EdgeStagePlan& p) { edgesToFloats(p, in, out); },
                          [&](const ThresholdStagePlan& p) {
                              // The local mean into the output plane (never the input's), then
                              // the comparison in place.
                              blur(p.mean, in, out);
                              thresholdRows(pool_, in, ImageView<const float>(out), p.spec.offset, out.data, out.stride, 1, 0.0f, 1.0f);
                          }},
               plans_[index]);
}

template <class F>
void CpuBackend::runStagesBefore(std::size_t count, ImageView<const std::uint8_t> luma, F&& f) {
    for (std::size_t i = 0; i < count; ++i) {
        ImageView<float> dst = stageOut_[i % 2].view();
        if (i == 0) runStage(i, luma, dst);
        else runStage(i, ImageView<const float>(stageOut_[(i - 1) % 2].view()), dst);
    }
    if (count == 0) f(luma);
    else f(ImageView<const float>(stageOut_[(count - 1) % 2].view()));
}

Status CpuBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    const std::size_t last = chain_.stages.size() - 1;
    ImageView<float> dst = stageOut_[last % 2].view();
    runStagesBefore(last, luma, [&](auto in) { runStage(last, in, dst); });
    *out = ChainOutput{};
    out->real = dst;
    if (chain_.complexOutput()) {
        for (int y = 0; y < format_.height; ++y)
            for (int x = 0; x < format_.width; ++x) complex_.at(x, y) = Complex32(re_.at(x, y), im_.at(x, y));
        out->complex = true;
        out->complexPlane = complex_.view();
    }
    return {};
}

Status CpuBackend::process8(ImageView<const std::uint8_t> luma, const Output8& out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    const std::size_t last = chain_.stages.size() - 1;
    // An edge map's last stage writes its codes straight from the classes, a threshold's from
    // the comparison (no float output plane, no encoding pass).
    const bool written = std::visit(
        Overloaded{[&](const EdgeStagePlan& p) {
                       if (!p.spec.tracesEdges()) return false;
                       runStagesBefore(last, luma, [&](auto in) { edgesToCodes(p, in, out); });
                       return true;
                   },
                   [&](const ThresholdStagePlan& p) {
                       const ImageView<float> mean = stageOut_[last % 2].view();
                       runStagesBefore(last, luma, [&](auto in) {
                           blur(p.mean, in, mean);
                           thresholdRows(pool_, in, ImageView<const float>(mean), p.spec.offset, out.data, out.stride, out.step,
                                         encode8(0.0f, out.encoding), encode8(1.0f, out.encoding));
                       });
                       return true;
                   },
                   [](const auto&) { return false; }},
        plans_[last]);
    if (written) return {};
    if (fixed8_ && out.encoding.scale == 1.0 && out.encoding.offset == 0.0) {
        blur8(luma, out);
        return {};
    }
    ChainOutput r;
    if (Status s = process(luma, &r); !s) return s;
    const int W = format_.width, H = format_.height;
    pool_.parallelFor(laneGroups(H), [&](int g, int) {
        const int y0 = g * kLanes, y1 = std::min(H, y0 + kLanes);
        encodePlane8(ImageView<const float>(r.real.row(y0), W, y1 - y0, r.real.stride), out.encoding,
                     out.data + y0 * out.stride, out.stride, out.step);
    });
    return {};
}

// cpu_edges.cpp smooths (Canny) and cpu_gabor.cpp removes a Gabor's DC through these.
template void CpuBackend::blur(const BlurPlan&, ImageView<const std::uint8_t>, ImageView<float>);
template void CpuBackend::blur(const BlurPlan&, ImageView<const float>, ImageView<float>);

} // namespace striate::cpu
