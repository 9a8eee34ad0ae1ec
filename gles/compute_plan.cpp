// gles-compute's planner: a chain into planes, buffers, programs and dispatches, without a GL call.
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

#include "core/coefficients.h"
#include "core/liveness.h"

namespace striate::gles {
namespace {

/// Workgroup shapes of the shaders (their local_size layouts).
constexpr int kTile = 16;       // per-pixel passes: 16 x 16
constexpr int kLineGroup = 64;  // recursive_line.comp: one invocation per line

int groups(int n, int size) { return (n + size - 1) / size; }

constexpr std::size_t kTexelBytes = 4;  // R32F and R32UI

} // namespace

std::size_t ComputePlan::bytes(const FrameFormat& format) const {
    std::size_t total = 0;
    total += kTexelBytes * planes.size() * format.width * format.height;
    for (const ComputeBuffer& b : buffers) total += b.bytes;
    return total;
}

int ComputePlanner::plane(Format format) {
    plan_->planes.push_back(ComputePlane{format});
    return static_cast<int>(plan_->planes.size()) - 1;
}

void ComputePlanner::share() {
    // The luma is uploaded before the first pass; the result is read back after the last.
    std::vector<int> kinds;
    for (const ComputePlane& p : plan_->planes) kinds.push_back(static_cast<int>(p.format));
    const Sharing s = sharePlanes(plan_->steps, kinds, PlaneEnds{{plan_->luma}, {plan_->result}, {}}, [](ComputePass& pass, auto&& plane) {
        for (ComputeBinding& b : pass.bindings)
            if (b.kind != ComputeBinding::Kind::Buffer) plane(b.index);
    });
    plan_->luma = s.remap(plan_->luma);
    plan_->result = s.remap(plan_->result);
    plan_->planes.clear();
    for (int kind : s.storageKinds) plan_->planes.push_back(ComputePlane{static_cast<Format>(kind)});
}

int ComputePlanner::buffer(std::size_t bytes, std::vector<float> data, bool indirect) {
    // GLES needs a non-zero size; a shader's unsized array needs at least one element.
    plan_->buffers.push_back(ComputeBuffer{indirect, std::max<std::size_t>(bytes, 16), std::move(data)});
    return static_cast<int>(plan_->buffers.size()) - 1;
}

ComputePass& ComputePlanner::dispatch(const std::string& file, const Defines& defines, int gx, int gy,
                                      const std::string& writes, ComputeStep* step) {
    std::vector<ComputeProgram>& programs = plan_->programs;
    auto same = std::find_if(programs.begin(), programs.end(),
                             [&](const ComputeProgram& p) { return p.file == file && p.defines == defines; });
    if (same == programs.end()) {
        std::string name = file;
        for (const auto& [k, v] : defines) name += " " + k + "=" + v;
        programs.push_back(ComputeProgram{file, defines, name});
        same = programs.end() - 1;
    }
    plan_->passes.push_back({same->name, writes, std::to_string(gx) + "x" + std::to_string(gy) + " workgroups"});
    if (!step) step = &plan_->steps.emplace_back();
    ComputePass& pass = step->passes.emplace_back();
    pass.program = static_cast<int>(same - programs.begin());
    pass.groupsX = gx;
    pass.groupsY = gy;
    return pass;
}

void ComputePlanner::sampler(ComputePass& p, int unit, int plane) {
    p.bindings.push_back({ComputeBinding::Kind::Sampler, unit, plane, Access::Read});
}
void ComputePlanner::image(ComputePass& p, int unit, int plane, Access access) {
    p.bindings.push_back({ComputeBinding::Kind::Image, unit, plane, access});
}
void ComputePlanner::storage(ComputePass& p, int binding, int buffer) {
    p.bindings.push_back({ComputeBinding::Kind::Buffer, binding, buffer, Access::ReadWrite});
}
void ComputePlanner::uniform(ComputePass& p, const std::string& name, float v) {
    p.uniforms.push_back({name, ComputeUniform::Type::Float, {v}, {}});
}
void ComputePlanner::uniformInt(ComputePass& p, const std::string& name, int v) {
    p.uniforms.push_back({name, ComputeUniform::Type::Int, {}, {static_cast<unsigned>(v)}});
}
void ComputePlanner::uniformUint(ComputePass& p, const std::string& name, unsigned v) {
    p.uniforms.push_back({name, ComputeUniform::Type::Uint, {}, {v}});
}

void ComputePlanner::cascade(ComputePass& p, const CascadeFloat& f) {
    std::vector<float> poles, back, g, h, m(18);
    for (int k = 0; k < 3; ++k) {
        poles.insert(poles.end(), {f.pr[k], f.pi[k]});
        back.insert(back.end(), {f.qr[k], f.qi[k]});
        g.insert(g.end(), {f.gr[k], f.gi[k]});
        h.insert(h.end(), {f.hr[k], f.hi[k]});
        for (int j = 0; j < 3; ++j) m[2 * (3 * j + k)] = f.mr[j][k], m[2 * (3 * j + k) + 1] = f.mi[j][k];
    }
    uniform(p, "B", f.B);
    for (auto& [name, values] : {std::pair{"p", poles}, {"q", back}, {"g", g}, {"h", h}, {"m", m}})
        p.uniforms.push_back({name, ComputeUniform::Type::Vec2, values, {}});
}

int ComputePlanner::blur(const BlurPlan& plan, int in) {
    const int W = format_.width, H = format_.height;
    int source = in;
    for (int axis = 0; axis < 2; ++axis) {
        const int lines = axis == 0 ? H : W, length = axis == 0 ? W : H;
        Defines d = {{"AXIS", std::to_string(axis)}};
        if (plan.method == BlurMethod::Recursive) {
            // Along columns in place: the rows' result is the columns' input and output.
            const bool inPlace = axis == 1;
            d.insert(d.end(), {{"COMPLEX_IN", "0"}, {"COMPLEX_OUT", "0"}, {"IN_PLACE", inPlace ? "1" : "0"}});
            ComputePass& p = dispatch("recursive_line.comp", d, groups(lines, kLineGroup), 1, inPlace ? "R32F, in place" : "R32F");
            cascade(p, plan.recursive);
            const int target = inPlace ? source : plane(Format::R32F);
            if (!inPlace) sampler(p, 0, source);
            image(p, 0, target, Access::ReadWrite);
            source = target;
            continue;
        }
        const int target = plane(Format::R32F);
        if (plan.method == BlurMethod::Direct) {
            d.push_back({"RADIUS", std::to_string(plan.taps.size() - 1)});
            ComputePass& p = dispatch("gaussian_direct.comp", d, groups(W, kTile), groups(H, kTile), "R32F");
            uniform(p, "sigma", static_cast<float>(plan.sigma));
            sampler(p, 0, source);
            image(p, 0, target, Access::Write);
        } else {
            const int r = plan.box.r;
            const int total = length + 2 * plan.pad;
            int block = 8;
            while (block < 2 * r + 2) block *= 2;
            // Two float arrays of the padded line in workgroup memory, or in a storage buffer.
            const bool shared = static_cast<long>(2 * sizeof(float)) * total <= limits_.computeSharedBytes;
            const int capacity = shared ? total : std::max(W, H) + 2 * plan.pad;
            d.insert(d.end(), {{"PAD", std::to_string(plan.pad)},
                               {"PASSES", std::to_string(kBoxPasses)},
                               {"BLOCK", std::to_string(block)},
                               {"LINE", std::to_string(capacity)},
                               {"SHARED_LINE", shared ? "1" : "0"}});
            ComputePass& p = dispatch("box_blur.comp", d, lines, 1, "R32F");
            uniformInt(p, "r", r);
            uniform(p, "alpha", static_cast<float>(plan.box.alpha));
            uniform(p, "invNorm", static_cast<float>(1.0 / plan.box.norm));
            sampler(p, 0, source);
            image(p, 0, target, Access::Write);
            if (!shared) {
                // A padded line pair per workgroup, a workgroup per line: one scratch buffer, as
                // large as the longest padded axis needs, for every box pass of the plan.
                const std::size_t bytes = sizeof(float) * 2 * (std::max(W, H) + 2 * plan.pad) * std::max(W, H);
                if (boxScratch_ < 0) boxScratch_ = buffer(bytes);
                plan_->buffers[boxScratch_].bytes = std::max(plan_->buffers[boxScratch_].bytes, bytes);
                storage(p, 0, boxScratch_);
            }
        }
        source = target;
    }
    return source;
}

int ComputePlanner::gabor(const GaborPlan& plan, int in, int sector) {
    const int W = format_.width, H = format_.height;
    const int gauss = plan.removeDc ? blur(plan.dcBlur, in) : -1;
    const int out = plane(Format::R32F);
    const bool bank = isBankSink(plan.sink);
    if (plan.sink == GaborSink::Complex) {
        keptRe_ = plane(Format::R32F);
        keptIm_ = plane(Format::R32F);
    }
    const Defines tailDefines = {{"SINK", std::to_string(static_cast<int>(plan.sink))},
                                 {"REMOVE_DC", plan.removeDc ? "1" : "0"},
                                 {"TIE", glslFloat(kTieTolerance)}};
    // The stage's output from orientation o's response (gabor_combine.comp's, or a recursive
    // vertical pass's tail): its inputs and outputs past the response's own.
    const auto bindTail = [&](ComputePass& p, const GaborOrientationPlan& o, bool first) {
        if (plan.removeDc) {
            sampler(p, 2, gauss);
            uniform(p, "dcGain", o.dcGain);
        }
        image(p, 2, out, bank ? Access::ReadWrite : Access::Write);
        if (bank) uniformInt(p, "first", first);
        if (plan.sink == GaborSink::MaxEnergy) {
            image(p, 3, sector, Access::Write);
            uniformUint(p, "orientationSector", o.sector);
        }
    };
    // A recursive vertical pass ends in the tail itself where the output is a magnitude (SINK 0,
    // 5, 6): no combine pass, the final response never stored.
    const bool fusedTail = plan.recursive && (plan.sink == GaborSink::Magnitude || bank);
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        // Horizontal pass (real in), then vertical (complex in; recursive: in place).
        int re = -1, im = -1;
        for (int axis = 0; axis < 2; ++axis) {
            Defines d = {{"AXIS", std::to_string(axis)}, {"COMPLEX_IN", std::to_string(axis)}};
            if (plan.recursive) {
                const bool inPlace = axis == 1, tail = axis == 1 && fusedTail;
                d.insert(d.end(), {{"COMPLEX_OUT", "1"}, {"IN_PLACE", inPlace ? "1" : "0"}});
                if (tail) {
                    d.push_back({"TAIL", "1"});
                    d.insert(d.end(), tailDefines.begin(), tailDefines.end());
                }
                ComputePass& p = dispatch("recursive_line.comp", d, groups(axis == 0 ? H : W, kLineGroup), 1,
                                          tail   ? (bank ? "R32F (running maximum)" : "R32F")
                                          : inPlace ? "2 x R32F (re, im), in place"
                                                    : "2 x R32F (re, im)");
                cascade(p, axis == 0 ? o.x : o.y);
                if (!inPlace) {
                    sampler(p, 0, in);
                    re = plane(Format::R32F);
                    im = plane(Format::R32F);
                }
                image(p, 0, re, Access::ReadWrite);
                image(p, 1, im, Access::ReadWrite);
                if (tail) bindTail(p, o, k == 0);
                continue;
            }
            // The plan's half taps (c_k, s_k), k = 0..R, of this orientation and axis.
            const GaborTaps& t = axis == 0 ? o.tx : o.ty;
            std::vector<float> v;
            for (std::size_t j = 0; j < t.c.size(); ++j) v.insert(v.end(), {t.c[j], t.s[j]});
            const int taps = buffer(sizeof(float) * v.size(), v);
            d.push_back({"RADIUS", std::to_string(o.tx.c.size() - 1)});
            ComputePass& p = dispatch("gabor_direct.comp", d, groups(W, kTile), groups(H, kTile), "2 x R32F (re, im)");
            storage(p, 0, taps);
            sampler(p, 0, axis == 0 ? in : re);
            if (axis == 1) sampler(p, 1, im);
            re = plane(Format::R32F);
            im = plane(Format::R32F);
            image(p, 0, re, Access::Write);
            image(p, 1, im, Access::Write);
        }
        if (fusedTail) continue;
        ComputePass& p = dispatch("gabor_combine.comp", tailDefines, groups(W, kTile), groups(H, kTile),
                                  bank ? "R32F (running maximum)" : "R32F");
        sampler(p, 0, re);
        sampler(p, 1, im);
        bindTail(p, o, k == 0);
        if (plan.sink == GaborSink::Complex) {
            image(p, 0, keptRe_, Access::Write);
            image(p, 1, keptIm_, Access::Write);
        }
    }
    return out;
}

int ComputePlanner::edges(const EdgeStagePlan& plan, int in) {
    const EdgeSpec& spec = plan.spec;
    const int W = format_.width, H = format_.height;
    const int sector = plane(Format::R32UI);
    const int strength = std::visit(
        Overloaded{[&](const CannyPlan& c) {
                       const int gauss = blur(c.smoothing, in);
                       const int gradient = plane(Format::R32F);
                       ComputePass& p =
                           dispatch("gradient.comp", {{"TAN22_5", glslFloat(kTan22_5)}, {"TAN67_5", glslFloat(kTan67_5)}},
                                    groups(W, kTile), groups(H, kTile), "R32F strength, R32UI sector");
                       sampler(p, 0, gauss);
                       image(p, 0, gradient, Access::Write);
                       image(p, 1, sector, Access::Write);
                       return gradient;
                   },
                   [&](const GaborEnergyPlan& g) { return gabor(g.bank, in, sector); }},
        plan.method);
    const int classes = plane(Format::R32UI);
    {
        ComputePass& p = dispatch("suppress.comp", {{"TIE", glslFloat(kTieTolerance)}}, groups(W, kTile), groups(H, kTile),
                                  "R32UI classes");
        uniform(p, "low", static_cast<float>(spec.lowThreshold));
        uniform(p, "high", static_cast<float>(spec.highThreshold));
        sampler(p, 0, strength);
        sampler(p, 1, sector);
        image(p, 0, classes, Access::Write);
    }
    hysteresis(classes);
    const int out = plane(Format::R32F);
    ComputePass& p = dispatch("edges_output.comp", {{"OUTPUT", std::to_string(static_cast<int>(spec.output))}},
                              groups(W, kTile), groups(H, kTile), "R32F");
    sampler(p, 0, classes);
    switch (spec.output) {
    case EdgeOutput::Edges: break;
    case EdgeOutput::Strength: sampler(p, 1, strength); break;
    case EdgeOutput::Overlay: sampler(p, 1, in); break;
    }
    image(p, 0, out, Access::Write);
    return out;
}

void ComputePlanner::hysteresis(int classes) {
    const unsigned gx = static_cast<unsigned>(groups(format_.width, kTile)), gy = static_cast<unsigned>(groups(format_.height, kTile));
    if (plan_->changed < 0) {
        plan_->changed = buffer(3 * sizeof(unsigned));  // changed, passes, iterations (hysteresis.comp)
        plan_->indirect = buffer(3 * sizeof(unsigned), {}, true);
    }
    ComputeStep& loop = plan_->steps.emplace_back();
    loop.repeatUntilStable = true;
    ComputePass& pass = dispatch("hysteresis.comp", {}, static_cast<int>(gx), static_cast<int>(gy), "R32UI classes, in place", &loop);
    pass.indirect = true;
    image(pass, 0, classes, Access::ReadWrite);
    storage(pass, 0, plan_->changed);
    ComputePass& gate = dispatch("hysteresis_gate.comp", {}, 1, 1, "the next pass's dispatch size", &loop);
    plan_->passes.back().grid += " (repeated until a pass changes nothing)";
    gate.uniforms.push_back({"grid", ComputeUniform::Type::Uvec2, {}, {gx, gy}});
    storage(gate, 0, plan_->changed);
    storage(gate, 1, plan_->indirect);
}

void ComputePlanner::planChain(const Chain& chain) {
    const int W = format_.width, H = format_.height;
    // The frame arrives as the reference's unit values float(c / 255), converted on the host (a
    // shader division need not round correctly).
    plan_->luma = plane(Format::R32F);
    int v = plan_->luma;
    for (const Stage& stage : chain.stages) {
        v = std::visit(Overloaded{[&](const BlurStagePlan& p) { return blur(p.blur, v); },
                                  [&](const GaborStagePlan& p) { return gabor(p.gabor, v); },
                                  [&](const EdgeStagePlan& p) { return edges(p, v); },
                                  [&](const ThresholdStagePlan& p) {
                                      // The comparison over the mean, in place.
                                      const int mean = blur(p.mean, v);
                                      ComputePass& pass = dispatch("threshold.comp", {}, groups(W, kTile), groups(H, kTile),
                                                                   "R32F, in place");
                                      uniform(pass, "offset", static_cast<float>(p.spec.offset));
                                      sampler(pass, 0, v);
                                      image(pass, 0, mean, Access::ReadWrite);
                                      return mean;
                                  }},
                       planStage(stage));
    }
    plan_->complexOutput = chain.complexOutput();
    const bool complex = plan_->complexOutput;
    if (!complex && redReadback_) {
        plan_->result = v;  // read through a framebuffer
    } else {
        // The result into a buffer the host maps: the real plane, or the kept complex planes.
        plan_->readback = buffer(sizeof(float) * (complex ? 2 : 1) * W * H);
        ComputePass& p = dispatch("store.comp", {{"COMPLEX", complex ? "1" : "0"}}, groups(W, kTile), groups(H, kTile),
                                  "read-back buffer");
        sampler(p, 0, complex ? keptRe_ : v);
        if (complex) sampler(p, 1, keptIm_);
        storage(p, 0, plan_->readback);
    }
    share();
}

} // namespace striate::gles
