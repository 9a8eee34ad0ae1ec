#include "gles/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <variant>

#include "core/coefficients.h"

namespace striate::gles {
namespace {

using C = std::complex<double>;

/// Hysteresis iterations (two draws each) between two checks for a fixed point.
constexpr int kHysteresisBatch = 8;
/// The most passes a direct Gaussian may be cascaded into per axis.
constexpr int kMaxCascadePasses = 64;
/// Packed strengths closer than this many codes count as tied in non-maximum suppression.
constexpr double kPackedTieCodes = 8;
/// Recursive filters as FIRs of their response (responseTaps): the L1 mass cut from each axis's
/// response. Both axes' cuts and the float sums stay within ALGORITHMS.md 8's 2e-4.
constexpr double kResponseTail = 5e-5;
/// RecursiveForm::Auto takes the response form in per-pixel passes up to this many taps per axis,
/// strips beyond (docs/performance.md: fewer fetches per pixel than the strips' sections, and no
/// strip draws); on quads it is faster than strips at every sigma measured (to 64).
constexpr int kMaxResponseTaps = 257;

std::string f(double v) { return glslFloat(v); }
/// "x3": a generated variable name (appended: GCC 12 warns falsely on literal + to_string, PR 105329).
std::string named(const char* prefix, int n) {
    std::string s = prefix;
    s += std::to_string(n);
    return s;
}

/// Pixel offset along an axis as a GLSL vec2.
std::string along(int axis, double d) { return axis == 0 ? "vec2(" + f(d) + ", 0.0)" : "vec2(0.0, " + f(d) + ")"; }
/// Texel-centre coordinate `c` (an expression, in pixels) along the axis, the fragment's across it.
std::string at(int axis, const std::string& c) { return axis == 0 ? "vec2(" + c + ", pos.y)" : "vec2(pos.x, " + c + ")"; }
const char* axisName(int axis) { return axis == 0 ? "x" : "y"; }

std::string describe(const PlaneFormat& p) {
    std::string s = p.kind == PlaneKind::Float   ? "RGBA32F"
                    : p.kind == PlaneKind::Quad  ? "RGBA32F quad"
                    : p.kind == PlaneKind::QuadRows ? "RGBA32F quad, rows in 4 layers"
                    : p.kind == PlaneKind::Luma8 ? "L8"
                                                 : "RGBA8 packed";
    s += p.complex ? " complex" : " real";
    if (p.kind == PlaneKind::Packed) s += ", |v| <= " + f(p.bound);
    return s;
}

std::string describe(const ShaderCost& c) {
    return std::to_string(c.alu) + " ALU, " + std::to_string(c.fetches) + " fetches, depth " +
           std::to_string(c.dependentDepth) + ", " + std::to_string(c.uniforms) + " uniforms";
}

bool fits(const ShaderCost& c, const ShaderCost& budget) {
    return c.alu <= budget.alu && c.fetches <= budget.fetches && c.dependentDepth <= budget.dependentDepth &&
           c.uniforms <= budget.uniforms;
}

/// Bounds of the six sections of a recursive axis (3 causal, 3 anticausal) per unit input
/// bound: the L1 norm of the impulse response of the cascade up to and including each section
/// (ALGORITHMS.md 5: input range times the L1 norm of the pass's impulse response), summed in
/// double over a window long enough for the response to vanish.
std::array<double, 6> sectionBounds(const std::array<C, 3>& p, const std::array<C, 3>& a, const std::array<C, 3>& q,
                                    const std::array<C, 3>& b) {
    double slowest = 0;
    for (int k = 0; k < 3; ++k) slowest = std::max({slowest, std::abs(p[k]), std::abs(q[k])});
    const int L = std::min(200000, static_cast<int>(std::ceil(std::log(1e-12) / std::log(std::max(slowest, 1e-3)))) + 8);
    std::vector<C> x(2 * L + 1, 0.0);
    x[L] = 1.0;
    std::array<double, 6> out{};
    for (int k = 0; k < 3; ++k) {
        C s = 0;
        for (auto& v : x) v = s = a[k] * v + p[k] * s;
        for (const auto& v : x) out[k] += std::abs(v);
    }
    for (int k = 0; k < 3; ++k) {
        C s = 0;
        for (auto it = x.rbegin(); it != x.rend(); ++it) *it = s = b[k] * *it + q[k] * s;
        for (const auto& v : x) out[3 + k] += std::abs(v);
    }
    return out;
}

/// Normalised section gains (docs/algorithms.md, "strips"): a_1 = 1 - p_1, a_2 = 1 - p_2,
/// a_3 = B / (a_1 a_2), so the first two sections have unit DC gain and the third emits the
/// filter's output (B s_3 in the unnormalised form).
std::array<C, 3> sectionGains(const std::array<C, 3>& poles, double B) {
    const C a1 = 1.0 - poles[0], a2 = 1.0 - poles[1];
    return {a1, a2, B / (a1 * a2)};
}

} // namespace

Status FragmentBackend::create(const FragmentLimits& limits, std::unique_ptr<FragmentBackend>* out) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend());
    if (Status s = EglContext::create(&b->ctx_); !s) return s;
    b->info_ = b->ctx_->info();
    if (Status s = b->ctx_->makeCurrent(); !s) return s;
    b->init(limits);
    b->ctx_->release();
    *out = std::move(b);
    return {};
}

Status FragmentBackend::createInCurrentContext(const FragmentLimits& limits, std::unique_ptr<FragmentBackend>* out) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend());
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    if (!version) return Status::error("gles-fragment: no GLES context is current on this thread");
    if (std::sscanf(version, "OpenGL ES %d.%d", &b->info_.major, &b->info_.minor) != 2)
        return Status::error(std::string("gles-fragment needs an OpenGL ES context; the current one is '") + version + "'");
    b->info_.platform = "shared";
    b->init(limits);
    *out = std::move(b);
    return {};
}

/// The part of creation that runs with the context current.
void FragmentBackend::init(const FragmentLimits& limits) {
    limits_ = limits;
    packed_ = !limits.floatTargets || info_.major < 3;
    cache_ = std::make_unique<ProgramCache>(info_.major, info_.minor);
    const float triangle[] = {-1.0f, -1.0f, 3.0f, -1.0f, -1.0f, 3.0f};
    glGenBuffers(1, &vertexBuffer_);
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    // QuadRows planes: float targets, four draw buffers (GLES 3.0 guarantees four) and a frame
    // buffer of array layers that the driver calls complete.
    GLint drawBuffers = 0, framebuffer = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);  // the caller's, in a shared context
    if (!packed_) glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
    if (drawBuffers >= 4) {
        const int p = newLayersPlane(4, 4);
        quadRows_ = static_cast<bool>(failure_);
        failure_ = {};
        glDeleteFramebuffers(1, &planes_[p].fbo);
        glDeleteTextures(1, &planes_[p].texture);
        planes_.clear();
    }
    glGenFramebuffers(1, &readFbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
}

FragmentBackend::~FragmentBackend() {
    if (!makeCurrent()) return;
    releaseGl();
    if (vertexBuffer_) glDeleteBuffers(1, &vertexBuffer_);
    if (readFbo_) glDeleteFramebuffers(1, &readFbo_);
    cache_.reset();
    releaseCurrent();
}

void FragmentBackend::releaseGl() {
    for (const Plane& p : planes_) {
        glDeleteFramebuffers(1, &p.fbo);
        glDeleteTextures(1, &p.texture);
    }
    planes_.clear();
    glDeleteRenderbuffers(1, &stencil_.renderbuffer);
    stencil_ = {};
    steps_.clear();
    inputPlane_ = importPlane_ = outputPlane_ = -1;
    textureDrawCache_.clear();
}

Status FragmentBackend::validate(const Chain& chain, const FrameFormat& format) const {
    return validateGpuFrame(chain, format, limits_.maxTextureSize, "the board's", name());
}

Status FragmentBackend::configure(const Chain& chain, const FrameFormat& format) {
    if (Status s = validate(chain, format); !s) return s;
    if (Status s = makeCurrent(); !s) return s;
    const Status s = configureCurrent(chain, format);
    releaseCurrent();
    return s;
}

void FragmentBackend::fail(const std::string& message) {
    if (failure_) failure_ = Status::error(message);
}

PlaneFormat FragmentBackend::planeFormat(bool complex, double bound, bool nonNegative) const {
    return PlaneFormat{packed_ ? PlaneKind::Packed : PlaneKind::Float, complex, bound, nonNegative};
}

int FragmentBackend::acquire(int width, int height, PlaneKind kind) {
    if (width == 0) width = format_.width;
    if (height == 0) height = format_.height;
    const bool layers = kind == PlaneKind::QuadRows, floatTexels = layers || (!packed_ && kind != PlaneKind::Packed);
    for (std::size_t i = 0; i < planes_.size(); ++i) {
        Plane& p = planes_[i];
        if (!p.busy && p.width == width && p.height == height && p.layers == layers && p.floatTexels == floatTexels) {
            p.busy = true;
            return static_cast<int>(i);
        }
    }
    return layers ? newLayersPlane(width, height) : newPlane(width, height, floatTexels);
}

int FragmentBackend::newLayersPlane(int width, int height) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;
    p.layers = true;
    p.floatTexels = true;
    glGenTextures(1, &p.texture);
    glBindTexture(GL_TEXTURE_2D_ARRAY, p.texture);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA32F, width, height, 4, 0, GL_RGBA, GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glGenFramebuffers(1, &p.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    const GLenum attachments[4] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
    for (int j = 0; j < 4; ++j) glFramebufferTextureLayer(GL_FRAMEBUFFER, attachments[j], p.texture, 0, j);
    glDrawBuffers(4, attachments);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail("gles-fragment: four RGBA32F array layers as one render target are incomplete");
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

int FragmentBackend::newPlane(int width, int height, bool floatTexels) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;
    p.floatTexels = floatTexels;
    glGenTextures(1, &p.texture);
    glBindTexture(GL_TEXTURE_2D, p.texture);
    if (!floatTexels) glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    else glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    // Nearest: every fetch is a texel centre. Clamp to edge: replicate borders for free.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenFramebuffers(1, &p.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, p.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p.texture, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail(std::string("gles-fragment: an ") + (floatTexels ? "RGBA32F" : "RGBA8") + " render target is incomplete");
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

bool FragmentBackend::shareStencil(int a, int b) {
    // Attaches the buffer to both planes; false, detached again, where they are incomplete.
    auto attach = [&](GLuint rb, const std::vector<unsigned>& attachments) {
        bool complete = true;
        for (int plane : {a, b}) {
            glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
            for (GLenum at : attachments) glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, rb);
            complete = complete && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        }
        if (!complete)
            for (int plane : {a, b}) {
                glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
                for (GLenum at : attachments) glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, 0);
            }
        return complete;
    };
    if (stencil_.renderbuffer) return attach(stencil_.renderbuffer, stencil_.attachments);
    if (stencil_.tried) return false;
    stencil_.tried = true;
    // STENCIL_INDEX8 alone (GLES 2.0 core), else packed depth and stencil (GLES 3.0 core,
    // OES_packed_depth_stencil on GLES 2.0: what VideoCore IV offers), attached as depth and as
    // stencil; either may not complete an RGBA8 framebuffer on a given driver, so each is checked.
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    const bool packedDepthStencil =
        info_.major >= 3 || (extensions && std::strstr(extensions, "GL_OES_packed_depth_stencil") != nullptr);
    std::vector<std::pair<GLenum, std::vector<unsigned>>> options{{GL_STENCIL_INDEX8, {GL_STENCIL_ATTACHMENT}}};
    if (packedDepthStencil) options.push_back({GL_DEPTH24_STENCIL8, {GL_DEPTH_ATTACHMENT, GL_STENCIL_ATTACHMENT}});
    for (const auto& [format, attachments] : options) {
        GLuint rb = 0;
        glGenRenderbuffers(1, &rb);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        glRenderbufferStorage(GL_RENDERBUFFER, format, format_.width, format_.height);
        if (glGetError() == GL_NO_ERROR && attach(rb, attachments)) {
            stencil_.renderbuffer = rb;
            stencil_.attachments = attachments;
            return true;
        }
        glDeleteRenderbuffers(1, &rb);
        glGetError();  // a format this driver refused is not a failure of the frame
    }
    return false;
}

void FragmentBackend::release(const Value& v) {
    if (v.plane >= 0 && v.plane != luma_) planes_[v.plane].busy = false;
}

unsigned FragmentBackend::program(const FragmentShader& shader) {
    if (!failure_) return 0;
    if (!fits(shader.cost, limits_.budget)) {
        fail("gles-fragment: shader '" + shader.name + "' costs " + describe(shader.cost) +
             ", over the board's budget of " + describe(limits_.budget));
        return 0;
    }
    unsigned p = 0;
    if (Status s = cache_->fragment(shader.name, shader.source, &p); !s) {
        fail(s.message());
        return 0;
    }
    if (std::none_of(shaders_.begin(), shaders_.end(), [&](const FragmentShader& x) { return x.source == shader.source; })) {
        shaders_.push_back(shader);
        glUseProgram(p);
        for (int slot = 0; slot < 4; ++slot) {
            const std::string name = named("s", slot);
            if (const GLint loc = glGetUniformLocation(p, name.c_str()); loc >= 0) glUniform1i(loc, slot);
        }
    }
    return p;
}

FragmentBackend::Draw FragmentBackend::makeDraw(const FragmentShader& shader, const std::vector<Value>& inputs,
                                                const Value& target, const Uniforms& uniforms) {
    Draw d;
    d.program = program(shader);
    d.target = target.plane;
    auto set = [&](const std::string& name, int components, std::vector<float> values) {
        if (d.program) d.uniforms.push_back({glGetUniformLocation(d.program, name.c_str()), components, std::move(values)});
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        d.inputs.push_back(inputs[i].plane);
        if (inputs[i].plane < 0) continue;
        const Plane& in = planes_[inputs[i].plane];
        set("u_texel" + std::to_string(i), 2, {1.0f / in.width, 1.0f / in.height});
        if (inputs[i].format.kind == PlaneKind::Packed) {
            const auto c = codeUniform(inputs[i].format);
            set("u_code" + std::to_string(i), 2, {c[0], c[1]});
        }
        if (inputs[i].format.kind == PlaneKind::QuadRows)
            set(named("u_w", static_cast<int>(i)), 2, {format_.width - 0.5f, format_.height - 0.5f});
    }
    if (target.format.kind == PlaneKind::Packed) {
        const auto o = outUniform(target.format);
        set("u_out", 2, {o[0], o[1]});
    }
    for (const auto& [name, values] : uniforms) set(name, 4, values);
    return d;
}

FragmentBackend::Value FragmentBackend::full(const FragmentShader& shader, const std::vector<Value>& inputs,
                                             const PlaneFormat& out, const Uniforms& uniforms, int width, int height) {
    const Value target{acquire(width, height, out.kind), out};
    steps_.push_back(Step{{makeDraw(shader, inputs, target, uniforms)}, false, -1});
    passes_.push_back({shader.name, describe(out), "1 draw; " + describe(shader.cost)});
    return target;
}


namespace {

/// The direct Gaussian of one axis with R incremental taps (ALGORITHMS.md 2.1), fully unrolled.
/// `shift`: the input pixel under output pixel x is x + shift along the axis (padding and cropping).
FragmentShader directShader(bool es3, double sigma, int R, int axis, const PlaneFormat& in, const PlaneFormat& out,
                            int shift) {
    FragmentWriter w(std::string("blur.direct ") + axisName(axis) + " sigma=" + f(sigma) + " R=" + std::to_string(R) +
                         (shift < 0 ? " (pads)" : shift > 0 ? " (crops)" : ""),
                     es3);
    w.input(0, in);
    const double q = std::exp(-0.5 / (sigma * sigma));
    w.line("vec3 g = vec3(1.0, " + f(q) + ", " + f(q * q) + ");", 0);
    w.line("float sum = " + w.fetch(0, shift ? along(axis, shift) : "") + ".x;", 0);
    w.line("float weight = 1.0;", 0);
    for (int k = 1; k <= R; ++k) {
        w.line("g.xy *= g.yz;", 1);
        const std::string a = w.fetch(0, along(axis, shift - k)), b = w.fetch(0, along(axis, shift + k));
        w.line("sum += g.x * (" + a + ".x + " + b + ".x);", 2);
        w.line("weight += 2.0 * g.x;", 1);
    }
    return w.finish("vec2(sum / weight, 0.0)", out);
}

} // namespace

FragmentBackend::Value FragmentBackend::directGaussian(double sigma, int axis, const Value& in) {
    // Positive taps: L1 norm 1, and a non-negative input stays non-negative.
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    const int R = gaussianRadius(sigma);
    if (fits(directShader(!packed_, sigma, R, axis, in.format, out, 0).cost, limits_.budget))
        return full(directShader(!packed_, sigma, R, axis, in.format, out, 0), {in}, out);
    // Too many taps for one shader: the cascade identity G_a G_b = G_sqrt(a^2 + b^2) splits sigma
    // into n equal passes whose radius fits (ALGORITHMS.md 2.1), reading planes of the output's
    // format (the costlier decode when packed).
    int fitting = R - 1;
    while (fitting >= 1 && !fits(directShader(!packed_, fitting / kGaussianTruncation, fitting, axis, out, out, 0).cost,
                                 limits_.budget))
        --fitting;
    if (fitting < 1) {
        fail("gles-fragment: not even one Gaussian tap pair fits the board's budget");
        return in;
    }
    int n = static_cast<int>(std::ceil(std::pow(sigma / (fitting / kGaussianTruncation), 2)));
    while (gaussianRadius(sigma / std::sqrt(n)) > fitting) ++n;
    if (n > kMaxCascadePasses) {
        // n grows with sigma squared; past this the 16-bit re-quantisation of every pass adds up
        // beyond the packed budget (8e-3 after 1820 passes) and the frame costs thousands of draws.
        fail("gles-fragment: blur sigma=" + f(sigma) + " method=direct needs " + std::to_string(n) +
             " passes per axis within this board's shader budget (at most " + std::to_string(kMaxCascadePasses) +
             "); use method=recursive or method=boxes");
        return in;
    }
    const double part = sigma / std::sqrt(n);
    // The identity holds on the replicate-extended line, not with a clamp at every pass: the
    // passes run on a padded copy (the first pass pads, the last crops), so the borders match the
    // single-pass reference. The clamp at the copy's ends reaches in by one radius per pass but is
    // weighted by the cascade's Gaussian tail, which beyond 6 sigma is below 1e-8: the pad is the
    // smaller of the two.
    const int pad = std::min(n * gaussianRadius(part), static_cast<int>(std::ceil(6 * sigma)) + gaussianRadius(part));
    const int padW = format_.width + (axis == 0 ? 2 * pad : 0), padH = format_.height + (axis == 1 ? 2 * pad : 0);
    Value v = in;
    for (int i = 0; i < n && failure_; ++i) {
        const int shift = i == 0 ? -pad : i == n - 1 ? pad : 0;
        const FragmentShader shader = directShader(!packed_, part, gaussianRadius(part), axis, v.format, out, shift);
        const Value next = i == n - 1 ? full(shader, {v}, out) : full(shader, {v}, out, {}, padW, padH);
        if (i > 0) release(v);
        v = next;
    }
    return v;
}

namespace {

/// The unrolled body shared by the strip shaders: the section runs over the strip's S samples
/// (from `start`, in processing order) from the state `s`, and the fragment keeps step j.
FragmentShader finishStrip(FragmentWriter& w, int axis, bool anticausal, int S, bool real, const std::string& start,
                           const PlaneFormat& out) {
    w.line("vec2 acc = vec2(0.0);", 0);
    for (int i = 0; i < S; ++i) {
        const int t = anticausal ? S - 1 - i : i;
        const std::string x = w.fetchAt(0, at(axis, start + " + " + f(t + 0.5)));
        if (real) w.line("s = u_coef.z * " + x + " + u_coef.x * s;", 2);
        else w.line("s = cmul(u_coef.zw, " + x + ") + cmul(u_coef.xy, s);", 5);
        w.line("acc += s * step(abs(j - " + f(t) + "), 0.5);", 3);
    }
    return w.finish(out.complex ? "acc" : "vec2(acc.x, 0.0)", out);
}

/// One first-order section over a strip of S samples (docs/algorithms.md, "strips"): the
/// fragment at offset j in the strip runs the recursion over all S samples from the carried state
/// and keeps step j (everything unrolled; S + 1 fetches). Causal strips start at u_strip.x and run
/// forward; anticausal ones run backward from u_strip.x + S - 1. The carried state is the
/// previous strip's last output (slot 1), or for the first strip the steady state of the first
/// input (causal: u_strip.zw times it) or the border state (anticausal: texel 0 of slot 2). The
/// pole and gain are uniforms (u_coef), so every section of every sigma and orientation with the
/// same shape shares the program; `real` sections (a real pole on real data) skip the complex
/// products.
FragmentShader sectionShader(bool es3, int axis, bool anticausal, bool first, int S, bool real, const PlaneFormat& in,
                             const PlaneFormat& prev, const PlaneFormat& border, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.section ") + axisName(axis) + " " + (anticausal ? "anticausal" : "causal") +
                         (first ? " first" : "") + (real ? " real" : " complex") + " S=" + std::to_string(S),
                     es3);
    w.input(0, in);
    if (!first) w.input(1, prev);
    if (first && anticausal) w.input(2, border);
    w.uniform("u_strip");  // x: the strip's first sample; zw: causal steady-state gain a / (1 - p)
    w.uniform("u_coef");   // xy: the pole p; zw: the gain a
    const std::string a = axis == 0 ? "pos.x" : "pos.y";
    w.line("float j = floor(" + a + ") - u_strip.x;", 2);
    if (!first) {
        w.line("vec2 s = " + w.fetchAt(1, at(axis, anticausal ? "u_strip.x + " + f(S + 0.5) : "u_strip.x - 0.5")) + ";", 0);
    } else if (anticausal) {
        w.line("vec2 s = " + w.fetchAt(2, at(axis, "0.5")) + ";", 0);
    } else {
        w.line("vec2 s = cmul(u_strip.zw, " + w.fetchAt(0, at(axis, "0.5")) + ");", 2);
    }
    return finishStrip(w, axis, anticausal, S, real, "u_strip.x", out);
}

std::vector<float> vec4Of(C a, C b) {
    return {static_cast<float>(a.real()), static_cast<float>(a.imag()), static_cast<float>(b.real()),
            static_cast<float>(b.imag())};
}

/// The anticausal start of section j (ALGORITHMS.md 3.3 with the numerical border matrix): from
/// the three causal section outputs at the last sample (slots 0..2, normalised) and the last input
/// (slot 3), the normalised anticausal state of section j. Every coefficient is in u_border, so
/// the three sections and every orientation share the program.
FragmentShader borderShader(bool es3, int axis, const PlaneFormat (&causal)[3], const PlaneFormat& in,
                            const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.border ") + axisName(axis), es3);
    for (int k = 0; k < 3; ++k) w.input(k, causal[k]);
    w.input(3, in);
    // [0] 1/A_0, 1/A_1 · [1] 1/A_2, g_0 · [2] g_1, g_2 · [3] M_j0, M_j1 · [4] M_j2, steady_j ·
    // [5] A'_j and the last sample's coordinate
    w.uniformArray("u_border", 6);
    const std::string last = at(axis, "u_border[5].z");
    w.line("vec2 xl = " + w.fetchAt(3, last) + ";", 0);
    w.line("vec2 d0 = cmul(u_border[0].xy, " + w.fetchAt(0, last) + ") - cmul(u_border[1].zw, xl);", 5);
    w.line("vec2 d1 = cmul(u_border[0].zw, " + w.fetchAt(1, last) + ") - cmul(u_border[2].xy, xl);", 5);
    w.line("vec2 d2 = cmul(u_border[1].xy, " + w.fetchAt(2, last) + ") - cmul(u_border[2].zw, xl);", 5);
    w.line("vec2 t = cmul(u_border[4].zw, xl) + cmul(u_border[3].xy, d0) + cmul(u_border[3].zw, d1) + "
           "cmul(u_border[4].xy, d2);",
           11);
    w.line("", 2);
    return w.finish("cmul(u_border[5].xy, t)", out);
}

} // namespace

namespace {

/// The block form's first draw (Nehab et al. 2011): every strip's zero-state response at once.
/// Each fragment finds its strip from its own position (causal strips from 0, anticausal ones
/// anchored at the end: N - S, N - 2S, ...) and runs the section over the strip's S samples from
/// a zero state.
FragmentShader zeroStateShader(bool es3, int axis, bool anticausal, int S, int N, bool real, const PlaneFormat& in,
                               const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.zero-state ") + axisName(axis) + " " +
                         (anticausal ? "anticausal" : "causal") + (real ? " real" : " complex") + " S=" + std::to_string(S),
                     es3);
    w.input(0, in);
    w.uniform("u_coef");  // xy: the pole p; zw: the gain a
    const std::string a = axis == 0 ? "floor(pos.x)" : "floor(pos.y)";
    if (anticausal)
        w.line("float start = " + f(N) + " - (floor((" + f(N - 1) + " - " + a + ") / " + f(S) + ") + 1.0) * " + f(S) + ";", 5);
    else
        w.line("float start = floor(" + a + " / " + f(S) + ") * " + f(S) + ";", 3);
    w.line("float j = " + a + " - start;", 1);
    w.line("vec2 s = vec2(0.0);", 0);
    return finishStrip(w, axis, anticausal, S, real, "start", out);
}

/// The state the first strip starts from: the causal steady state (u_start.zw times the first
/// input, slot 3) or the anticausal border state (texel 0 of slot 3).
std::string startState(FragmentWriter& w, int axis, bool anticausal) {
    const std::string first = w.fetchAt(3, at(axis, "0.5"));
    return anticausal ? first : "cmul(u_start.zw, " + first + ")";
}

/// One carry of the block form: the true state at the end of strip k (texel u_start.x along the
/// axis) is the zero-state response there (slot 0) plus p^S (u_start... u_coef.xy) times the
/// previous strip's true state (slot 1 at u_start.y, or the start state for the first strip).
FragmentShader carryShader(bool es3, int axis, bool anticausal, bool first, const PlaneFormat& zero,
                           const PlaneFormat& start, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.carry ") + axisName(axis) + (first ? " first" : ""), es3);
    w.input(0, zero);
    if (!first) w.input(1, out);
    if (first) w.input(3, start);
    w.uniform("u_start");  // x: this strip's end, y: the previous strip's end; zw: steady-state gain
    w.uniform("u_coef");   // xy: p^S
    const std::string previous = first ? startState(w, axis, anticausal) : w.fetchAt(1, at(axis, "u_start.y"));
    w.line("vec2 carried = " + w.fetchAt(0, at(axis, "u_start.x")) + " + cmul(u_coef.xy, " + previous + ");", 3);
    return w.finish(out.complex ? "carried" : "vec2(carried.x, 0.0)", out);
}

/// The block form's last draw: every sample's true value, its zero-state response (slot 0) plus
/// p^(j+1) times the true state before its strip: the carry of the previous strip (slot 1 for
/// even strips' predecessors, slot 2 for odd) or the start state (slot 3) in the first strip.
FragmentShader fixupShader(bool es3, int axis, bool anticausal, int S, int N, const PlaneFormat& zero,
                           const PlaneFormat& carry, const PlaneFormat& start, const PlaneFormat& out) {
    FragmentWriter w(std::string("recursive.block.fix-up ") + axisName(axis) + " " + (anticausal ? "anticausal" : "causal") +
                         " S=" + std::to_string(S),
                     es3);
    w.input(0, zero);
    w.input(1, carry);
    w.input(2, carry);
    w.input(3, start);
    w.uniform("u_start");  // zw: steady-state gain
    w.uniform("u_coef");   // x: log |p|, y: arg p
    const std::string a = axis == 0 ? "floor(pos.x)" : "floor(pos.y)";
    if (anticausal) {
        w.line("float k = floor((" + f(N - 1) + " - " + a + ") / " + f(S) + ");", 3);
        w.line("float j = " + f(N - 1) + " - k * " + f(S) + " - " + a + ";", 2);
        w.line("float before = " + f(N + 0.5) + " - k * " + f(S) + ";", 1);
    } else {
        w.line("float k = floor(" + a + " / " + f(S) + ");", 2);
        w.line("float j = " + a + " - k * " + f(S) + ";", 1);
        w.line("float before = k * " + f(S) + " - 0.5;", 1);
    }
    w.line("vec2 even = " + w.fetchAt(1, at(axis, "before")) + ", odd = " + w.fetchAt(2, at(axis, "before")) + ";", 0);
    w.line("vec2 previous = k < 0.5 ? " + startState(w, axis, anticausal) + " : (mod(k, 2.0) > 0.5 ? even : odd);", 4);
    w.line("float n = j + 1.0;", 1);
    w.line("vec2 power = exp(n * u_coef.x) * vec2(cos(n * u_coef.y), sin(n * u_coef.y));", 6);
    w.line("vec2 value = " + w.fetch(0, "") + " + cmul(power, previous);", 3);
    return w.finish(out.complex ? "value" : "vec2(value.x, 0.0)", out);
}

} // namespace

FragmentBackend::Value FragmentBackend::blockSection(C pole, C gain, int axis, bool anticausal, int S, bool real,
                                                     const Value& in, const Value& start, const PlaneFormat& out) {
    const int N = axis == 0 ? format_.width : format_.height;
    const C steady = gain / (1.0 - pole);
    const Value zero = full(zeroStateShader(!packed_, axis, anticausal, S, N, real, in.format, out), {in}, out,
                            {{"u_coef", vec4Of(pole, gain)}});
    // Carries, strip by strip (only strips that have a successor): carry k goes to plane k % 2.
    const int strips = (N + S - 1) / S;
    const Value carry[2] = {Value{acquire(), out}, Value{acquire(), out}};
    const C pS = std::pow(pole, S);
    Step step;
    auto end = [&](int k) { return anticausal ? N - (k + 1) * S : (k + 1) * S - 1; };
    for (int k = 0; k + 1 < strips; ++k) {
        const bool first = k == 0;
        const std::vector<float> u = {static_cast<float>(end(k) + 0.5), static_cast<float>(first ? 0 : end(k - 1) + 0.5),
                                      static_cast<float>(steady.real()), static_cast<float>(steady.imag())};
        Draw d = makeDraw(carryShader(!packed_, axis, anticausal, first, out, start.format, out),
                          {zero, first ? Value{} : carry[(k + 1) % 2], Value{}, first ? start : Value{}}, carry[k % 2],
                          {{"u_start", u}, {"u_coef", vec4Of(pS, 0.0)}});
        if (axis == 0) d.x = end(k), d.y = 0, d.w = 1, d.h = format_.height;
        else d.x = 0, d.y = end(k), d.w = format_.width, d.h = 1;
        step.draws.push_back(d);
    }
    if (!step.draws.empty()) {
        steps_.push_back(step);
        passes_.push_back({"recursive.block.carry " + std::string(axisName(axis)), describe(out),
                           std::to_string(step.draws.size()) + " one-texel-wide draws"});
    }
    const Value fixed = full(fixupShader(!packed_, axis, anticausal, S, N, out, out, start.format, out),
                             {zero, carry[0], carry[1], start}, out,
                             {{"u_start", {0.0f, 0.0f, static_cast<float>(steady.real()), static_cast<float>(steady.imag())}},
                              {"u_coef", {static_cast<float>(std::log(std::abs(pole))), static_cast<float>(std::arg(pole)), 0.0f, 0.0f}}});
    release(zero);
    release(carry[0]);
    release(carry[1]);
    return fixed;
}

FragmentBackend::Value FragmentBackend::section(const cpu::CascadeFloat& cf, int axis, int k, bool anticausal,
                                                const Value& in, const Value& border, const PlaneFormat& out) {
    const int N = axis == 0 ? format_.width : format_.height;
    const std::array<C, 3> poles = anticausal ? std::array<C, 3>{C(cf.qr[0], cf.qi[0]), C(cf.qr[1], cf.qi[1]), C(cf.qr[2], cf.qi[2])}
                                              : std::array<C, 3>{C(cf.pr[0], cf.pi[0]), C(cf.pr[1], cf.pi[1]), C(cf.pr[2], cf.pi[2])};
    const std::array<C, 3> gains = sectionGains(poles, cf.B);
    const bool real = !in.format.complex && !out.complex && poles[k].imag() == 0 && gains[k].imag() == 0;
    auto shaderFor = [&](bool first, int width) {
        return sectionShader(!packed_, axis, anticausal, first, width, real, in.format, out, border.format, out);
    };
    // The widest strip, up to the unroll limit, whose shaders (first and carried) fit the budget.
    int S = std::max(1, std::min(limits_.unrollLimit, N));
    while (S > 1 && !(fits(shaderFor(true, S).cost, limits_.budget) && fits(shaderFor(false, S).cost, limits_.budget))) --S;
    if (limits_.recursiveForm == RecursiveForm::Block)
        return blockSection(poles[k], gains[k], axis, anticausal, S, real, in, anticausal ? border : in, out);
    const C steady = gains[k] / (1.0 - poles[k]);
    Step step;
    const int strips = (N + S - 1) / S;
    const Value target[2] = {Value{acquire(), out}, Value{acquire(), out}};
    for (int i = 0; i < strips; ++i) {
        const bool first = i == 0;
        const int start = anticausal ? N - (i + 1) * S : i * S;
        const std::vector<float> strip = {static_cast<float>(start), 0.0f, static_cast<float>(steady.real()),
                                          static_cast<float>(steady.imag())};
        Draw d = makeDraw(shaderFor(first, S),
                          {in, first ? Value{} : target[(i + 1) % 2], first && anticausal ? border : Value{}}, target[i % 2],
                          {{"u_strip", strip}, {"u_coef", vec4Of(poles[k], gains[k])}});
        const int lo = std::max(start, 0), hi = std::min(start + S, N);
        if (axis == 0) d.x = lo, d.y = 0, d.w = hi - lo, d.h = format_.height;
        else d.x = 0, d.y = lo, d.w = format_.width, d.h = hi - lo;
        step.draws.push_back(d);
    }
    steps_.push_back(step);
    const FragmentShader carried = shaderFor(strips == 1, S);
    passes_.push_back({carried.name + " k=" + std::to_string(k + 1), describe(out),
                       std::to_string(strips) + " strip draws; " + describe(carried.cost)});
    // Merge: strip i lies in target i % 2.
    FragmentWriter m(std::string("recursive.merge ") + axisName(axis) + " S=" + std::to_string(S) +
                         (anticausal ? " anticausal" : " causal"),
                     !packed_);
    m.input(0, out);
    m.input(1, out);
    const std::string a = axis == 0 ? "pos.x" : "pos.y";
    const std::string index = anticausal ? "floor((" + f(N - 1) + " - floor(" + a + ")) / " + f(S) + ")"
                                         : "floor(floor(" + a + ") / " + f(S) + ")";
    m.line("float strip = " + index + ";", 3);
    const std::string even = m.fetchRaw(0, ""), odd = m.fetchRaw(1, "");
    m.line("", 2);
    const Value merged = full(m.finishRaw("mod(strip, 2.0) < 0.5 ? " + even + " : " + odd), {target[0], target[1]}, out);
    planes_[target[0].plane].busy = planes_[target[1].plane].busy = false;
    return merged;
}

FragmentBackend::Value FragmentBackend::recursiveAxis(const cpu::CascadeFloat& cf, int axis, const Value& in,
                                                      bool complexOut) {
    const std::array<C, 3> p{C(cf.pr[0], cf.pi[0]), C(cf.pr[1], cf.pi[1]), C(cf.pr[2], cf.pi[2])};
    const std::array<C, 3> q{C(cf.qr[0], cf.qi[0]), C(cf.qr[1], cf.qi[1]), C(cf.qr[2], cf.qi[2])};
    const std::array<C, 3> a = sectionGains(p, cf.B), b = sectionGains(q, cf.B);
    const std::array<double, 6> bounds = sectionBounds(p, a, q, b);
    // A Gaussian (complexOut false: real input, real poles' pair) has exactly real outputs from
    // its first and third sections; the conjugate pair's first member is complex.
    auto complexAt = [&](int k) { return complexOut || k == 1; };
    Value causal[3];
    Value v = in;
    for (int k = 0; k < 3; ++k) {
        causal[k] = section(cf, axis, k, false, v, Value{}, planeFormat(complexAt(k), in.format.bound * bounds[k]));
        v = causal[k];
    }
    // The anticausal start: one draw per section writes its state at the end of the line to
    // texel 0 (along the axis) of its own plane.
    const int N = axis == 0 ? format_.width : format_.height;
    const std::array<C, 3> A{a[0], a[0] * a[1], a[0] * a[1] * a[2]};
    const std::array<C, 3> Ab{b[0], b[0] * b[1], b[0] * b[1] * b[2]};
    const PlaneFormat causalFormats[3] = {causal[0].format, causal[1].format, causal[2].format};
    const auto g = [&](int k) { return C(cf.gr[k], cf.gi[k]); };
    Value border[3];
    for (int j = 0; j < 3; ++j) {
        border[j] = Value{acquire(), planeFormat(complexAt(j), in.format.bound * bounds[3 + j])};
        const auto m = [&](int k) { return C(cf.mr[j][k], cf.mi[j][k]); };
        const C steady = static_cast<double>(cf.B) * g(2) * C(cf.hr[j], cf.hi[j]);
        std::vector<float> u;
        for (const auto& [x, y] : {std::pair{1.0 / A[0], 1.0 / A[1]}, std::pair{1.0 / A[2], g(0)}, std::pair{g(1), g(2)},
                                   std::pair{m(0), m(1)}, std::pair{m(2), steady}})
            for (float value : vec4Of(x, y)) u.push_back(value);
        u.insert(u.end(), {static_cast<float>(Ab[j].real()), static_cast<float>(Ab[j].imag()), static_cast<float>(N - 0.5), 0.0f});
        const FragmentShader shader = borderShader(!packed_, axis, causalFormats, in.format, border[j].format);
        Draw d = makeDraw(shader, {causal[0], causal[1], causal[2], in}, border[j], {{"u_border", u}});
        if (axis == 0) d.x = 0, d.y = 0, d.w = 1, d.h = format_.height;
        else d.x = 0, d.y = 0, d.w = format_.width, d.h = 1;
        steps_.push_back(Step{{d}, false, -1});
        passes_.push_back({shader.name + " k=" + std::to_string(j + 1), describe(border[j].format),
                           "1 draw of one texel per line; " + describe(shader.cost)});
    }
    release(causal[0]);
    release(causal[1]);
    v = causal[2];
    for (int k = 0; k < 3; ++k) {
        const Value next = section(cf, axis, k, true, v, border[k], planeFormat(complexAt(k), in.format.bound * bounds[3 + k]));
        if (v.plane != in.plane) release(v);
        release(border[k]);
        v = next;
    }
    return v;
}

namespace {

/// Taps first..last of one extended box (ALGORITHMS.md 2.2) as a weighted sum, added to an
/// accumulator (slot 1) unless `first` is 0; `shift` maps output to input pixels (padding).
FragmentShader boxTapsShader(bool es3, const ExtendedBox& box, int first, int last, int axis, int shift,
                             const PlaneFormat& in, const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " r=" + std::to_string(box.r) + " taps " +
                         std::to_string(first) + ".." + std::to_string(last) +
                         (shift < 0 ? " (pads)" : shift > 0 ? " (crops)" : ""),
                     es3);
    w.input(0, in);
    std::string sum;
    // Tap t = -r-1 .. r+1 is index t + r + 1; the outer two weigh alpha.
    for (int i = first; i <= last; ++i) {
        const int t = i - box.r - 1;
        const bool end = t == -box.r - 1 || t == box.r + 1;
        sum += (sum.empty() ? "" : " + ") + (end ? f(box.alpha) + " * " : std::string()) + w.fetch(0, along(axis, shift + t)) + ".x";
        w.line("", end ? 2 : 1);
    }
    if (first > 0) {
        w.input(1, out);
        w.line("float acc = " + w.fetch(1, "") + ".x;", 1);
        return w.finish("vec2(acc + (" + sum + ") * " + f(1.0 / box.norm) + ", 0.0)", out);
    }
    return w.finish("vec2((" + sum + ") * " + f(1.0 / box.norm) + ", 0.0)", out);
}

} // namespace

namespace {

/// The sum pyramid of one line (ALGORITHMS.md 2.4): level k holds the sums of 2^k consecutive
/// samples, block i covering samples [i 2^k, (i + 1) 2^k) of the line. Levels 1.. live side by
/// side along the axis in two atlas planes (odd levels in one, even in the other, so no draw reads
/// the plane it writes); level 0 is the line itself.
struct Pyramid {
    int levels = 0;                 // K: levels 1..K are built
    std::vector<int> offset, size;  // per level: first texel in its atlas, blocks
    int atlasSize[2] = {0, 0};      // along the axis: [0] even levels, [1] odd levels
};

Pyramid pyramidOf(int length) {
    Pyramid p;
    p.offset.assign(1, 0);
    p.size.assign(1, length);
    for (int k = 1; (length >> k) >= 1; ++k) {
        p.levels = k;
        p.offset.push_back(p.atlasSize[k % 2]);
        p.size.push_back(length >> k);  // whole blocks only: a prefix never needs a partial one
        p.atlasSize[k % 2] += length >> k;
    }
    return p;
}

/// One pyramid level from the one below: block i = block 2i + block 2i + 1 below. Level 1 reads
/// the line (slot 0, sample j at texel j + shift, clamped), higher levels the other atlas.
FragmentShader pyramidLevelShader(bool es3, int axis, int level, int shift, int below, int here, const PlaneFormat& in,
                                  const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " sum pyramid level " + std::to_string(level), es3);
    w.input(0, in);
    const std::string c = axis == 0 ? "pos.x" : "pos.y";
    // Block i sits at texel `here` + i; its halves at 2i and 2i + 1 of the level below.
    w.line("float i = " + c + " - " + f(here + 0.5) + ";", 1);
    const std::string base = level == 1 ? f(shift + 0.5) : f(below + 0.5);
    w.line("float lo = " + base + " + 2.0 * i;", 2);
    return w.finish("vec2(" + w.fetchAt(0, at(axis, "lo")) + ".x + " + w.fetchAt(0, at(axis, "lo + 1.0")) + ".x, 0.0)", out);
}

/// One extended box (ALGORITHMS.md 2.2) from the pyramid: the |t| <= r part is S(x + r + 1) -
/// S(x - r), each prefix S(n) the sum of one block per set bit of n (coordinates from x alone, no
/// dependent reads), differenced level by level from the top so the common blocks cancel exactly;
/// the two alpha taps are fetched directly. Outside [0, P] the prefix extends by the end samples
/// (the replicate-padded line). Slots: 0 the line (sample j at texel j + shift), 1 the even
/// levels' atlas, 2 the odd levels'.
FragmentShader pyramidBoxShader(bool es3, int axis, const ExtendedBox& box, const Pyramid& p, int length, int shift,
                                int outShift, const PlaneFormat& in, const PlaneFormat& atlas, const PlaneFormat& out) {
    FragmentWriter w(std::string("blur.boxes ") + axisName(axis) + " r=" + std::to_string(box.r) + " from the sum pyramid" +
                         (outShift > 0 ? " (crops)" : ""),
                     es3);
    w.input(0, in);
    w.input(1, atlas);
    w.input(2, atlas);
    const std::string c = axis == 0 ? "pos.x" : "pos.y";
    auto line = [&](const std::string& j) { return w.fetchAt(0, at(axis, "(" + j + ") + " + f(shift + 0.5))) + ".x"; };
    w.line("float x = " + c + " - 0.5 + " + f(outShift) + ";", 2);
    w.line("float na = x - " + f(box.r) + ", nb = x + " + f(box.r + 1) + ";", 2);
    // The line's prefix beyond its ends: the replicated first and last samples.
    w.line("float first = " + line("0.0") + ", last = " + line(f(length - 1)) + ";", 0);
    w.line("float d = (min(nb, 0.0) - min(na, 0.0)) * first + (max(nb - " + f(length) + ", 0.0) - max(na - " + f(length) +
               ", 0.0)) * last;",
           6);
    w.line("float a = clamp(na, 0.0, " + f(length) + "), b = clamp(nb, 0.0, " + f(length) + ");", 2);
    for (int k = p.levels; k >= 0; --k) {
        const double step = std::ldexp(1.0, k), twice = std::ldexp(1.0, k + 1);
        const std::string ka = named("ha", k), kb = named("hb", k);
        // bit k of n: floor(n / 2^k) - 2 floor(n / 2^(k+1)); the block: 2 floor(n / 2^(k+1)).
        w.line("float " + ka + " = floor(a / " + f(twice) + "), " + kb + " = floor(b / " + f(twice) + ");", 4);
        auto block = [&](const std::string& h) {
            // A block past the level (its bit is 0 then) is read within the level: weight 0
            // times a finite value.
            const std::string index = "min(2.0 * " + h + ", " + f(p.size[k] - 1) + ")";
            if (k == 0) return line(index);
            return w.fetchAt(k % 2 == 0 ? 1 : 2, at(axis, index + " + " + f(p.offset[k] + 0.5))) + ".x";
        };
        w.line("d += (floor(b / " + f(step) + ") - 2.0 * " + kb + ") * " + block(kb) + " - (floor(a / " + f(step) +
                   ") - 2.0 * " + ka + ") * " + block(ka) + ";",
               8);
    }
    w.line("d += " + f(box.alpha) + " * (" + line("x - " + f(box.r + 1)) + " + " + line("x + " + f(box.r + 1)) + ");", 3);
    return w.finish("vec2(d * " + f(1.0 / box.norm) + ", 0.0)", out);
}

} // namespace

FragmentBackend::Value FragmentBackend::pyramidBox(const ExtendedBox& box, int axis, const Value& in, int length, int shift,
                                                   int outShift, int outWidth, int outHeight) {
    const Pyramid p = pyramidOf(length);
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    const PlaneFormat atlasFormat = planeFormat(false, in.format.bound * length);
    const int across = axis == 0 ? format_.height : format_.width;
    Value atlas[2];
    for (int parity = 0; parity < 2; ++parity) {
        const int along = std::max(1, p.atlasSize[parity]);
        atlas[parity] = Value{axis == 0 ? acquire(along, across) : acquire(across, along), atlasFormat};
    }
    for (int k = 1; k <= p.levels && failure_; ++k) {
        const Value& target = atlas[k % 2];
        const FragmentShader shader = pyramidLevelShader(!packed_, axis, k, shift, p.offset[k - 1], p.offset[k],
                                                         k == 1 ? in.format : atlasFormat, atlasFormat);
        Draw d = makeDraw(shader, {k == 1 ? in : atlas[(k - 1) % 2]}, target);
        if (axis == 0) d.x = p.offset[k], d.y = 0, d.w = p.size[k], d.h = across;
        else d.x = 0, d.y = p.offset[k], d.w = across, d.h = p.size[k];
        steps_.push_back(Step{{d}, false, -1});
        passes_.push_back({shader.name, describe(atlasFormat), "1 draw of " + std::to_string(p.size[k]) + " blocks; " +
                                                                   describe(shader.cost)});
    }
    const FragmentShader shader =
        pyramidBoxShader(!packed_, axis, box, p, length, shift, outShift, in.format, atlasFormat, out);
    const Value result = full(shader, {in, atlas[0], atlas[1]}, out, {}, outWidth, outHeight);
    release(atlas[0]);
    release(atlas[1]);
    return result;
}

FragmentBackend::Value FragmentBackend::boxes(const cpu::BlurPlan& plan, int axis, const Value& in) {
    // The padded-copy definition (docs/algorithms.md): the first box pads the line by
    // passes (r + 1) replicated samples, the last crops it, so every pass clamps where the
    // reference's padded line ends. Each box is the sum pyramid's difference of two prefixes
    // (ALGORITHMS.md 2.4), or a direct sum of its 2r + 3 taps split into accumulating draws when
    // they exceed the budget.
    const ExtendedBox& box = plan.box;
    const int pad = plan.pad, taps = 2 * box.r + 3;
    const int padW = format_.width + (axis == 0 ? 2 * pad : 0), padH = format_.height + (axis == 1 ? 2 * pad : 0);
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    // Float planes take the sum pyramid where it needs under half the taps' fetches: its prefixes
    // cost a fetch per level and about as much again in ALU and level draws (measured on
    // llvmpipe: sigma 16 at 720p 256 ms against the taps' 186, sigma 32 274 against 348), and its
    // float sums lose what the line's total loses in the last bit, which a wide box divides away
    // (docs/algorithms.md). Packed planes keep the taps: 16-bit codes cannot hold sums of 2^k
    // samples within ALGORITHMS.md 8.
    const int length = (axis == 0 ? format_.width : format_.height) + 2 * pad;
    const Pyramid lines = pyramidOf(length);
    const bool pyramid =
        !packed_ && limits_.boxPyramid != PyramidUse::Never &&
        (limits_.boxPyramid == PyramidUse::Always || 2 * (2 * lines.levels + 6) < taps) &&
        fits(pyramidBoxShader(!packed_, axis, box, lines, length, 0, 0, in.format, in.format, in.format).cost, limits_.budget);
    Value v = in;
    for (int pass = 0; pass < kBoxPasses && failure_; ++pass) {
        const int shift = pass == 0 ? -pad : pass == kBoxPasses - 1 ? pad : 0;
        const bool last = pass == kBoxPasses - 1;
        if (pyramid) {
            // The line is the padded one: the first pass reads the input shifted by -pad
            // (clamped), the others the padded planes; the last writes the frame's size.
            const Value next = pyramidBox(box, axis, v, length, pass == 0 ? -pad : 0, last ? pad : 0, last ? 0 : padW,
                                          last ? 0 : padH);
            if (pass > 0) release(v);
            v = next;
            continue;
        }
        Value acc;
        for (int first = 0; first < taps && failure_;) {
            int end = taps - 1;
            while (end > first && !fits(boxTapsShader(!packed_, box, first, end, axis, shift, v.format, out).cost, limits_.budget))
                --end;
            const FragmentShader shader = boxTapsShader(!packed_, box, first, end, axis, shift, v.format, out);
            std::vector<Value> inputs{v};
            if (first > 0) inputs.push_back(acc);
            const Value next = last ? full(shader, inputs, out) : full(shader, inputs, out, {}, padW, padH);
            if (first > 0) release(acc);
            acc = next;
            first = end + 1;
        }
        if (pass > 0) release(v);
        v = acc;
    }
    return v;
}

namespace {

bool responseTaps(const cpu::CascadeFloat& cf, cpu::GaborTaps* out);

/// Declares the weights (float g0..gR and their sum, or the uniform) and returns tap |k|'s
/// expression for k in [-R, R], "0.0" outside.
std::function<std::string(int)> declareWeights(FragmentWriter& w, const QuadWeights& q) {
    const int R = q.radius();
    if (q.direct()) {
        const double r = std::exp(-0.5 / (q.sigma * q.sigma));
        w.line("vec3 g = vec3(1.0, " + f(r) + ", " + f(r * r) + ");", 0);
        w.line("float g0 = 1.0;", 0);
        w.line("float weight = 1.0;", 0);
        for (int k = 1; k <= R; ++k) {
            w.line("g.xy *= g.yz;", 1);
            w.line("float " + named("g", k) + " = g.x;", 0);
            w.line("weight += 2.0 * g.x;", 1);
        }
    } else {
        w.uniformArray("u_q", (R + 4) / 4);
    }
    return [q, R](int k) -> std::string {
        k = std::abs(k);
        if (k > R) return "0.0";
        if (q.direct()) return named("g", k);
        return "u_q[" + std::to_string(k / 4) + "]." + "xyzw"[k % 4];
    };
}

std::vector<float> quadUniform(const QuadWeights& q) {
    std::vector<float> u(q.taps);
    u.resize((u.size() + 3) / 4 * 4, 0.0f);
    return u;
}

/// The texels of replicate border a Quad plane's horizontal pass reads on each side.
int quadPad(int R) { return (R + 3) / 4; }

/// Four neighbouring pixels of a plane (read per pixel) into each texel of a Quad plane with
/// `pad` texels of border on each side: texel t holds pixels 4 (t - pad) + j, which the input's
/// clamp to its edge turns into the first or last pixel past the row's ends (the replicate
/// border, so the horizontal pass needs no border logic).
FragmentShader quadPackShader(bool es3, const PlaneFormat& in, int pad) {
    FragmentWriter w("quad.pack pad=" + std::to_string(pad), es3);
    w.input(0, in);
    w.line("vec2 b = vec2(4.0 * (floor(pos.x) - " + f(pad) + ") + 0.5, pos.y);", 2);
    std::string v = "vec4(";
    for (int j = 0; j < 4; ++j) {
        v += w.fetchAt(0, j ? "(b + vec2(" + f(j) + ", 0.0))" : std::string("b")) + ".x";
        v += j < 3 ? ", " : ")";
    }
    return w.finishRaw(v);
}

/// The horizontal pass from a padded Quad plane (quadPackShader) into an unpadded one: output
/// texel q holds pixels 4q..4q+3, each the FIR of the pixels around it. Texel q + m brings
/// pixels 4(q + m) + j, which weigh into output lane i with tap 4m + j - i.
FragmentShader quadRowsShader(bool es3, const std::string& what, const QuadWeights& q) {
    const int R = q.radius(), pad = quadPad(R);
    FragmentWriter w(what + " x R=" + std::to_string(R) + " on quads", es3);
    w.input(0, PlaneFormat{PlaneKind::Quad, false, 1, false});
    const auto tap = declareWeights(w, q);
    w.line("vec4 acc = vec4(0.0);", 0);
    for (int m = -pad; m <= pad; ++m) {
        bool first = true;
        for (int j = 0; j < 4; ++j) {
            const std::string weights[4] = {tap(4 * m + j), tap(4 * m + j - 1), tap(4 * m + j - 2), tap(4 * m + j - 3)};
            if (weights[0] == "0.0" && weights[1] == "0.0" && weights[2] == "0.0" && weights[3] == "0.0") continue;
            if (first) w.line("vec4 " + named("v", m + pad) + " = " + w.fetchRaw(0, along(0, m + pad)) + ";", 0);
            first = false;
            w.line("acc += " + named("v", m + pad) + "." + "xyzw"[j] + " * vec4(" + weights[0] + ", " + weights[1] + ", " +
                       weights[2] + ", " + weights[3] + ");",
                   1);
        }
    }
    return w.finishRaw(q.direct() ? "acc / weight" : "acc");
}

/// The vertical pass of a Quad plane into a QuadRows one: four rows of four columns per
/// fragment, each input texel fetched once for the four (2R + 4 fetches for sixteen outputs).
/// Output texel row Y holds rows 4Y + j in layer j. Where 2R + 4 fetches exceed the budget the
/// pass is split by input rows: this draw sums rows e = e0..e1 (of -R..R + 3 around 4Y) onto the
/// previous draw's sums (slot 1, read raw per layer); the last one also normalises.
FragmentShader quadRowsColumnsShader(bool es3, const std::string& what, const QuadWeights& q, int e0, int e1) {
    const int R = q.radius();
    const bool whole = e0 == -R && e1 == R + 3, last = e1 == R + 3;
    std::string name = what + " y R=" + std::to_string(R) + " on quads, four rows per fragment";
    if (!whole) name += ", input rows " + std::to_string(e0) + ".." + std::to_string(e1);
    FragmentWriter w(name, es3);
    w.input(0, PlaneFormat{PlaneKind::Quad, false, 1, false});
    if (e0 > -R) w.input(1, PlaneFormat{PlaneKind::QuadRows, false, 1, false});
    const auto tap = declareWeights(w, q);
    w.line("vec2 b = vec2(pos.x, 4.0 * floor(pos.y) + 0.5);", 2);
    for (int j = 0; j < 4; ++j)
        w.line("vec4 " + named("a", j) + " = " + (e0 > -R ? w.fetchLayerAt(1, "pos", j) : std::string("vec4(0.0)")) + ";", 0);
    for (int e = e0; e <= e1; ++e) {
        w.line("vec4 " + named("t", e + R) + " = " + w.fetchRawAt(0, "(b + " + along(1, e) + ")") + ";", 0);
        for (int j = 0; j < 4; ++j)
            if (std::abs(e - j) <= R) w.line(named("a", j) + " += " + tap(e - j) + " * " + named("t", e + R) + ";", 1);
    }
    auto row = [&](int j) { return q.direct() && last ? named("a", j) + " / weight" : named("a", j); };
    return w.finishRows({row(0), row(1), row(2), row(3)});
}

} // namespace

FragmentBackend::Value FragmentBackend::quadBlur(const QuadWeights& q, const std::string& what, const Value& in) {
    // Float planes whose QuadRows render (GLES 3.0), a real input, and each axis in one shader
    // within budget; otherwise the per-pixel passes (Value{}: not taken). The input is packed
    // into quads with a border first (read per pixel, whatever its kind).
    if (packed_ || !quadRows_ || in.format.complex) return {};
    const FragmentShader rows = quadRowsShader(!packed_, what, q);
    if (!fits(rows.cost, limits_.budget)) return {};
    // The vertical pass in as few draws as fit: each the most input rows that fit (the cost
    // grows with them; found by bisection).
    const int R = q.radius();
    std::vector<FragmentShader> columns;
    for (int e0 = -R; e0 <= R + 3;) {
        int lo = e0 - 1, hi = R + 3;  // the last row that fits lies in (lo, hi]
        if (!fits(quadRowsColumnsShader(!packed_, what, q, e0, hi).cost, limits_.budget)) {
            while (hi - lo > 1) {
                const int mid = lo + (hi - lo) / 2;
                if (fits(quadRowsColumnsShader(!packed_, what, q, e0, mid).cost, limits_.budget)) lo = mid;
                else hi = mid;
            }
            hi = lo;
        }
        if (hi < e0) return {};
        columns.push_back(quadRowsColumnsShader(!packed_, what, q, e0, hi));
        e0 = hi + 1;
    }
    const int quads = (format_.width + 3) / 4;
    const int pad = quadPad(q.radius());
    const Value src = full(quadPackShader(!packed_, in.format, pad), {in},
                           PlaneFormat{PlaneKind::Quad, false, in.format.bound, in.format.nonNegative}, {}, quads + 2 * pad,
                           format_.height);
    // Bounds as the per-pixel passes: the L1 norm of the taps (1 for the normalised Gaussian).
    double l1 = 1;
    if (!q.direct()) {
        l1 = q.taps[0];
        for (std::size_t k = 1; k < q.taps.size(); ++k) l1 += 2 * std::abs(q.taps[k]);
    }
    const PlaneFormat mid{PlaneKind::Quad, false, in.format.bound * l1, in.format.nonNegative && q.direct()};
    const PlaneFormat out{PlaneKind::QuadRows, false, mid.bound * l1, mid.nonNegative};
    const Uniforms u = q.direct() ? Uniforms{} : Uniforms{{"u_q", quadUniform(q)}};
    const Value h = full(rows, {src}, mid, u, quads, format_.height);
    release(src);
    Value v;
    for (const FragmentShader& c : columns) {
        const Value next = full(c, v.plane >= 0 ? std::vector<Value>{h, v} : std::vector<Value>{h}, out, u, quads,
                                (format_.height + 3) / 4);
        if (v.plane >= 0) release(v);
        v = next;
    }
    release(h);
    return v;
}

FragmentBackend::Value FragmentBackend::blur(const cpu::BlurPlan& plan, const Value& in) {
    switch (plan.method) {
    case BlurMethod::Direct: {
        if (const Value q = quadBlur(QuadWeights{plan.sigma, {}}, "blur.direct", in); q.plane >= 0) return q;
        const Value h = directGaussian(plan.sigma, 0, in);
        const Value v = directGaussian(plan.sigma, 1, h);
        release(h);
        return v;
    }
    case BlurMethod::Boxes: {
        const Value h = boxes(plan, 0, in);
        const Value v = boxes(plan, 1, h);
        release(h);
        return v;
    }
    case BlurMethod::Recursive:
    case BlurMethod::Auto: {
        cpu::GaborTaps taps;
        if (responseTaps(plan.recursive, &taps) && useResponse(taps, true))
            if (const Value q = quadBlur(QuadWeights{0, taps.c}, "recursive.response", in); q.plane >= 0) return q;
        const Value h = recursive(plan.recursive, 0, in, false);
        const Value v = recursive(plan.recursive, 1, h, false);
        release(h);
        return v;
    }
    }
    return in;
}

namespace {

/// Direct Gabor taps of one axis, the centre and `count` pairs, or `count` pairs added to an
/// accumulator (slot 1), in the cpu backend's order: the pair at -/+k summed first
/// (cpu/neon/lines.cpp).
FragmentShader tapsShader(bool es3, const std::string& what, int count, bool withCentre, int axis, const PlaneFormat& in,
                          const PlaneFormat& acc, const PlaneFormat& out) {
    // The taps are uniforms (u_taps[0].x: the centre tap c_0; u_taps[0].y: the first pair's
    // offset k; u_taps[1 + i / 2]: (c, s) of pair i, two per vector), so every orientation shares
    // the program.
    // A real input under real taps (a recursive Gaussian's response) keeps only the real part.
    const bool real = !in.complex && !out.complex;
    FragmentWriter w(what + " " + axisName(axis) + " " + std::to_string(count) + " tap pairs" +
                         (withCentre ? " and the centre" : " added"),
                     es3);
    w.input(0, in);
    if (!withCentre) w.input(1, acc);
    w.uniformArray("u_taps", 1 + (count + 1) / 2);
    if (withCentre) w.line("vec2 z = u_taps[0].x * " + w.fetch(0, "") + ";", 1);
    else w.line("vec2 z = " + w.fetch(1, "") + ";", 0);
    for (int i = 0; i < count; ++i) {
        const std::string k = "(u_taps[0].y + " + f(i) + ")";
        const std::string offset = axis == 0 ? "vec2(" + k + ", 0.0)" : "vec2(0.0, " + k + ")";
        const std::string a = named("a", i), b = named("b", i);
        w.line("vec2 " + a + " = " + w.fetch(0, "-" + offset) + ", " + b + " = " + w.fetch(0, offset) + ";", 1);
        const std::string tap = "u_taps[" + std::to_string(1 + i / 2) + "]" + (i % 2 ? ".zw" : ".xy");
        if (in.complex) {
            w.line("z.x = z.x + (" + a + ".x + " + b + ".x) * " + tap + ".x;", 2);
            w.line("z.x = z.x - (" + a + ".y - " + b + ".y) * " + tap + ".y;", 2);
            w.line("z.y = z.y + (" + a + ".y + " + b + ".y) * " + tap + ".x;", 2);
            w.line("z.y = z.y + (" + a + ".x - " + b + ".x) * " + tap + ".y;", 2);
        } else {
            w.line("z.x = z.x + (" + a + ".x + " + b + ".x) * " + tap + ".x;", 2);
            if (!real) w.line("z.y = z.y + (" + a + ".x - " + b + ".x) * " + tap + ".y;", 2);
        }
    }
    return w.finish(real ? "vec2(z.x, 0.0)" : "z", out);
}

/// The L1 norm of one axis's direct Gabor taps.
double tapsL1(const cpu::GaborTaps& taps) {
    double l1 = std::abs(taps.c[0]);
    for (std::size_t k = 1; k < taps.c.size(); ++k) l1 += 2 * std::hypot(taps.c[k], taps.s[k]);
    return l1;
}

/// The L1 norm of one axis's whole recursive filter (both directions, all sections).
double cascadeL1(const cpu::CascadeFloat& cf) {
    const std::array<C, 3> p{C(cf.pr[0], cf.pi[0]), C(cf.pr[1], cf.pi[1]), C(cf.pr[2], cf.pi[2])};
    const std::array<C, 3> q{C(cf.qr[0], cf.qi[0]), C(cf.qr[1], cf.qi[1]), C(cf.qr[2], cf.qi[2])};
    return sectionBounds(p, sectionGains(p, cf.B), q, sectionGains(q, cf.B))[5];
}

/// The two-sided impulse response of one recursive axis (both directions, all sections), cut
/// where the L1 mass beyond is below kResponseTail, as taps c + i s at +t and c - i s at -t
/// (direct Gabor taps). With replicate borders the recursion is exactly the convolution of the
/// replicate-extended line with this response (ALGORITHMS.md 3.3), and clamp-to-edge fetches
/// extend the line so: the cut is the only error. False if the response is not of that shape.
bool responseTaps(const cpu::CascadeFloat& cf, cpu::GaborTaps* out) {
    const std::array<C, 3> p{C(cf.pr[0], cf.pi[0]), C(cf.pr[1], cf.pi[1]), C(cf.pr[2], cf.pi[2])};
    const std::array<C, 3> q{C(cf.qr[0], cf.qi[0]), C(cf.qr[1], cf.qi[1]), C(cf.qr[2], cf.qi[2])};
    double slowest = 0;
    for (int k = 0; k < 3; ++k) slowest = std::max({slowest, std::abs(p[k]), std::abs(q[k])});
    if (!(slowest < 1)) return false;
    const int L = std::min(20000, static_cast<int>(std::ceil(std::log(1e-13) / std::log(std::max(slowest, 1e-3)))) + 8);
    std::vector<C> x(2 * static_cast<std::size_t>(L) + 1, 0.0);
    x[L] = 1.0;
    for (int k = 0; k < 3; ++k) {
        C state = 0;
        for (auto& v : x) v = state = v + p[k] * state;
    }
    for (auto& v : x) v *= static_cast<double>(cf.B);
    for (int k = 0; k < 3; ++k) {
        C state = 0;
        for (auto it = x.rbegin(); it != x.rend(); ++it) *it = state = *it + q[k] * state;
    }
    for (auto& v : x) v *= static_cast<double>(cf.B);
    double tail = 0, peak = 0;
    for (const C& v : x) {
        tail += std::abs(v);
        peak = std::max(peak, std::abs(v));
    }
    tail -= std::abs(x[L]);
    int R = 0;
    while (R < L && tail >= kResponseTail) {
        ++R;
        tail -= std::abs(x[L + R]) + std::abs(x[L - R]);
        if (std::abs(x[L - R] - std::conj(x[L + R])) > 1e-9 * peak) return false;
    }
    if (R >= L) return false;
    out->c.resize(R + 1);
    out->s.resize(R + 1);
    for (int t = 0; t <= R; ++t) {
        out->c[t] = static_cast<float>(x[L + t].real());
        out->s[t] = static_cast<float>(x[L + t].imag());
    }
    return true;
}

const char* sinkName(cpu::GaborSink s) {
    switch (s) {
    case cpu::GaborSink::Magnitude: return "magnitude";
    case cpu::GaborSink::Real: return "real";
    case cpu::GaborSink::Imaginary: return "imaginary";
    case cpu::GaborSink::Phase: return "phase";
    case cpu::GaborSink::Complex: return "complex";
    case cpu::GaborSink::MaxMagnitude: return "bank maximum";
    case cpu::GaborSink::MaxEnergy: return "bank maximum and sector";
    }
    return "?";
}

} // namespace

FragmentBackend::Value FragmentBackend::tapsAxis(const cpu::GaborTaps& taps, int axis, const Value& in, bool complexOut,
                                                 const std::string& what) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    // |z| <= max |input| x the taps' L1 norm; re and im are each within |z|.
    const PlaneFormat out = planeFormat(complexOut, in.format.bound * tapsL1(taps));
    // As many tap pairs per pass as fit; later passes add to the accumulated sum (same bound:
    // every partial sum is within the L1 norm of all taps).
    Value acc;
    int k0 = 1;
    do {
        const bool centre = k0 == 1;
        int count = R - k0 + 1;
        while (count > 0 && !fits(tapsShader(!packed_, what, count, centre, axis, in.format, out, out).cost, limits_.budget))
            --count;
        if (count == 0 && !centre) {
            fail("gles-fragment: not even one tap pair of " + what + " fits the board's budget");
            break;
        }
        std::vector<float> u = {taps.c[0], static_cast<float>(k0), 0.0f, 0.0f};
        for (int i = 0; i < count; ++i) u.insert(u.end(), {taps.c[k0 + i], taps.s[k0 + i]});
        if (count % 2) u.insert(u.end(), {0.0f, 0.0f});
        const FragmentShader shader = tapsShader(!packed_, what, count, centre, axis, in.format, out, out);
        const Value next = centre ? full(shader, {in}, out, {{"u_taps", u}}) : full(shader, {in, acc}, out, {{"u_taps", u}});
        if (!centre) release(acc);
        acc = next;
        k0 += count;
    } while (k0 <= R && failure_);
    return acc;
}

bool FragmentBackend::useResponse(const cpu::GaborTaps& taps, bool onQuads) const {
    switch (limits_.recursiveForm) {
    case RecursiveForm::Response: return true;
    case RecursiveForm::Strips:
    case RecursiveForm::Block: return false;
    case RecursiveForm::Auto: break;
    }
    return onQuads || 2 * static_cast<int>(taps.c.size()) - 1 <= kMaxResponseTaps;
}

FragmentBackend::Value FragmentBackend::recursive(const cpu::CascadeFloat& cf, int axis, const Value& in, bool complexOut) {
    cpu::GaborTaps taps;
    if (responseTaps(cf, &taps) && useResponse(taps, false)) return tapsAxis(taps, axis, in, complexOut, "recursive.response");
    return recursiveAxis(cf, axis, in, complexOut);
}

FragmentBackend::Value FragmentBackend::gabor(const cpu::GaborPlan& plan, const Value& in) {
    Value gauss;
    if (plan.removeDc) gauss = blur(plan.dcBlur, in);
    // One bound for every orientation: the bank's running maximum is re-encoded at each step.
    double bound = 0;
    for (const cpu::GaborOrientationPlan& o : plan.bank) {
        const double axes = plan.recursive ? cascadeL1(o.x) * cascadeL1(o.y) : tapsL1(o.tx) * tapsL1(o.ty);
        bound = std::max(bound, in.format.bound * axes + (plan.removeDc ? std::abs(o.dcGain) * gauss.format.bound : 0.0));
    }
    const bool bank = plan.sink == cpu::GaborSink::MaxMagnitude || plan.sink == cpu::GaborSink::MaxEnergy;
    Value best;  // bank: running maximum, and for edges the winner's sector in the imaginary part
    Value result;
    for (std::size_t k = 0; k < plan.bank.size() && failure_; ++k) {
        const cpu::GaborOrientationPlan& o = plan.bank[k];
        Value h, z;
        if (plan.recursive) {
            h = recursive(o.x, 0, in, true);
            z = recursive(o.y, 1, h, true);
        } else {
            h = tapsAxis(o.tx, 0, in, true, "gabor.direct");
            z = tapsAxis(o.ty, 1, h, true, "gabor.direct");
        }
        release(h);
        // The stage's output from z (ALGORITHMS.md 3.1, 3.4): DC removed first. u_combine: the
        // DC gain K_x K_y, this orientation's sector (scaled), the packed strength step.
        FragmentWriter w(std::string("gabor.combine ") + sinkName(plan.sink) + (k > 0 && bank ? " (running)" : ""), !packed_);
        w.uniform("u_combine");
        w.input(0, z.format);
        w.line("vec2 z = " + w.fetch(0, "") + ";", 0);
        std::vector<Value> inputs{z};
        if (plan.removeDc) {
            w.input(1, gauss.format);
            w.line("z.x -= u_combine.x * " + w.fetch(1, "") + ".x;", 1);
            inputs.push_back(gauss);
        }
        w.line("float m = length(z);", 3);
        // (strength, sector) with the sector scaled into the strength's range, so one bound
        // serves both (edges() decodes it).
        const std::vector<float> u = {o.dcGain, static_cast<float>(o.sector * bound / 3), static_cast<float>(bound / 65535),
                                      0.0f};
        if (bank) {
            const PlaneFormat format = planeFormat(true, bound, true);
            if (packed_) {
                // Compare what will be stored: equal strengths quantise alike, so the bank keeps
                // the first of a tie as the float backends do.
                w.line("m = floor(clamp(m / u_combine.z, 0.0, 65535.0) + 0.5) * u_combine.z;", 4);
            }
            if (k == 0) {
                w.line("vec2 best = vec2(m, u_combine.y);", 0);
            } else {
                // Keep the first of near-equal maxima (kTieTolerance), as every backend does.
                w.input(2, best.format);
                w.line("vec2 best = " + w.fetch(2, "") + ";", 0);
                w.line("if (m > best.x * " + f(1 + kTieTolerance) + ") best = vec2(m, u_combine.y);", 3);
                inputs.push_back(best);
            }
            const Value out = full(w.finish("best", format), inputs, format, {{"u_combine", u}});
            if (k > 0) release(best);
            best = result = out;
        } else {
            std::string value = "vec2(m, 0.0)";
            PlaneFormat format = planeFormat(false, bound, true);
            switch (plan.sink) {
            case cpu::GaborSink::Real: value = "vec2(z.x, 0.0)"; format = planeFormat(false, bound); break;
            case cpu::GaborSink::Imaginary: value = "vec2(z.y, 0.0)"; format = planeFormat(false, bound); break;
            case cpu::GaborSink::Phase:
                value = "vec2(z.x == 0.0 && z.y == 0.0 ? 0.0 : atan(z.y, z.x), 0.0)";
                format = planeFormat(false, 3.2);
                w.line("", 4);
                break;
            case cpu::GaborSink::Complex: value = "z"; format = planeFormat(true, bound); break;
            default: break;
            }
            result = full(w.finish(value, format), inputs, format, {{"u_combine", u}});
        }
        release(z);
    }
    if (plan.removeDc) release(gauss);
    return result;
}

FragmentBackend::Value FragmentBackend::edges(const EdgeSpec& spec, const cpu::StagePlan& plan, const Value& in) {
    // Strength and NMS sector as one complex value (re: strength, im: sector 0..3).
    Value strength;
    if (spec.method == EdgeMethod::Canny) {
        const Value smooth = blur(plan.blur, in);
        FragmentWriter w("edges.gradient", !packed_);
        w.input(0, smooth.format);
        const std::string r = w.fetch(0, along(0, 1)), l = w.fetch(0, along(0, -1));
        const std::string d = w.fetch(0, along(1, 1)), u = w.fetch(0, along(1, -1));
        w.line("float gx = (" + r + ".x - " + l + ".x) * 0.5;", 2);
        w.line("float gy = (" + d + ".x - " + u + ".x) * 0.5;", 2);
        w.line("float ax = abs(gx), ay = abs(gy);", 2);
        w.line("float sector = ay <= " + f(kTan22_5) + " * ax ? 0.0 : ay > " + f(kTan67_5) +
                   " * ax ? 2.0 : ((gx > 0.0) == (gy > 0.0) ? 1.0 : 3.0);",
               6);
        w.line("float m = sqrt(gx * gx + gy * gy);", 3);
        // |gx|, |gy| <= bound / 2, so the magnitude is within bound / sqrt(2); the sector is
        // scaled into that range.
        const PlaneFormat format = planeFormat(true, smooth.format.bound / std::sqrt(2.0), true);
        strength = full(w.finish("vec2(m, sector * " + f(format.bound / 3) + ")", format), {smooth}, format);
        release(smooth);
    } else {
        strength = gabor(plan.gabor, in);
    }
    // Suppression and double threshold: the neighbours along the sector are a dependent read.
    FragmentWriter n("edges.suppress", !packed_);
    n.input(0, strength.format);
    n.line("vec2 c = " + n.fetch(0, "") + ";", 0);
    n.line("float sector = floor(c.y * " + f(3 / strength.format.bound) + " + 0.5);", 2);
    n.line("vec2 step = sector < 0.5 ? vec2(1.0, 0.0) : sector < 1.5 ? vec2(1.0, 1.0) : sector < 2.5 ? vec2(0.0, 1.0) : vec2(-1.0, 1.0);", 6);
    const std::string before = n.fetch(0, "-step"), after = n.fetch(0, "step");
    n.line("float v = c.x, before = " + before + ".x, after = " + after + ".x;", 0);
    // Ties: within kTieTolerance, as everywhere; packed strengths also within a few codes of
    // their quantisation, which breaks exact ties apart at random (docs/algorithms.md).
    const double slack = packed_ ? kPackedTieCodes * strength.format.bound / 65535 : 0.0;
    n.line("bool isMax = v > before * " + f(1 + kTieTolerance) + " + " + f(slack) + " && v >= after * " +
               f(1 - kTieTolerance) + " - " + f(slack) + ";",
           6);
    n.uniform("u_thresholds");  // x: high, y: low (uniforms: a threshold change compiles nothing)
    n.line("float cls = !isMax ? 0.0 : v >= u_thresholds.x ? 2.0 : v >= u_thresholds.y ? 1.0 : 0.0;", 4);
    FragmentShader suppress = n.finishRaw("vec4(cls / 255.0, 0.0, 0.0, 1.0)");
    suppress.cost.dependentDepth = 2;
    // Classes 0..3 as bytes (c / 255) in RGBA8 on every profile: exact, and a quarter of the
    // traffic of float texels in the hysteresis loop and its read-backs.
    const PlaneFormat classFormat{PlaneKind::Packed, false, 1, true};
    const Uniforms thresholds{{"u_thresholds", {static_cast<float>(spec.highThreshold), static_cast<float>(spec.lowThreshold), 0.0f, 0.0f}}};
    Value classes = full(suppress, {strength}, classFormat, thresholds);
    passes_.back().format = "RGBA8 classes";
    // Hysteresis: a weak pixel next to a strong or edge one becomes an edge (3); the two draws
    // repeat until the classes stop changing (checked on the host once per batch).
    FragmentWriter hw("edges.hysteresis", !packed_);
    hw.input(0, classFormat);
    hw.line("float c = floor(" + hw.fetchRaw(0, "") + ".r * 255.0 + 0.5);", 2);
    hw.line("float grow = 0.0;", 0);
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy)
                hw.line("grow = max(grow, step(1.5, floor(" + hw.fetchRaw(0, "vec2(" + f(dx) + ", " + f(dy) + ")") +
                            ".r * 255.0 + 0.5)));",
                        3);
    hw.line("if (c > 0.5 && c < 1.5 && grow > 0.5) c = 3.0;", 3);
    const FragmentShader hysteresis = hw.finishRaw("vec4(c / 255.0, 0.0, 0.0, 1.0)");
    const int other = acquire(0, 0, PlaneKind::Packed);
    const Value pong{other, classFormat};
    // Only weak pixels can change: where the two planes share a stencil buffer, both start as
    // the classes and the loop's draws shade the weak pixels alone (a mark draw sets their
    // stencil).
    const bool stencil = limits_.hysteresisStencil && shareStencil(classes.plane, other);
    if (stencil) {
        FragmentWriter cw("edges.classes copy", !packed_);
        cw.input(0, classFormat);
        const FragmentShader copy = cw.finishRaw(cw.fetchRaw(0, ""));
        FragmentWriter mw("edges.weak pixels mark", !packed_);
        mw.input(0, classFormat);
        mw.line("if (abs(" + mw.fetchRaw(0, "") + ".r * 255.0 - 1.0) > 0.5) discard;", 3);
        const FragmentShader mark = mw.finishRaw("vec4(0.0)");
        Draw m = makeDraw(mark, {classes}, pong);
        m.stencil = Stencil::Mark;
        steps_.push_back(Step{{makeDraw(copy, {classes}, pong), m}, false, -1});
        passes_.push_back({copy.name, "RGBA8 classes", "1 draw; " + describe(copy.cost)});
        passes_.push_back({mark.name, "stencil", "1 draw; " + describe(mark.cost)});
    }
    Step loop;
    loop.repeatUntilStable = true;
    loop.watched = classes.plane;
    for (int i = 0; i < 2; ++i) {
        loop.draws.push_back(makeDraw(hysteresis, {i == 0 ? classes : pong}, i == 0 ? pong : classes));
        if (stencil) loop.draws.back().stencil = Stencil::Test;
    }
    steps_.push_back(loop);
    passes_.push_back({hysteresis.name, "RGBA8 classes",
                       std::string("2 draws") + (stencil ? " on the weak pixels (stencil)" : "") + ", repeated until stable; " +
                           describe(hysteresis.cost)});
    planes_[other].busy = false;
    // The stage's output.
    FragmentWriter o("edges.output", !packed_);
    o.input(0, classFormat);
    o.line("float c = floor(" + o.fetchRaw(0, "") + ".r * 255.0 + 0.5);", 2);
    PlaneFormat format = planeFormat(false, 1, true);
    std::vector<Value> inputs{classes};
    std::string value;
    switch (spec.output) {
    case EdgeOutput::Edges: value = "vec2(c > 1.5 ? 1.0 : 0.0, 0.0)"; break;
    case EdgeOutput::Strength:
        o.input(1, strength.format);
        value = "vec2(" + o.fetch(1, "") + ".x, 0.0)";
        format = planeFormat(false, strength.format.bound, true);
        inputs.push_back(strength);
        break;
    case EdgeOutput::Overlay:
        o.input(1, in.format);
        value = "vec2(c > 1.5 ? 1.0 : " + o.fetch(1, "") + ".x, 0.0)";
        format = planeFormat(false, std::max(1.0, in.format.bound), in.format.nonNegative);
        inputs.push_back(in);
        break;
    }
    o.line("", 2);
    const Value out = full(o.finish(value, format), inputs, format);
    release(classes);
    release(strength);
    return out;
}

Status FragmentBackend::configureCurrent(const Chain& chain, const FrameFormat& format) {
    releaseGl();
    chain_ = chain;
    format_ = format;
    failure_ = {};
    passes_.clear();
    shaders_.clear();
    // The input: with float targets an R32F plane of the reference's unit values float(c / 255),
    // made on the host (a shader division need not round correctly); else the 8-bit luminance.
    luma_ = acquire();
    glBindTexture(GL_TEXTURE_2D, planes_[luma_].texture);
    if (packed_)
        glTexImage2D(GL_TEXTURE_2D, 0, GL_LUMINANCE, format.width, format.height, 0, GL_LUMINANCE, GL_UNSIGNED_BYTE, nullptr);
    else
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, format.width, format.height, 0, GL_RED, GL_FLOAT, nullptr);
    Value v{luma_, PlaneFormat{packed_ ? PlaneKind::Luma8 : PlaneKind::Float, false, 1, true}};
    for (std::size_t i = 0; i < chain.stages.size() && failure_; ++i) {
        const cpu::StagePlan plan = cpu::planStage(chain.stages[i]);
        Value next;
        if (std::holds_alternative<BlurSpec>(chain.stages[i])) next = blur(plan.blur, v);
        else if (std::holds_alternative<GaborSpec>(chain.stages[i])) next = gabor(plan.gabor, v);
        else next = edges(std::get<EdgeSpec>(chain.stages[i]), plan, v);
        if (i > 0) release(v);
        v = next;
    }
    result_ = v;
    complexOutput_ = chain.complexOutput();
    const int W = format.width, H = format.height;
    // A real float result is drawn into an R32F target instead, so the read-back moves 4 bytes a
    // pixel rather than 16 (where the driver reads R32F as GL_RED / GL_FLOAT).
    redResult_ = 0;
    if (!packed_ && !complexOutput_ && failure_ && result_.format.kind == PlaneKind::Float && !steps_.empty() &&
        steps_.back().draws.size() == 1 &&
        steps_.back().draws[0].target == result_.plane) {
        GLuint texture = 0, fbo = 0;
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, W, H, 0, GL_RED, GL_FLOAT, nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
        GLint readFormat = 0, readType = 0;
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
            glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_FORMAT, &readFormat);
            glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_TYPE, &readType);
        }
        Plane red;
        red.texture = texture;
        red.fbo = fbo;
        red.width = W;
        red.height = H;
        red.busy = true;
        planes_.push_back(red);
        if (readFormat == GL_RED && readType == GL_FLOAT) {
            redResult_ = static_cast<int>(planes_.size()) - 1;
            steps_.back().draws[0].target = redResult_;
        }
    }

    readback8_.resize(static_cast<std::size_t>(4) * W * H);
    readbackF_.resize(packed_ ? 0 : static_cast<std::size_t>(4) * W * H);
    unitUpload_.resize(packed_ ? 0 : static_cast<std::size_t>(W) * H);
    real_.reset(W, H);
    if (complexOutput_) complex_.reset(W, H);
    if (failure_) {
        if (const GLenum e = glGetError(); e != GL_NO_ERROR)
            failure_ = Status::error("gles-fragment configure: GL error 0x" + std::to_string(e));
    }
    return failure_;
}

Status FragmentBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    if (Status s = makeCurrent(); !s) return s;
    const Status s = processCurrent(luma, out);
    releaseCurrent();
    return s;
}

void FragmentBackend::run(const Draw& d) {
    const Plane& t = planes_[d.target];
    glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
    glViewport(0, 0, t.width, t.height);
    if (d.w > 0) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(d.x, d.y, d.w, d.h);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
    switch (d.stencil) {
    case Stencil::None: glDisable(GL_STENCIL_TEST); break;
    case Stencil::Mark:
        glEnable(GL_STENCIL_TEST);
        glStencilMask(0xff);
        glClearStencil(0);
        glClear(GL_STENCIL_BUFFER_BIT);
        glStencilFunc(GL_ALWAYS, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        break;
    case Stencil::Test:
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(GL_EQUAL, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
        break;
    }
    glUseProgram(d.program);
    for (const UniformValue& u : d.uniforms) {
        const GLsizei count = static_cast<GLsizei>(u.values.size()) / u.components;
        if (u.components == 2) glUniform2fv(u.location, count, u.values.data());
        else glUniform4fv(u.location, count, u.values.data());
    }
    for (std::size_t i = 0; i < d.inputs.size(); ++i) {
        if (d.inputs[i] < 0) continue;
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
        const Plane& in = planes_[d.inputs[i]];
        glBindTexture(in.layers ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D, in.texture);
    }
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (d.stencil == Stencil::Mark) glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

void FragmentBackend::beginDraws() {
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

void FragmentBackend::runSteps() {
    const int W = format_.width, H = format_.height;
    auto readClasses = [&](int plane, std::vector<std::uint8_t>* dst) {
        glBindFramebuffer(GL_FRAMEBUFFER, planes_[plane].fbo);
        dst->resize(static_cast<std::size_t>(4) * W * H);
        glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, dst->data());
    };
    for (const Step& step : steps_) {
        if (!step.repeatUntilStable) {
            for (const Draw& d : step.draws) run(d);
            continue;
        }
        // Each pair of draws moves an edge at least one pixel along every unfinished path, so
        // W * H pairs always reach the fixed point; the host compares once per batch.
        std::vector<std::uint8_t>& before = classesBefore_;
        std::vector<std::uint8_t>& after = classesAfter_;
        readClasses(step.watched, &before);
        for (long pairs = 0; pairs < static_cast<long>(W) * H + kHysteresisBatch; pairs += kHysteresisBatch) {
            for (int i = 0; i < kHysteresisBatch; ++i)
                for (const Draw& d : step.draws) run(d);
            readClasses(step.watched, &after);
            if (after == before) break;
            before.swap(after);
        }
    }
    glDisable(GL_SCISSOR_TEST);
}

Status FragmentBackend::processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    const int W = format_.width, H = format_.height;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glBindTexture(GL_TEXTURE_2D, planes_[luma_].texture);
    if (packed_) {
        // GLES 2.0 has no unpack row length: strided rows are copied tight first.
        const std::uint8_t* pixels = luma.data;
        if (luma.stride != W) {
            lumaUpload_.resize(static_cast<std::size_t>(W) * H);
            for (int y = 0; y < H; ++y) std::memcpy(&lumaUpload_[static_cast<std::size_t>(y) * W], luma.row(y), W);
            pixels = lumaUpload_.data();
        }
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_LUMINANCE, GL_UNSIGNED_BYTE, pixels);
    } else {
        const std::array<float, 256>& unit = unitValues();
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) unitUpload_[static_cast<std::size_t>(y) * W + x] = unit[luma.row(y)[x]];
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RED, GL_FLOAT, unitUpload_.data());
    }

    beginDraws();
    runSteps();
    // The result: decoded on the host exactly as the shaders decode.
    if (redResult_ > 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, planes_[redResult_].fbo);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(real_.stride()));
        glReadPixels(0, 0, W, H, GL_RED, GL_FLOAT, real_.data());
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        *out = ChainOutput{};
        out->real = real_.view();
        if (const GLenum e = glGetError(); e != GL_NO_ERROR)
            return Status::error("gles-fragment: GL error 0x" + std::to_string(e) + " while processing a frame");
        return {};
    }
    glBindFramebuffer(GL_FRAMEBUFFER, planes_[result_.plane].fbo);
    const PlaneFormat& rf = result_.format;
    if (rf.kind == PlaneKind::QuadRows) {
        // Row y is texel row y / 4 of layer y % 4, its pixels in order (and up to three past the
        // last).
        const Plane& p = planes_[result_.plane];
        glBindFramebuffer(GL_FRAMEBUFFER, readFbo_);
        for (int j = 0; j < 4; ++j) {
            glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, p.texture, 0, j);
            glReadPixels(0, 0, p.width, p.height, GL_RGBA, GL_FLOAT, readbackF_.data());
            for (int t = 0; t < p.height; ++t)
                if (const int y = 4 * t + j; y < H)
                    std::copy_n(&readbackF_[static_cast<std::size_t>(t) * 4 * p.width], W, real_.row(y));
        }
        *out = ChainOutput{};
        out->real = real_.view();
        if (const GLenum e = glGetError(); e != GL_NO_ERROR)
            return Status::error("gles-fragment: GL error 0x" + std::to_string(e) + " while processing a frame");
        return {};
    }
    if (packed_) glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, readback8_.data());
    else glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, readbackF_.data());
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const std::size_t i = 4 * (static_cast<std::size_t>(y) * W + x);
            float re, im = 0;
            if (packed_) {
                re = static_cast<float>(decodePacked(readback8_[i], readback8_[i + 1], rf));
                if (rf.complex) im = static_cast<float>(decodePacked(readback8_[i + 2], readback8_[i + 3], rf));
            } else {
                re = readbackF_[i];
                im = readbackF_[i + 1];
            }
            if (complexOutput_) {
                complex_.at(x, y) = Complex32(re, im);
                real_.at(x, y) = std::abs(complex_.at(x, y));
            } else {
                real_.at(x, y) = re;
            }
        }
    *out = ChainOutput{};
    out->real = real_.view();
    if (complexOutput_) {
        out->complex = true;
        out->complexPlane = complex_.view();
    }
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        return Status::error("gles-fragment: GL error 0x" + std::to_string(e) + " while processing a frame");
    return {};
}

namespace {

/// The GL state of a context we share with its owner (GstGL), saved and put back around our
/// draws: its elements assume their bindings survive between their own calls.
class SavedGlState {
public:
    explicit SavedGlState(bool es3) : es3_(es3) {
        glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_);
        glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer_);
        glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture_);
        for (int i = 0; i < kUnits; ++i) {
            glActiveTexture(GL_TEXTURE0 + i);
            glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[i]);
            if (es3_) glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &arrays_[i]);
        }
        glGetIntegerv(GL_VIEWPORT, viewport_);
        glGetBooleanv(GL_COLOR_WRITEMASK, colorMask_);
        scissor_ = glIsEnabled(GL_SCISSOR_TEST);
        blend_ = glIsEnabled(GL_BLEND);
        depth_ = glIsEnabled(GL_DEPTH_TEST);
        stencil_ = glIsEnabled(GL_STENCIL_TEST);
        const GLenum stencilState[kStencilState] = {GL_STENCIL_FUNC,      GL_STENCIL_REF,
                                                    GL_STENCIL_VALUE_MASK, GL_STENCIL_FAIL,
                                                    GL_STENCIL_PASS_DEPTH_FAIL, GL_STENCIL_PASS_DEPTH_PASS,
                                                    GL_STENCIL_WRITEMASK, GL_STENCIL_CLEAR_VALUE};
        for (int i = 0; i < kStencilState; ++i) glGetIntegerv(stencilState[i], &stencilState_[i]);
        if (es3_) {
            glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertexArray_);
            glBindVertexArray(0);  // our attribute goes into the default vertex array, not theirs
        }
        glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &attribute0_);
    }
    ~SavedGlState() {
        if (!attribute0_) glDisableVertexAttribArray(0);
        if (es3_) glBindVertexArray(static_cast<GLuint>(vertexArray_));
        auto set = [](GLenum cap, GLboolean on) { on ? glEnable(cap) : glDisable(cap); };
        set(GL_SCISSOR_TEST, scissor_);
        set(GL_BLEND, blend_);
        set(GL_DEPTH_TEST, depth_);
        set(GL_STENCIL_TEST, stencil_);
        const GLint* st = stencilState_;
        glStencilFunc(static_cast<GLenum>(st[0]), st[1], static_cast<GLuint>(st[2]));
        glStencilOp(static_cast<GLenum>(st[3]), static_cast<GLenum>(st[4]), static_cast<GLenum>(st[5]));
        glStencilMask(static_cast<GLuint>(st[6]));
        glClearStencil(st[7]);
        glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
        glColorMask(colorMask_[0], colorMask_[1], colorMask_[2], colorMask_[3]);
        for (int i = 0; i < kUnits; ++i) {
            glActiveTexture(GL_TEXTURE0 + i);
            glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(textures_[i]));
            if (es3_) glBindTexture(GL_TEXTURE_2D_ARRAY, static_cast<GLuint>(arrays_[i]));
        }
        glActiveTexture(static_cast<GLenum>(activeTexture_));
        glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer_));
        glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_));
        glUseProgram(static_cast<GLuint>(program_));
    }
    SavedGlState(const SavedGlState&) = delete;
    SavedGlState& operator=(const SavedGlState&) = delete;

private:
    static constexpr int kUnits = 4;  // the most sampler slots a draw of ours binds
    static constexpr int kStencilState = 8;  // func, ref, value mask, three ops, write mask, clear value
    GLint stencilState_[kStencilState] = {};
    bool es3_;
    GLint program_ = 0, framebuffer_ = 0, arrayBuffer_ = 0, activeTexture_ = GL_TEXTURE0, vertexArray_ = 0;
    GLint textures_[kUnits] = {}, arrays_[kUnits] = {};
    GLint viewport_[4] = {};
    GLboolean colorMask_[4] = {GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    GLint attribute0_ = 0;
    GLboolean scissor_ = GL_FALSE, blend_ = GL_FALSE, depth_ = GL_FALSE, stencil_ = GL_FALSE;
};

} // namespace

int FragmentBackend::borrowedPlane(int width, int height, bool withFbo) {
    Plane p;
    p.width = width;
    p.height = height;
    p.busy = true;  // never handed out by acquire()
    if (withFbo) glGenFramebuffers(1, &p.fbo);
    planes_.push_back(p);
    return static_cast<int>(planes_.size()) - 1;
}

Status FragmentBackend::processTexture(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding) {
    return textureDraws(in, out, encoding, true);
}

Status FragmentBackend::copyTexture(const TextureFrame& in, const TextureTarget& out) {
    return textureDraws(in, out, Encoding{}, false);
}

const FragmentBackend::Draw& FragmentBackend::textureDraw(const std::string& key, const std::function<Draw()>& make) {
    for (const auto& [k, d] : textureDrawCache_)
        if (k == key) return d;
    textureDrawCache_.emplace_back(key, make());
    return textureDrawCache_.back().second;
}

Status FragmentBackend::textureDraws(const TextureFrame& in, const TextureTarget& out, const Encoding& encoding,
                                     bool runChain) {
    using Source = TextureFrame::Source;
    if (ctx_) return Status::error("gles-fragment: processTexture needs a backend made in the caller's context");
    if (steps_.empty() && result_.plane < 0) return Status::error("gles-fragment: processTexture before configure");
    if (in.textureWidth < format_.width || in.textureHeight < format_.height)
        return Status::error("gles-fragment: the input texture (" + std::to_string(in.textureWidth) + "x" +
                             std::to_string(in.textureHeight) + ") is smaller than the frame");
    const int W = format_.width, H = format_.height;
    const SavedGlState saved(info_.major >= 3);
    if (importPlane_ < 0) {
        importPlane_ = newPlane(W, H, false);
        inputPlane_ = borrowedPlane(in.textureWidth, in.textureHeight, false);
        outputPlane_ = borrowedPlane(W, H, true);
    }
    Plane& input = planes_[inputPlane_];
    input.texture = in.texture;
    input.width = in.textureWidth;
    input.height = in.textureHeight;
    Plane& target = planes_[outputPlane_];
    target.texture = out.texture;
    glBindFramebuffer(GL_FRAMEBUFFER, target.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out.texture, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        fail("gles-fragment: the output texture cannot be rendered to (framebuffer incomplete)");

    // 1. The channel (or the BT.601 luma, as lumaOf() rounds it) as 8-bit codes in texel.r of an
    //    RGBA8 plane: what the chain's first passes read from the luma plane (Luma8 and Float
    //    planes both decode texel.r).
    // The two draws are built once per source and input size, and per encoding; a frame only
    // binds the textures (the planes above) and draws.
    const bool bt601 = in.source == Source::Rgb || in.source == Source::Bgr;
    const Draw& import = textureDraw(
        "import " + std::to_string(static_cast<int>(in.source)) + " " + std::to_string(in.textureWidth) + "x" +
            std::to_string(in.textureHeight),
        [&] {
            const bool sixteen = in.source == Source::Gray16;
            FragmentWriter importer(bt601 ? "import BT.601 luma" : sixteen ? "import 16-bit grey" : "import one channel",
                                    !packed_);
            importer.input(0, PlaneFormat{PlaneKind::Luma8, false, 1, true});
            if (sixteen) {
                // round((lo + 256 hi) / 257) = hi + round((lo - hi) / 257): small integers only, so
                // exact at mediump; the rounding by comparisons, not a division.
                importer.line("vec2 b = floor(" + importer.fetchRaw(0, "") + ".rg * 255.0 + 0.5);", 2);
                importer.line("float d = b.x - b.y + 128.0;", 1);
                importer.line("float code = (b.y + (d >= 257.0 ? 1.0 : (d < 0.0 ? -1.0 : 0.0))) / 255.0;", 2);
            } else if (bt601) {
                const char* rgb = in.source == Source::Rgb ? ".rgb" : ".bgr";
                importer.line("vec3 c = floor(" + importer.fetchRaw(0, "") + rgb + " * 255.0 + 0.5);", 2);
                importer.line("float code = floor(dot(c, vec3(19595.0, 38470.0, 7471.0)) / 65536.0 + 0.5) / 255.0;", 4);
            } else {
                const char* channel[] = {".r", ".g", ".b", ".a"};
                importer.line("float code = " + importer.fetchRaw(0, "") + channel[static_cast<int>(in.source)] + ";", 0);
            }
            return makeDraw(importer.finishRaw("vec4(code, 0.0, 0.0, 1.0)"), {Value{inputPlane_, {}}},
                            Value{importPlane_, {}});
        });
    // 3. The result (or, copying, the imported plane) through the encoding, as the cpu encoder:
    //    u = (offset + scale v) 255, 0 below and 255 above the range, else floor(u + 0.5); the
    //    magnitude of a complex result. Into the output's channel alone, or into every channel.
    const bool sixteen = out.bits == 16;
    const Draw& encode = textureDraw(
        std::string(runChain ? "encode " : "copy ") + glslFloat(encoding.offset) + " " + glslFloat(encoding.scale) +
            (sixteen ? " 16" : " 8"),
        [&] {
            const Value result = !runChain             ? Value{importPlane_, PlaneFormat{PlaneKind::Luma8, false, 1, true}}
                                 : redResult_ > 0 ? Value{redResult_, PlaneFormat{}}
                                                  : result_;
            const std::string max = sixteen ? "65535.0" : "255.0";
            FragmentWriter encoder(sixteen ? "encode to 16 bits" : "encode to 8 bits", !packed_);
            encoder.input(0, result.format);
            encoder.uniform("u_encode");
            encoder.line("vec2 v = " + encoder.fetch(0, "") + ";", 0);
            encoder.line(std::string("float u = (u_encode.x + u_encode.y * ") +
                             (runChain && complexOutput_ ? "length(v)" : "v.x") + ") * " + max + ";",
                         3);
            encoder.line("float code = u > 0.0 ? min(floor(u + 0.5), " + max + ") : 0.0;", 3);
            if (sixteen) encoder.line("float hi = floor(code / 256.0);", 2);
            return makeDraw(encoder.finishRaw(sixteen ? "vec4((code - 256.0 * hi) / 255.0, hi / 255.0, 0.0, 1.0)"
                                                      : "vec4(code / 255.0)"),
                            {result}, Value{outputPlane_, {}},
                            {{"u_encode", {static_cast<float>(encoding.offset), static_cast<float>(encoding.scale), 0, 0}}});
        });
    if (!failure_) return failure_;

    beginDraws();
    glDisable(GL_SCISSOR_TEST);
    if (runChain) {
        // 2. The configured passes, with the imported plane standing in for the uploaded luma;
        //    or the input texture itself, where its red channel is the frame's luma texel for
        //    texel (a GRAY8, I420 or NV12 luma plane without padded rows) and reads beyond its
        //    edges clamp (the replicate border): no import draw. Its filters are set to nearest
        //    while the passes run (GstGL's linear filtering gives the same texel-centre values,
        //    but a software renderer samples it several times slower) and put back after.
        GLint wrapS = 0, wrapT = 0, minFilter = 0, magFilter = 0;
        if (in.source == Source::Red && in.textureWidth == W && in.textureHeight == H) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, in.texture);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, &wrapS);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, &wrapT);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, &minFilter);
            glGetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, &magFilter);
        }
        const bool direct = wrapS == GL_CLAMP_TO_EDGE && wrapT == GL_CLAMP_TO_EDGE;
        auto filters = [&](GLint min, GLint mag) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, in.texture);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
        };
        if (direct) filters(GL_NEAREST, GL_NEAREST);
        else run(import);
        const unsigned luma = planes_[luma_].texture;
        planes_[luma_].texture = direct ? in.texture : planes_[importPlane_].texture;
        runSteps();
        planes_[luma_].texture = luma;
        if (direct) filters(minFilter, magFilter);
    } else {
        run(import);
    }
    if (out.channel >= 0) glColorMask(out.channel == 0, out.channel == 1, out.channel == 2, out.channel == 3);
    run(encode);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    input.texture = 0;  // borrowed: releaseGl() must not delete them
    target.texture = 0;
    glBindFramebuffer(GL_FRAMEBUFFER, target.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        return Status::error("gles-fragment: GL error 0x" + std::to_string(e) + " while processing a texture frame");
    return {};
}

} // namespace striate::gles
