#include "cpu/neon/cpu_backend.h"

#include <algorithm>
#include <cmath>

#include "core/params.h"
#include "cpu/neon/avx2.h"
#include "cpu/neon/encode.h"
#include "cpu/neon/fixed.h"
#include "cpu/neon/kernels.h"
#include "cpu/neon/lines.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {
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
        kernels_.push_back(std::visit([](const auto& p) { return kernelName(p); }, plans_.back()));
    }
    // A chain of one blur has an 8-bit form in fixed point (process8).
    fixedTaps_.clear();
    if (chain.stages.size() == 1)
        std::visit(Overloaded{[&](const BlurStagePlan& p) { fixedTaps_ = fixedTapsFor(p.spec); }, [](const auto&) {}},
                   plans_[0]);
    const int W = format.width, H = format.height;
    // A block holds a line plus the box cascade's padding; a direct blur's padded row (firRows)
    // needs W + 2R floats, which exceeds a block on narrow frames with a wide kernel.
    // A banded direct blur's ring of horizontally filtered rows (FirBand).
    int pad = 0, radius = 0;
    std::size_t ring = 0;
    for (const StagePlan& p : plans_)
        for (const BlurPlan* b : blursOf(p))
            std::visit(Overloaded{[&](const DirectBlur& d) {
                                      radius = std::max(radius, d.radius() + 1);
                                      if (banded(d)) ring = std::max(ring, FirBand<float>::workspaceFloats(W, d.radius()));
                                  },
                                  [&](const BoxBlur& x) { pad = std::max(pad, x.pad); },
                                  [](const RecursiveBlur&) {}},
                       b->method);
    // A Gabor's horizontal block is written out as whole strips (toStrips): W rounded up to kLanes.
    const std::size_t blockSize = std::max(static_cast<std::size_t>(std::max(laneGroups(W) * kLanes, H) + 2 * pad) * kLanes,
                                           static_cast<std::size_t>(W + 2 * radius));
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
    for (const StagePlan& plan : plans_) std::visit([&](const auto& p) { planes(p, &need); }, plan);
    need.halfColumns = need.complex && need.halves && !need.rowPass && laneGroups(format_.width) > 1;
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

bool CpuBackend::rowWise(const GaborOrientationPlan& o) const {
    // Along x a band's 2R halo rows only enter the ring as floats; along y each is filtered
    // horizontally, which stays within a quarter of the band's work where 4R <= its rows.
    return !o.across.empty() && (o.alongX || 4 * (static_cast<int>(o.across.size()) - 1) <= bandRows());
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

void CpuBackend::encodeTo(ImageView<const float> floats, const Output8& out) {
    const int W = format_.width, H = format_.height;
    pool_.parallelFor(laneGroups(H), [&](int g, int) {
        const int y0 = g * kLanes, y1 = std::min(H, y0 + kLanes);
        encodePlane8(ImageView<const float>(floats.row(y0), W, y1 - y0, floats.stride), out.encoding,
                     out.data + y0 * out.stride, out.stride, out.step);
    });
}

template <class Src>
void CpuBackend::runStage(std::size_t index, ImageView<const Src> in, ImageView<float> out) {
    std::visit([&](const auto& p) { toFloats(p, in, out); }, plans_[index]);
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
    if (fixed8_ && out.encoding.scale == 1.0 && out.encoding.offset == 0.0) {
        blur8(luma, out);
        return {};
    }
    const std::size_t last = chain_.stages.size() - 1;
    const ImageView<float> floats = stageOut_[last % 2].view();
    runStagesBefore(last, luma, [&](auto in) {
        std::visit([&](const auto& p) { toCodes(p, in, floats, out); }, plans_[last]);
    });
    return {};
}

} // namespace striate::cpu
