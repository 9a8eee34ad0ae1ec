// gles-compute's planner: a chain into planes, buffers, programs and dispatches, without a GL call.
// Each stage's dispatches are in gles/compute/ (blur.cpp, gabor.cpp, edges.cpp, threshold.cpp).
#include "gles/compute_plan.h"

#include <algorithm>
#include <variant>

#include "core/coefficients.h"
#include "core/liveness.h"

namespace striate::gles {
std::size_t ComputePlan::bytes(const FrameFormat& format) const {
    std::size_t total = 0;
    for (const ComputePlane& p : planes) total += p.texelBytes() * format.width * format.height;
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
    // GLES needs a non-zero size; a shader's unsized array needs at least one element. Initial
    // data fills the whole buffer (glBufferData reads `bytes` of it), zeros after what is given.
    bytes = std::max<std::size_t>(bytes, 16);
    if (!data.empty()) data.resize((bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
    plan_->buffers.push_back(ComputeBuffer{indirect, bytes, std::move(data)});
    return static_cast<int>(plan_->buffers.size()) - 1;
}

ComputePass& ComputePlanner::dispatch(const std::string& file, const Defines& defines, int gx, int gy,
                                      const std::string& writes, ComputeStep* step) {
    if (!step) step = &plan_->steps.emplace_back();
    return step->passes.emplace_back(pass(file, defines, gx, gy, writes));
}

ComputePass ComputePlanner::pass(const std::string& file, const Defines& defines, int gx, int gy, const std::string& writes) {
    std::vector<ComputeProgram>& programs = plan_->programs;
    auto same = std::find_if(programs.begin(), programs.end(),
                             [&](const ComputeProgram& p) { return p.file == file && p.defines == defines; });
    if (same == programs.end()) {
        // Every define, an enum's table included (enumDefines): scripts/pi_passes.py and
        // pi_compilers --compute make the program again from this name.
        std::string name = file;
        for (const auto& [k, v] : defines) name += " " + k + "=" + v;
        programs.push_back(ComputeProgram{file, defines, name});
        same = programs.end() - 1;
    }
    plan_->passes.push_back({same->name, writes, std::to_string(gx) + "x" + std::to_string(gy) + " workgroups"});
    ComputePass pass;
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

void ComputePlanner::demodulatedCascade(ComputePass& p, const DemodCascade& f) {
    for (auto& [name, v] : {std::pair{"d0", f.d0}, {"a1", f.a1}, {"a2", f.a2}}) uniform(p, name, v);
    demodulatedBorders(p, f, "g", "m");
}

void ComputePlanner::demodulatedBorders(ComputePass& p, const DemodCascade& f, const std::string& causal,
                                        const std::string& anticausal) {
    // The shader's directions leave out the Gaussian's B (their outputs are y, not B y): the
    // anticausal pass reads the causal outputs over B, so its states start from the matrix over B.
    std::vector<float> g, m;
    for (int k = 0; k < 3; ++k) g.insert(g.end(), {f.cr[k], f.ci[k]});
    const double overB = 1.0 / f.B;
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
            m.insert(m.end(), {static_cast<float>(f.qr[j][k] * overB), static_cast<float>(f.qi[j][k] * overB)});
    p.uniforms.push_back({causal, ComputeUniform::Type::Vec2, g, {}});
    p.uniforms.push_back({anticausal, ComputeUniform::Type::Vec2, m, {}});
}

void ComputePlanner::planChain(const Chain& chain) {
    planStages(chain);
    // The frame goes up as its codes only where every pass that reads it reads codes (gabor.cpp
    // decides for its own passes): where a later stage reads the frame too (a Gabor energy
    // bank's overlay), the chain is planned again with the frame as unit floats.
    if (plan_->planes[plan_->luma].format == Format::R8UI) {
        bool floatsRead = false;
        for (const ComputeStep& step : plan_->steps)
            for (const ComputePass& pass : step.passes)
                for (const ComputeBinding& b : pass.bindings) {
                    const Defines& d = plan_->programs[pass.program].defines;
                    floatsRead = floatsRead || (b.kind == ComputeBinding::Kind::Sampler && b.index == plan_->luma &&
                                                std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"CODES", "1"}) == d.end());
                }
        if (floatsRead) {
            *plan_ = ComputePlan{};
            kept_ = Kept{};
            codesAllowed_ = false;
            planStages(chain);
        }
    }
    share();
    planEncode();
}

void ComputePlanner::planEncode() {
    // From the result plane (read through a framebuffer where R32F reads back as GL_RED: Mesa's).
    if (plan_->result < 0 || !plan_->status) return;
    const int W = format_.width, H = format_.height, blocks = (W + kEncodeBlock - 1) / kEncodeBlock;
    const std::size_t bytes = static_cast<std::size_t>(kEncodeBlock) * blocks * H;
    // A buffer whose contents no frame needs after its passes: none made at configure time (a
    // table), nor the hysteresis gate's, nor the read-back. Where there is none, the host encodes
    // (a buffer for the codes alone would add to the plan's GPU memory).
    for (std::size_t i = 0; i < plan_->buffers.size() && plan_->codes < 0; ++i) {
        const ComputeBuffer& b = plan_->buffers[i];
        const int k = static_cast<int>(i);
        if (b.data.empty() && !b.indirect && k != plan_->hysteresis && k != plan_->readback && b.bytes >= bytes)
            plan_->codes = k;
    }
    if (plan_->codes < 0) return;
    ComputePass p = pass("encode8.comp", {}, groups(blocks, kTile), groups(H, kTile),
                         "codes, " + std::to_string(kEncodeBlock) + " an invocation (process8: the 8-bit output)");
    sampler(p, 0, plan_->result);
    storage(p, 0, plan_->codes);
    uniformInt(p, "width", W);
    uniformInt(p, "height", H);
    uniform(p, "scale", 1);  // the encoding's, set per frame: the pass's last uniform
    plan_->encode = std::move(p);
}

void ComputePlanner::planStages(const Chain& chain) {
    const int W = format_.width, H = format_.height;
    // The frame arrives as the reference's unit values float(c / 255), converted on the host (a
    // shader division need not round correctly), or as its codes where its only readers turn them
    // into the same values (gabor.cpp).
    plan_->luma = plane(Format::R32F);
    int v = plan_->luma;
    for (const Stage& stage : chain.stages) {
        v = std::visit([&](const auto& p) { return this->stage(p, v); }, planStage(stage));
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
        sampler(p, 0, complex ? kept_.re : v);
        if (complex) sampler(p, 1, kept_.im);
        storage(p, 0, plan_->readback);
    }
}

} // namespace striate::gles
