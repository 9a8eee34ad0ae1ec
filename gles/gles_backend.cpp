#include "gles/gles_backend.h"

#include <GLES3/gl3.h>

#include <algorithm>
#include <cstdio>
#include <variant>

namespace striate::gles {

bool probeRedReadback(const PixelStoreSupport& pixelStore) {
    GLint framebuffer = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);  // the caller's, in a shared context
    GLuint texture = 0, fbo = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    allocateTexture(pixelStore, GL_TEXTURE_2D, GL_R32F, 4, 4, GL_RED, GL_FLOAT);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    GLint readFormat = 0, readType = 0;
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
        glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_FORMAT, &readFormat);
        glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_TYPE, &readType);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &texture);
    glGetError();  // a format this driver refused is an answer, not a failure
    return readFormat == GL_RED && readType == GL_FLOAT;
}

const char* glErrorName(unsigned error) {
    switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "a GL error";
    }
}

Status validateGpuFrame(const Chain& chain, const FrameFormat& format, int maxTextureSize, const char* whose,
                        const char* backend) {
    if (Status s = chain.validate(); !s) return s;
    if (format.width > maxTextureSize || format.height > maxTextureSize)
        return Status::error("frame " + std::to_string(format.width) + "x" + std::to_string(format.height) + " exceeds " +
                             whose + " maximum texture size " + std::to_string(maxTextureSize) + " (" + backend +
                             " does not tile)");
    const bool hysteresis = std::any_of(chain.stages.begin(), chain.stages.end(), [](const Stage& stage) {
        return std::visit(Overloaded{[](const EdgeSpec& e) { return e.tracesEdges(); }, [](const auto&) { return false; }},
                          stage);
    });
    if (hysteresis && static_cast<long long>(format.width) * format.height > kMaxGpuHysteresisPixels)
        return Status::error("frame " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                             " is beyond the " + std::to_string(kMaxGpuHysteresisPixels) + " pixels (3840x2160) whose edge "
                             "map " + backend + " computes (its hysteresis grows with the frame)");
    return validateFrameFormat(format);
}

GlesBackend::Current::Current(const GlesBackend& b) : c_(b.ctx_.get()) {
    if (c_) status_ = c_->makeCurrent();
    else if (!b.shared_) status_ = Status::error(std::string(b.name()) + " has no GLES context");
}

GlesBackend::Current::~Current() {
    if (c_ && status_) c_->release();
}

Status GlesBackend::createContext() {
    if (Status s = EglContext::create(&ctx_); !s) return s;
    info_ = ctx_->info();
    const Current current(*this);
    if (!current.status()) return current.status();
    info_.pixelStore = probePixelStore(info_.major);
    cache_ = std::make_shared<ProgramCache>(info_.major, info_.minor);
    driverLog_.install();
    return {};
}

Status GlesBackend::adoptCurrentContext(std::shared_ptr<ProgramCache> programs) {
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    if (!version) return Status::error(std::string(name()) + ": no GLES context is current on this thread");
    if (std::sscanf(version, "OpenGL ES %d.%d", &info_.major, &info_.minor) != 2)
        return Status::error(std::string(name()) + " needs an OpenGL ES context; the current one is '" + version + "'");
    info_.platform = "shared";
    info_.pixelStore = probePixelStore(info_.major);
    shared_ = true;
    if (programs && (programs->glesMajor() != info_.major || programs->glesMinor() != info_.minor))
        return Status::error(std::string(name()) + ": the program cache given is for GLES " + std::to_string(programs->glesMajor()) +
                             "." + std::to_string(programs->glesMinor()) + ", the current context is GLES " +
                             std::to_string(info_.major) + "." + std::to_string(info_.minor));
    cache_ = programs ? std::move(programs) : std::make_shared<ProgramCache>(info_.major, info_.minor);
    // GstGL keeps a debug callback of its own there: ours goes in front of it and hands it on.
    driverLog_.install(true);
    return {};
}

Status GlesBackend::validate(const Chain& chain, const FrameFormat& format) const {
    if (Status s = validateGpuFrame(chain, format, maxTextureSize_, whose_, name()); !s) return s;
    if (memoryBytes_ == 0) return {};
    if (const std::size_t need = plannedGpuBytes(chain, format); need > memoryBytes_)
        return Status::error(std::string(name()) + " needs " + describeBytes(need) + " of GPU memory for " +
                             std::to_string(format.width) + "x" + std::to_string(format.height) + " frames of '" +
                             formatChain(chain) + "', more than the " + describeBytes(memoryBytes_) + " the board lends it");
    return {};
}

Status GlesBackend::configure(const Chain& chain, const FrameFormat& format) {
    if (Status s = validate(chain, format); !s) return s;
    const Current current(*this);
    if (!current.status()) return current.status();
    return configureCurrent(chain, format);
}

Status GlesBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    return frame(luma, [&] { return processCurrent(luma, out); });
}

Status GlesBackend::process8(ImageView<const std::uint8_t> luma, const Output8& out) {
    return frame(luma, [&] { return process8Current(luma, out); });
}

Status GlesBackend::process8Current(ImageView<const std::uint8_t> luma, const Output8& out) {
    ChainOutput r;
    if (Status s = processCurrent(luma, &r); !s) return s;
    writeCodes(r, out);
    return {};
}

Status GlesBackend::heardVerdict() {
    if (unheardVerdict_) {  // programs ran for the first time: did the driver compile them?
        unheardVerdict_ = false;
        driverVerdict_ = driverLog_.verdict(name());
    }
    return driverVerdict_;
}

std::string GlesBackend::explainDetails() const { return ", " + std::to_string(passes_.size()) + " passes per frame"; }

std::string GlesBackend::explainTransfers(std::size_t uploaded, std::size_t readBack) {
    return "; a frame in system memory uploads " + std::to_string(uploaded) + " bytes and reads back " + std::to_string(readBack);
}

std::string GlesBackend::explain() const {
    std::string s = "gles: " + std::to_string(info_.major) + "." + std::to_string(info_.minor) + " context on the " +
                    info_.platform + " display" + explainDetails() + "\n";
    for (const PassInfo& p : passes_) s += "  " + p.name + " -> " + p.format + ", " + p.grid + "\n";
    s += explainFrame();
    if (!driverLog_.reports().empty()) s += "the driver's compiler, per program at its first use:\n" + driverLog_.describe();
    else if (!driverLog_.installed()) s += "the driver's compiler: not heard (no KHR_debug in this context)\n";
    return s;
}

void GlesBackend::fail(const std::string& message) {
    if (status_) status_ = Status::error(message);
}

Status GlesBackend::glStatus(const char* during) const {
    if (!status_) return status_;
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        return Status::error(std::string(name()) + ": " + glErrorName(e) + " " + during);
    return {};
}

namespace {
/// Rows per upload of uploadUnitValues().
constexpr int kUploadRows = 32;
} // namespace

void GlesBackend::resetOutputs(bool complex, bool unitBand) {
    real_.reset(format_.width, format_.height);
    if (complex) complex_.reset(format_.width, format_.height);
    unitBand_.assign(unitBand ? static_cast<std::size_t>(format_.width) * std::min(kUploadRows, format_.height) : 0, 0.0f);
}

void GlesBackend::uploadUnitValues(ImageView<const std::uint8_t> luma) {
    const std::array<float, 256>& unit = unitValues();
    const int W = luma.width, H = luma.height;
    for (int y0 = 0; y0 < H; y0 += kUploadRows) {
        const int rows = std::min(kUploadRows, H - y0);
        for (int y = 0; y < rows; ++y) {
            const std::uint8_t* in = luma.row(y0 + y);
            float* out = &unitBand_[static_cast<std::size_t>(y) * W];
            for (int x = 0; x < W; ++x) out[x] = unit[in[x]];
        }
        uploadPixels(info_.pixelStore, GL_TEXTURE_2D, 0, y0, W, rows, GL_RED, GL_FLOAT, unitBand_.data());
    }
}

std::size_t GlesBackend::hostBytes() const {
    return sizeof(float) * (real_.stride() * real_.height() + unitBand_.size()) +
           sizeof(Complex32) * complex_.stride() * complex_.height();
}

ChainOutput GlesBackend::output(bool complex) {
    ChainOutput out;
    if (complex) {
        for (int y = 0; y < format_.height; ++y)
            for (int x = 0; x < format_.width; ++x) real_.at(x, y) = std::abs(complex_.at(x, y));
        out.complex = true;
        out.complexPlane = complex_.view();
    }
    out.real = real_.view();
    return out;
}

} // namespace striate::gles
