#include "gles/compute_backend.h"

#include <GLES3/gl31.h>

#include <algorithm>
#include <cstring>
#include <variant>

#include "core/coefficients.h"

namespace striate::gles {
namespace {

/// Workgroup shapes of the shaders (their local_size layouts).
constexpr int kTile = 16;      // per-pixel passes: 16 x 16
constexpr int kLineGroup = 64;  // recursive_line.comp: one invocation per line
constexpr int kBoxGroup = 256;  // box_blur.comp: one workgroup per line
/// Hysteresis passes queued between two checks of the GPU-side gate (gles-fragment reads its
/// classes back per kHysteresisPairsPerCheck pairs of draws).
constexpr int kHysteresisPassesPerCheck = 16;

int groups(int n, int size) { return (n + size - 1) / size; }

GLint at(unsigned program, const char* name) { return glGetUniformLocation(program, name); }

void bindSampler(int unit, unsigned texture) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, texture);
}

void bindImage(int unit, unsigned texture, GLenum access, GLenum format) {
    glBindImageTexture(unit, texture, 0, GL_FALSE, 0, access, format);
}

} // namespace

Status ComputeBackend::create(const GpuLimits& limits, std::unique_ptr<ComputeBackend>* out) {
    std::unique_ptr<ComputeBackend> b(new ComputeBackend(limits));
    if (Status s = b->createContext(); !s) return s;
    const ContextInfo& info = b->info_;
    if (info.major < 3 || (info.major == 3 && info.minor < 1))
        return Status::error("gles-compute needs GLES 3.1 compute shaders; this context is GLES " +
                             std::to_string(info.major) + "." + std::to_string(info.minor));
    if (limits.computeInvocations < kBoxGroup)
        return Status::error("gles-compute needs " + std::to_string(kBoxGroup) +
                             " compute invocations per workgroup; the board allows " + std::to_string(limits.computeInvocations));
    *out = std::move(b);
    return {};
}

ComputeBackend::~ComputeBackend() {
    const Current current(*this);
    if (!current.status()) return;  // no context: no objects either
    releaseGl();
    stopListening();
    cache_.reset();
}

void ComputeBackend::releaseGl() {
    if (!textures_.empty()) glDeleteTextures(static_cast<GLsizei>(textures_.size()), textures_.data());
    if (!buffers_.empty()) glDeleteBuffers(static_cast<GLsizei>(buffers_.size()), buffers_.data());
    textures_.clear();
    buffers_.clear();
    taps_.clear();
}

unsigned ComputeBackend::texture(unsigned internalFormat) {
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, internalFormat, format_.width, format_.height);
    // Float and integer textures are not filterable: nearest keeps them complete for texelFetch.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    textures_.push_back(t);
    return t;
}

Status ComputeBackend::configureCurrent(const Chain& chain, const FrameFormat& format) {
    releaseGl();
    chain_ = chain;
    format_ = format;
    plans_.clear();
    for (const Stage& st : chain.stages) plans_.push_back(planStage(st));
    const int W = format.width, H = format.height;
    luma_ = texture(GL_R8);
    for (unsigned* t : {&unit_, &stageOut_[0], &stageOut_[1], &tmp_, &gauss_, &hRe_, &hIm_, &vRe_, &vIm_, &keptRe_,
                        &keptIm_, &strength_})
        *t = texture(GL_R32F);
    sector_ = texture(GL_R32UI);
    classes_ = texture(GL_R32UI);

    auto buffer = [this](GLenum target, std::size_t bytes, const void* data) {
        GLuint b = 0;
        glGenBuffers(1, &b);
        glBindBuffer(target, b);
        glBufferData(target, static_cast<GLsizeiptr>(std::max<std::size_t>(bytes, 16)), data, GL_DYNAMIC_DRAW);
        buffers_.push_back(b);
        return b;
    };
    readback_ = buffer(GL_SHADER_STORAGE_BUFFER, sizeof(float) * 2 * W * H, nullptr);
    changed_ = buffer(GL_SHADER_STORAGE_BUFFER, sizeof(GLuint), nullptr);
    unitTable_ = buffer(GL_SHADER_STORAGE_BUFFER, sizeof(float) * 256, unitValues().data());
    indirect_ = buffer(GL_DISPATCH_INDIRECT_BUFFER, 3 * sizeof(GLuint), nullptr);
    // Boxes whose padded line exceeds workgroup memory keep it in a storage buffer.
    std::size_t scratch = 0;
    for (const StagePlan& p : plans_)
        for (const BlurPlan* b : {&p.blur, &p.gabor.dcBlur})
            if (b->method == BlurMethod::Boxes)
                scratch = std::max(scratch, sizeof(float) * 2 * (std::max(W, H) + 2 * b->pad) * std::max(W, H));
    boxScratch_ = buffer(GL_SHADER_STORAGE_BUFFER, scratch, nullptr);
    // Direct Gabor taps per orientation and axis: the plan's half taps (c_k, s_k), k = 0..R.
    taps_.assign(chain.stages.size(), {});
    for (std::size_t i = 0; i < plans_.size(); ++i) {
        const GaborPlan& g = plans_[i].gabor;
        if (g.recursive) continue;
        for (const GaborOrientationPlan& o : g.bank) {
            std::array<unsigned, 2> pair{};
            for (int axis = 0; axis < 2; ++axis) {
                const GaborTaps& t = axis == 0 ? o.tx : o.ty;
                std::vector<float> v;
                for (std::size_t k = 0; k < t.c.size(); ++k) v.insert(v.end(), {t.c[k], t.s[k]});
                pair[axis] = buffer(GL_SHADER_STORAGE_BUFFER, sizeof(float) * v.size(), v.data());
            }
            taps_[i].push_back(pair);
        }
    }
    resetOutputs(chain.complexOutput());
    // A dry run compiles every program and records the passes (--explain) without dispatching.
    failure_ = {};
    passes_.clear();
    recording_ = true;
    runChain();
    recording_ = false;
    failure_ = glStatus("while configuring");
    return failure_;
}

unsigned ComputeBackend::program(const std::string& file, const Defines& defines) {
    unsigned p = 0;
    if (!failure_) return 0;
    if (Status s = cache_->compute(file, defines, &p); !s) {
        failure_ = s;
        return 0;
    }
    return p;
}

void ComputeBackend::dispatch(const std::string& file, const Defines& defines, unsigned prog, int gx, int gy,
                              const std::string& writes) {
    if (recording_) {
        std::string name = file;
        for (const auto& [k, v] : defines) name += " " + k + "=" + v;
        passes_.push_back({name, writes, std::to_string(gx) + "x" + std::to_string(gy) + " workgroups"});
        return;
    }
    if (!prog) return;
    glUseProgram(prog);
    const auto name = [&] {
        std::string n = file;
        for (const auto& [k, v] : defines) n += " " + k + "=" + v;
        return n;
    };
    runHeard(prog, true, name, [&] { glDispatchCompute(static_cast<GLuint>(gx), static_cast<GLuint>(gy), 1); });
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
}

void ComputeBackend::blur(const BlurPlan& plan, unsigned in, unsigned out) {
    const int W = format_.width, H = format_.height;
    const unsigned sources[2] = {in, tmp_}, targets[2] = {tmp_, out};
    for (int axis = 0; axis < 2; ++axis) {
        const int lines = axis == 0 ? H : W, length = axis == 0 ? W : H;
        Defines d = {{"AXIS", std::to_string(axis)}};
        bindSampler(0, sources[axis]);
        if (plan.method == BlurMethod::Direct) {
            const unsigned p = program("gaussian_direct.comp", d);
            if (!p) return;
            glProgramUniform1f(p, at(p, "sigma"), static_cast<float>(plan.sigma));
            glProgramUniform1i(p, at(p, "radius"), static_cast<int>(plan.taps.size()) - 1);
            bindImage(0, targets[axis], GL_WRITE_ONLY, GL_R32F);
            dispatch("gaussian_direct.comp", d, p, groups(W, kTile), groups(H, kTile), "R32F");
        } else if (plan.method == BlurMethod::Boxes) {
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
            const unsigned p = program("box_blur.comp", d);
            if (!p) return;
            glProgramUniform1i(p, at(p, "r"), r);
            glProgramUniform1f(p, at(p, "alpha"), static_cast<float>(plan.box.alpha));
            glProgramUniform1f(p, at(p, "invNorm"), static_cast<float>(1.0 / plan.box.norm));
            bindImage(0, targets[axis], GL_WRITE_ONLY, GL_R32F);
            if (!shared) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, boxScratch_);
            dispatch("box_blur.comp", d, p, lines, 1, "R32F");
        } else {
            d.insert(d.end(), {{"COMPLEX_IN", "0"}, {"COMPLEX_OUT", "0"}});
            const unsigned p = program("recursive_line.comp", d);
            if (!p) return;
            setCascade(p, plan.recursive);
            bindImage(0, targets[axis], GL_READ_WRITE, GL_R32F);
            dispatch("recursive_line.comp", d, p, groups(lines, kLineGroup), 1, "R32F");
        }
    }
}

void ComputeBackend::setCascade(unsigned p, const CascadeFloat& f) {
    float poles[6], back[6], g[6], h[6], m[18];
    for (int k = 0; k < 3; ++k) {
        poles[2 * k] = f.pr[k], poles[2 * k + 1] = f.pi[k];
        back[2 * k] = f.qr[k], back[2 * k + 1] = f.qi[k];
        g[2 * k] = f.gr[k], g[2 * k + 1] = f.gi[k];
        h[2 * k] = f.hr[k], h[2 * k + 1] = f.hi[k];
        for (int j = 0; j < 3; ++j) m[2 * (3 * j + k)] = f.mr[j][k], m[2 * (3 * j + k) + 1] = f.mi[j][k];
    }
    glProgramUniform1f(p, at(p, "B"), f.B);
    glProgramUniform2fv(p, at(p, "p"), 3, poles);
    glProgramUniform2fv(p, at(p, "q"), 3, back);
    glProgramUniform2fv(p, at(p, "g"), 3, g);
    glProgramUniform2fv(p, at(p, "h"), 3, h);
    glProgramUniform2fv(p, at(p, "m"), 9, m);
}

void ComputeBackend::gabor(const GaborPlan& plan, const Taps& taps, unsigned in, unsigned out) {
    const int W = format_.width, H = format_.height;
    if (plan.removeDc) blur(plan.dcBlur, in, gauss_);
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        // Horizontal pass (real in), then vertical (complex in), into vRe_/vIm_.
        for (int axis = 0; axis < 2; ++axis) {
            const Defines d = plan.recursive
                                  ? Defines{{"AXIS", std::to_string(axis)}, {"COMPLEX_IN", std::to_string(axis)}, {"COMPLEX_OUT", "1"}}
                                  : Defines{{"AXIS", std::to_string(axis)}, {"COMPLEX_IN", std::to_string(axis)}};
            const char* file = plan.recursive ? "recursive_line.comp" : "gabor_direct.comp";
            const unsigned p = program(file, d);
            if (!p) return;
            bindSampler(0, axis == 0 ? in : hRe_);
            bindSampler(1, hIm_);
            const unsigned re = axis == 0 ? hRe_ : vRe_, im = axis == 0 ? hIm_ : vIm_;
            if (plan.recursive) {
                setCascade(p, axis == 0 ? o.x : o.y);
                bindImage(0, re, GL_READ_WRITE, GL_R32F);
                bindImage(1, im, GL_READ_WRITE, GL_R32F);
                dispatch(file, d, p, groups(axis == 0 ? H : W, kLineGroup), 1, "2 x R32F (re, im)");
            } else {
                glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, taps[k][axis]);
                glProgramUniform1i(p, at(p, "radius"), static_cast<int>(o.tx.c.size()) - 1);
                bindImage(0, re, GL_WRITE_ONLY, GL_R32F);
                bindImage(1, im, GL_WRITE_ONLY, GL_R32F);
                dispatch(file, d, p, groups(W, kTile), groups(H, kTile), "2 x R32F (re, im)");
            }
        }
        const int sink = static_cast<int>(plan.sink);
        const Defines d = {{"SINK", std::to_string(sink)}, {"REMOVE_DC", plan.removeDc ? "1" : "0"},
                           {"TIE", glslFloat(kTieTolerance)}};
        const unsigned p = program("gabor_combine.comp", d);
        if (!p) return;
        bindSampler(0, vRe_);
        bindSampler(1, vIm_);
        bindSampler(2, gauss_);
        if (plan.removeDc) glProgramUniform1f(p, at(p, "dcGain"), o.dcGain);
        const bool bank = plan.sink == GaborSink::MaxMagnitude || plan.sink == GaborSink::MaxEnergy;
        bindImage(0, out, bank ? GL_READ_WRITE : GL_WRITE_ONLY, GL_R32F);
        if (bank) glProgramUniform1i(p, at(p, "first"), k == 0);
        if (plan.sink == GaborSink::Complex) {
            bindImage(1, keptRe_, GL_WRITE_ONLY, GL_R32F);
            bindImage(2, keptIm_, GL_WRITE_ONLY, GL_R32F);
        }
        if (plan.sink == GaborSink::MaxEnergy) {
            bindImage(1, sector_, GL_WRITE_ONLY, GL_R32UI);
            glProgramUniform1ui(p, at(p, "orientationSector"), o.sector);
        }
        dispatch("gabor_combine.comp", d, p, groups(W, kTile), groups(H, kTile), bank ? "R32F (running maximum)" : "R32F");
    }
}

void ComputeBackend::edges(const EdgeSpec& spec, const StagePlan& plan, const Taps& taps, unsigned in,
                           unsigned out) {
    const int W = format_.width, H = format_.height;
    const Defines tie = {{"TIE", glslFloat(kTieTolerance)}};
    if (spec.method == EdgeMethod::Canny) {
        blur(plan.blur, in, gauss_);
        const Defines d = {{"TAN22_5", glslFloat(kTan22_5)}, {"TAN67_5", glslFloat(kTan67_5)}};
        const unsigned p = program("gradient.comp", d);
        if (!p) return;
        bindSampler(0, gauss_);
        bindImage(0, strength_, GL_WRITE_ONLY, GL_R32F);
        bindImage(1, sector_, GL_WRITE_ONLY, GL_R32UI);
        dispatch("gradient.comp", d, p, groups(W, kTile), groups(H, kTile), "R32F strength, R32UI sector");
    } else {
        gabor(plan.gabor, taps, in, strength_);
    }
    const unsigned s = program("suppress.comp", tie);
    if (!s) return;
    glProgramUniform1f(s, at(s, "low"), static_cast<float>(spec.lowThreshold));
    glProgramUniform1f(s, at(s, "high"), static_cast<float>(spec.highThreshold));
    bindSampler(0, strength_);
    bindSampler(1, sector_);
    bindImage(0, classes_, GL_WRITE_ONLY, GL_R32UI);
    dispatch("suppress.comp", tie, s, groups(W, kTile), groups(H, kTile), "R32UI classes");
    hysteresis();
    const Defines d = {{"OUTPUT", std::to_string(static_cast<int>(spec.output))}};
    const unsigned o = program("edges_output.comp", d);
    if (!o) return;
    bindSampler(0, classes_);
    bindSampler(1, spec.output == EdgeOutput::Strength ? strength_ : in);
    bindImage(0, out, GL_WRITE_ONLY, GL_R32F);
    dispatch("edges_output.comp", d, o, groups(W, kTile), groups(H, kTile), "R32F");
}

void ComputeBackend::hysteresis() {
    const GLuint gx = static_cast<GLuint>(groups(format_.width, kTile)), gy = static_cast<GLuint>(groups(format_.height, kTile));
    const unsigned pass = program("hysteresis.comp", {});
    const unsigned gate = program("hysteresis_gate.comp", {});
    if (!pass || !gate) return;
    if (recording_) {
        dispatch("hysteresis.comp", {}, pass, static_cast<int>(gx), static_cast<int>(gy), "R32UI classes, in place");
        dispatch("hysteresis_gate.comp", {}, gate, 1, 1, "the next pass's dispatch size");
        passes_.back().grid += " (repeated until a pass changes nothing)";
        return;
    }
    const GLuint zero = 0, full[3] = {gx, gy, 1};
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, changed_);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof zero, &zero);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, indirect_);
    glBufferSubData(GL_DISPATCH_INDIRECT_BUFFER, 0, sizeof full, full);
    glProgramUniform2ui(gate, at(gate, "grid"), gx, gy);
    bindImage(0, classes_, GL_READ_WRITE, GL_R32UI);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, changed_);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, indirect_);
    // Each pass reaches at least one more tile along every unfinished path, so the number of
    // passes is bounded by the number of tiles; the GPU gate makes the passes after the fixed
    // point empty, and the host looks only once per batch.
    const long maxBatches = static_cast<long>(gx) * gy / kHysteresisPassesPerCheck + 2;
    for (long batch = 0; batch < maxBatches; ++batch) {
        for (int i = 0; i < kHysteresisPassesPerCheck; ++i) {
            glUseProgram(pass);
            runHeard(pass, true, [] { return std::string("hysteresis.comp"); }, [] { glDispatchComputeIndirect(0); });
            glMemoryBarrier(GL_ALL_BARRIER_BITS);
            glUseProgram(gate);
            runHeard(gate, true, [] { return std::string("hysteresis_gate.comp"); }, [] { glDispatchCompute(1, 1, 1); });
            glMemoryBarrier(GL_ALL_BARRIER_BITS);
        }
        glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, indirect_);
        const auto* args = static_cast<const GLuint*>(
            glMapBufferRange(GL_DISPATCH_INDIRECT_BUFFER, 0, 3 * sizeof(GLuint), GL_MAP_READ_BIT));
        const bool done = !args || args[0] == 0;
        glUnmapBuffer(GL_DISPATCH_INDIRECT_BUFFER);
        if (!args) failure_ = Status::error("gles-compute: cannot map the hysteresis gate");
        if (done) return;
    }
}

void ComputeBackend::runChain() {
    for (std::size_t i = 0; i < chain_.stages.size() && failure_; ++i) {
        const unsigned in = i == 0 ? unit_ : stageOut_[(i - 1) % 2];
        const unsigned out = stageOut_[i % 2];
        if (i == 0) {
            const unsigned p = program("luma_to_unit.comp", {});
            if (!p) return;
            bindSampler(0, luma_);
            bindImage(0, unit_, GL_WRITE_ONLY, GL_R32F);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, unitTable_);
            dispatch("luma_to_unit.comp", {}, p, groups(format_.width, kTile), groups(format_.height, kTile), "R32F");
        }
        const Stage& stage = chain_.stages[i];
        if (std::holds_alternative<BlurSpec>(stage)) blur(plans_[i].blur, in, out);
        else if (std::holds_alternative<GaborSpec>(stage)) gabor(plans_[i].gabor, taps_[i], in, out);
        else edges(std::get<EdgeSpec>(stage), plans_[i], taps_[i], in, out);
    }
    // The result into the read-back buffer: the real plane, or the kept complex planes.
    const bool complex = chain_.complexOutput();
    const Defines d = {{"COMPLEX", complex ? "1" : "0"}};
    const unsigned p = program("store.comp", d);
    if (!p) return;
    bindSampler(0, complex ? keptRe_ : stageOut_[(chain_.stages.size() - 1) % 2]);
    bindSampler(1, keptIm_);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, readback_);
    dispatch("store.comp", d, p, groups(format_.width, kTile), groups(format_.height, kTile), "read-back buffer");
}

Status ComputeBackend::processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    const int W = format_.width, H = format_.height;
    failure_ = {};
    glBindTexture(GL_TEXTURE_2D, luma_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(luma.stride));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RED, GL_UNSIGNED_BYTE, luma.data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    runChain();
    if (!failure_) return failure_;
    const bool complex = chain_.complexOutput();
    const std::size_t floats = static_cast<std::size_t>(W) * H * (complex ? 2 : 1);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, readback_);
    const auto* values = static_cast<const float*>(
        glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(floats * sizeof(float)), GL_MAP_READ_BIT));
    if (!values) {
        const GLenum e = glGetError();
        return Status::error(std::string("gles-compute: the result cannot be read back (") + glErrorName(e) + ")");
    }
    for (int y = 0; y < H; ++y) {
        if (complex) {
            const float* row = values + 2 * static_cast<std::size_t>(y) * W;
            for (int x = 0; x < W; ++x) complex_.at(x, y) = Complex32(row[2 * x], row[2 * x + 1]);
        } else {
            std::memcpy(real_.row(y), values + static_cast<std::size_t>(y) * W, W * sizeof(float));
        }
    }
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    *out = output(complex);
    return glStatus("while processing a frame");
}

} // namespace striate::gles
