// gles-fragment: creation (own context or GstGL's, and what it lets the planner use), configure
// (the plan made real: planes and programs) and process (upload, draws, read-back).
#include "gles/fragment/fragment_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <variant>

#include "gles/fragment/fir_shaders.h"
#include "gles/fragment/glsl.h"
#include "gles/fragment/plan_cost.h"

namespace striate::gles {

Status FragmentBackend::create(const GpuLimits& limits, const FragmentOptions& options, std::unique_ptr<FragmentBackend>* out) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend(limits, options));
    if (Status s = b->createContext(); !s) return s;
    const Current current(*b);
    if (!current.status()) return current.status();
    b->init();
    *out = std::move(b);
    return {};
}

Status FragmentBackend::createInCurrentContext(const GpuLimits& limits, const FragmentOptions& options,
                                              std::unique_ptr<FragmentBackend>* out, std::shared_ptr<ProgramCache> programs) {
    std::unique_ptr<FragmentBackend> b(new FragmentBackend(limits, options));
    if (Status s = b->adoptCurrentContext(std::move(programs)); !s) return s;
    b->init();
    *out = std::move(b);
    return {};
}

namespace {

/// A w x h texture of `internalFormat` attached to a new framebuffer (bound), for probing.
struct ProbeTarget {
    GLuint texture = 0, fbo = 0;
    ProbeTarget(const PixelStoreSupport& pixelStore, GLenum internalFormat, GLenum format, GLenum type) {
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        allocateTexture(pixelStore, GL_TEXTURE_2D, internalFormat, 4, 4, format, type);
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    }
    ~ProbeTarget() {
        glDeleteFramebuffers(1, &fbo);
        glDeleteTextures(1, &texture);
    }
    bool complete() const { return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE; }
};

} // namespace

/// The part of creation that runs with the context current: the vertex buffer, and what the
/// context lets the planner use (each by a real framebuffer, not an extension string).
void FragmentBackend::init() {
    packed_ = caps_.packed = !limits_.floatTargets || info_.major < 3;
    const float triangle[] = {-1.0f, -1.0f, 3.0f, -1.0f, -1.0f, 3.0f};
    static_assert(sizeof triangle == kTriangleBytes);
    glGenBuffers(1, &vertexBuffer_);
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GLint framebuffer = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);  // the caller's, in a shared context
    if (!packed_) {
        // QuadRows planes: four draw buffers (GLES 3.0 guarantees four) and a framebuffer of
        // array layers that the driver calls complete.
        GLint drawBuffers = 0;
        glGetIntegerv(GL_MAX_DRAW_BUFFERS, &drawBuffers);
        if (drawBuffers >= 4) {
            plan_.planes.push_back(Plane{Plane::Storage::Layers, 4, 4});
            makePlane(0);
            caps_.quadRows = static_cast<bool>(status_);
            status_ = {};
            releaseGl();
        }
        // A real float result read back from R32F, where the driver reads it as GL_RED / GL_FLOAT.
        caps_.redReadback = probeRedReadback(info_.pixelStore);
    }
    // The hysteresis's stencil buffer on the class planes: STENCIL_INDEX8 alone (GLES 2.0
    // core), else packed depth and stencil (GLES 3.0 core, OES_packed_depth_stencil on GLES 2.0:
    // what VideoCore IV offers), attached as depth and as stencil; either may not complete a
    // class plane's framebuffer on a given driver, so each is tried.
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    const bool packedDepthStencil =
        info_.major >= 3 || (extensions && std::strstr(extensions, "GL_OES_packed_depth_stencil") != nullptr);
    std::vector<std::pair<GLenum, std::vector<unsigned>>> options{{GL_STENCIL_INDEX8, {GL_STENCIL_ATTACHMENT}}};
    if (packedDepthStencil) options.push_back({GL_DEPTH24_STENCIL8, {GL_DEPTH_ATTACHMENT, GL_STENCIL_ATTACHMENT}});
    for (const auto& [format, attachments] : options) {
        const ProbeTarget classes(info_.pixelStore, GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE);
        GLuint rb = 0;
        glGenRenderbuffers(1, &rb);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        glRenderbufferStorage(GL_RENDERBUFFER, format, 4, 4);
        bool complete = glGetError() == GL_NO_ERROR;
        for (GLenum at : attachments) glFramebufferRenderbuffer(GL_FRAMEBUFFER, at, GL_RENDERBUFFER, rb);
        complete = complete && classes.complete();
        glDeleteRenderbuffers(1, &rb);
        glGetError();  // a format this driver refused is not a failure
        if (complete) {
            caps_.stencil = true;
            stencil_.format = format;
            stencil_.attachments = attachments;
            break;
        }
    }
    glGenFramebuffers(1, &readFbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
}

FragmentBackend::~FragmentBackend() {
    const Current current(*this);
    if (!current.status()) return;  // no context: no objects either
    releaseGl();
    stopListening();
    if (vertexBuffer_) glDeleteBuffers(1, &vertexBuffer_);
    if (readFbo_) glDeleteFramebuffers(1, &readFbo_);
    cache_.reset();
}

std::string overVc4LimitShader() {
    const int n = 48;
    std::ostringstream s;
    s << "#version 100\nprecision highp float;\nuniform sampler2D s0;\nvoid main() {\n    vec2 p = gl_FragCoord.xy / 64.0;\n";
    for (int i = 0; i < n; ++i) s << "    vec4 t" << i << " = texture2D(s0, p);\n    p = p * 0.5 + t" << i << ".xy;\n";
    // Consumed last to first: nothing can be summed before the last fetch, so all stay live.
    s << "    vec4 sum = vec4(0.0);\n";
    for (int i = n - 1; i >= 0; --i) s << "    sum = sum * 0.5 + t" << i << ".x;\n";
    s << "    gl_FragColor = sum;\n}\n";
    return s.str();
}

Status FragmentBackend::configureCurrent(const Chain& chain, const FrameFormat& format) {
    releaseGl();
    chain_ = chain;
    format_ = format;
    status_ = {};
    if (validated_.held && validated_.chain == chain && validated_.format == format) plan_ = std::move(validated_.plan);
    else planner().planChain(chain);
    validated_ = {};
    status_ = plan_.status;
    if (const char* test = std::getenv("STRIATE_GLES_TEST_PASS"); test && std::string_view(test) == "over-vc4-limit" && status_) {
        FragmentPlanner p = planner();
        const PlaneValue scratch{p.newPlane(Plane::Storage::Rgba8, format.width, format.height), {}};
        DrawStep step;
        step.passes.push_back(p.makeDraw(FragmentShader{kOverVc4LimitName, overVc4LimitShader(), {}}, {PlaneValue{plan_.luma, {}}}, scratch));
        plan_.steps.push_back(step);
        plan_.passes.push_back(PassInfo{kOverVc4LimitName, "RGBA8", "1 draw"});
    }
    passes_ = plan_.passes;
    stepRuns_.assign(plan_.steps.size(), 0);
    for (std::size_t i = 0; i < plan_.planes.size() && status_; ++i) makePlane(static_cast<int>(i));
    for (DrawStep& step : plan_.steps)
        for (Draw& d : step.passes) compile(d);
    const int W = format.width, H = format.height;
    // Host planes for the read-back where the result is not read straight into real_ as R32F
    // (nor given by the flood).
    const bool readsBack = plan_.floodResult < 0;
    // A RowPair result (FragmentPlan::pairedResult): ceil(H / 2) rows of texels.
    readback8_.resize(packed_ && readsBack ? static_cast<std::size_t>(4) * W * (plan_.pairedResult >= 0 ? (H + 1) / 2 : H) : 0);
    columns_.resize(plan_.pairedResult >= 0 ? W : 0);
    for (int x = 0; x < static_cast<int>(columns_.size()); ++x) columns_[x] = plan_.pairedPhases ? phaseColumn(W, x) : x;
    // A QuadRows result is read a layer (a quarter of the rows) at a time.
    std::size_t texels = static_cast<std::size_t>(W) * H;
    if (status_ && plan_.result.format.kind == PlaneKind::QuadRows)
        texels = static_cast<std::size_t>(plan_.planes[plan_.result.plane].width) * plan_.planes[plan_.result.plane].height;
    readbackF_.resize(packed_ || plan_.redResult > 0 || !readsBack ? 0 : 4 * texels);
    // The cpu flood's host planes: the classes' read-back, where a texel holds one class a byte
    // a pixel gathered from it, and the flood's queue (new[]: only the entries a flood writes
    // become resident, as the cpu backend's).
    classesBefore_.clear();
    classesAfter_.clear();
    floodQueue_.reset();
    for (const DrawStep& step : plan_.steps)
        if (step.cpuFloodBytesPerPixel > 0) {
            classesBefore_.resize(static_cast<std::size_t>(4) * step.watchedWidth * H);
            classesAfter_.resize(step.cpuFloodBytesPerPixel > 1 ? static_cast<std::size_t>(W) * H : 0);
            floodQueue_.reset(new std::int32_t[static_cast<std::size_t>(W + 1) * H]);
        }
    resetOutputs(plan_.complexOutput, false);
    status_ = glStatus("while configuring");
    return status_;
}

Status FragmentBackend::processCurrent(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    const int W = format_.width, H = format_.height;
    glBindTexture(GL_TEXTURE_2D, plan_.planes[plan_.luma].texture);
    if (packed_) {
        // GLES 2.0 has no unpack row length: strided rows are copied tight first.
        const std::uint8_t* pixels = luma.data;
        if (luma.stride != W) {
            lumaUpload_.resize(static_cast<std::size_t>(W) * H);
            for (int y = 0; y < H; ++y) std::memcpy(&lumaUpload_[static_cast<std::size_t>(y) * W], luma.row(y), W);
            pixels = lumaUpload_.data();
        }
        uploadPixels(info_.pixelStore, GL_TEXTURE_2D, 0, 0, W, H, GL_LUMINANCE, GL_UNSIGNED_BYTE, pixels, HostRows{0, 1});
    } else {
        uploadPixels(info_.pixelStore, GL_TEXTURE_2D, 0, 0, W, H, GL_RED, GL_UNSIGNED_BYTE, luma.data,
                     HostRows{static_cast<int>(luma.stride), 1});
    }

    beginDraws();
    runSteps(true);
    // The result: decoded on the host exactly as the shaders decode.
    if (plan_.floodResult >= 0) {
        *out = output(false);
        return glStatus("while processing a frame");
    }
    if (plan_.redResult > 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, plan_.planes[plan_.redResult].fbo);
        readPixels(info_.pixelStore, 0, 0, W, H, GL_RED, GL_FLOAT, real_.data(),
                   HostRows{static_cast<int>(real_.stride()), 4});
        *out = output(false);
        return glStatus("while processing a frame");
    }
    const PlaneFormat& rf = plan_.result.format;
    if (plan_.pairedResult >= 0) {
        // Row y's code in texel (x, y / 2): bytes 0 and 1 where y is even, 2 and 3 where odd;
        // column x in phase order where the horizontal passes ran by phase (phaseColumn).
        glBindFramebuffer(GL_FRAMEBUFFER, plan_.planes[plan_.pairedRows].fbo);
        readPixels(info_.pixelStore, 0, 0, W, (H + 1) / 2, GL_RGBA, GL_UNSIGNED_BYTE, readback8_.data());
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const std::size_t i = 4 * (static_cast<std::size_t>(y / 2) * W + columns_[x]) + 2 * (y % 2);
                real_.at(x, y) = static_cast<float>(decodePacked(readback8_[i], readback8_[i + 1], rf));
            }
        *out = output(false);
        return glStatus("while processing a frame");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, plan_.planes[plan_.result.plane].fbo);
    if (rf.kind == PlaneKind::QuadRows) {
        // Row y is texel row y / 4 of layer y % 4, its pixels in order (and up to three past the
        // last).
        const Plane& p = plan_.planes[plan_.result.plane];
        glBindFramebuffer(GL_FRAMEBUFFER, readFbo_);
        for (int j = 0; j < 4; ++j) {
            glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, p.texture, 0, j);
            readPixels(info_.pixelStore, 0, 0, p.width, p.height, GL_RGBA, GL_FLOAT, readbackF_.data());
            for (int t = 0; t < p.height; ++t)
                if (const int y = 4 * t + j; y < H)
                    std::copy_n(&readbackF_[static_cast<std::size_t>(t) * 4 * p.width], W, real_.row(y));
        }
        *out = output(false);
        return glStatus("while processing a frame");
    }
    if (packed_) readPixels(info_.pixelStore, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, readback8_.data());
    else readPixels(info_.pixelStore, 0, 0, W, H, GL_RGBA, GL_FLOAT, readbackF_.data());
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
            if (plan_.complexOutput) complex_.at(x, y) = Complex32(re, im);
            else real_.at(x, y) = re;
        }
    *out = output(plan_.complexOutput);
    return glStatus("while processing a frame");
}

FragmentBackend::FrameCount FragmentBackend::lastFrame() const {
    FrameCount c;
    c.fragments.assign(plan_.shaders.size(), 0);
    c.floodUploaded = floodUploaded_;
    for (std::size_t k = 0; k < plan_.steps.size() && k < stepRuns_.size(); ++k) {
        const auto n = static_cast<std::size_t>(stepRuns_[k]);
        if (plan_.steps[k].repeatUntilStable) c.rounds += stepRuns_[k];
        if (plan_.steps[k].cpuFloodBytesPerPixel > 0) {
            c.flooded += n * 4 * static_cast<std::size_t>(plan_.steps[k].watchedWidth) * format_.height;
        }
        c.draws += n * plan_.steps[k].passes.size();
        for (const Draw& d : plan_.steps[k].passes) {
            c.bytes += n * plan_.drawBytes(d);
            c.tileLoads += n * plan_.tileLoadBytes(d);
            if (d.shader >= 0) c.fragments[d.shader] += n * static_cast<std::size_t>(plan_.fragments(d));
        }
    }
    return c;
}

std::string FragmentBackend::explainFrame() const {
    const FrameCount c = lastFrame();
    std::string s = boardEstimate();
    if (c.draws == 0) return s;
    s += "the last frame's fragments per program (its draws' scissors, every round counted):\n";
    for (std::size_t i = 0; i < c.fragments.size(); ++i) s += "  " + plan_.shaders[i].name + ": " + std::to_string(c.fragments[i]) + "\n";
    return s;
}

std::string FragmentBackend::boardEstimate() const {
    if (limits_.speed.qpus <= 0 || !plan_.status) return {};
    const PlanEstimate e = estimatePlan(plan_, limits_.speed);
    char head[160];
    std::snprintf(head, sizeof head, "the board's estimate of a frame (not a measurement; docs/boards.md): %.3f ms in %d draws, per pass:\n",
                  e.seconds * 1e3, e.draws);
    return plan_.formsChosen + "\n" + head + describeEstimate(e, "  ~ ");
}

std::string FragmentBackend::explainDetails() const {
    const FrameCount c = lastFrame();
    return std::string(", ") + (packed_ ? "packed RGBA8" : "float") + " intermediates, " + std::to_string(plan_.passes.size()) +
           " passes per frame, read back as " + readbackFormat() + ", " + describeBytes(memory().gpu) + " of GPU memory in " +
           std::to_string(plan_.planes.size()) + " planes" +
           (c.draws == 0 ? std::string()
                         : "; the last frame ran " + std::to_string(c.draws) + " draws moving at least " + std::to_string(c.bytes) +
                               " bytes and loading " + std::to_string(c.tileLoads) + " in tiles" +
                               (c.rounds > 0 ? ", " + std::to_string(c.rounds) + " rounds of the step that repeats until stable"
                                             : std::string()) +
                               (c.flooded > 0 ? ", and the hysteresis's cpu flood read back " + std::to_string(c.flooded) +
                                                    " bytes and uploaded " + std::to_string(c.floodUploaded) +
                                                    " between its draws (it marked " + std::to_string(floodMarked_) + " pixels)"
                                              : std::string())) +
           explainTransfers(static_cast<std::size_t>(format_.width) * format_.height, resultBytes());
}

std::size_t FragmentBackend::resultBytes() const {
    if (plan_.floodResult >= 0) return 0;  // the flood's read-back gives the result
    if (packed_) return readback8_.size();
    if (plan_.redResult > 0) return sizeof(float) * format_.width * format_.height;
    return sizeof(float) * readbackF_.size();
}

} // namespace striate::gles
