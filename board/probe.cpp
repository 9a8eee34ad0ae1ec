#include "board/probe.h"

#include <GLES3/gl31.h>

#include <fstream>
#include <sstream>

#include "cpu/neon/kernels.h"
#include "gles/egl_context.h"

namespace striate {
namespace {

/// Renderable iff a texture of the format completes a framebuffer (extension strings lie).
bool renderable(GLenum internalFormat) {
    GLuint tex = 0, fbo = 0;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, internalFormat, 4, 4);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    const bool ok = glGetError() == GL_NO_ERROR && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    while (glGetError() != GL_NO_ERROR) {
    }
    return ok;
}

std::string text(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s ? s : "";
}

} // namespace

std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out + "\"";
}

Probe probeMachine() {
    Probe p;
    std::ifstream model("/proc/device-tree/model");
    if (model) std::getline(model, p.model, '\0');
    p.cpuSimd = cpu::simdPath();

    std::unique_ptr<gles::EglContext> ctx;
    if (Status s = gles::EglContext::create(&ctx); !s) {
        p.gpuError = s.message();
        return p;
    }
    if (Status s = ctx->makeCurrent(); !s) {
        p.gpuError = s.message();
        return p;
    }
    p.gpu = true;
    p.platform = ctx->info().platform;
    p.glesMajor = ctx->info().major;
    p.glesMinor = ctx->info().minor;
    p.version = text(GL_VERSION);
    p.renderer = text(GL_RENDERER);
    p.vendor = text(GL_VENDOR);
    p.glsl = text(GL_SHADING_LANGUAGE_VERSION);
    for (const char* name : {"llvmpipe", "softpipe", "swrast"})
        if (p.renderer.find(name) != std::string::npos) p.softwareRenderer = true;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &p.maxTextureSize);
    if (p.glesMajor > 3 || (p.glesMajor == 3 && p.glesMinor >= 1)) {
        p.compute = true;
        glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &p.computeInvocations);
        glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &p.computeSharedBytes);
    }
    if (p.glesMajor >= 3) {
        const std::pair<GLenum, const char*> formats[] = {{GL_R16F, "R16F"},   {GL_RG16F, "RG16F"},
                                                          {GL_RGBA16F, "RGBA16F"}, {GL_R32F, "R32F"},
                                                          {GL_RG32F, "RG32F"}, {GL_RGBA32F, "RGBA32F"}};
        for (const auto& [f, name] : formats)
            if (renderable(f)) p.floatRenderable.push_back(name);
        p.floatTargets = renderable(GL_R32F);
    }
    GLint range[2] = {0, 0};
    glGetShaderPrecisionFormat(GL_FRAGMENT_SHADER, GL_HIGH_FLOAT, range, &p.fragmentHighpPrecision);
    glGetShaderPrecisionFormat(GL_FRAGMENT_SHADER, GL_MEDIUM_FLOAT, range, &p.fragmentMediumpPrecision);
    ctx->release();
    return p;
}

std::string formatProbe(const Probe& p) {
    std::ostringstream s;
    s << "board: " << (p.model.empty() ? "(no device-tree model)" : p.model) << "\n";
    s << "cpu: " << p.cpuSimd << "\n";
    if (!p.gpu) {
        s << "gles: unavailable: " << p.gpuError << "\n";
        return s.str();
    }
    s << "gles: " << p.glesMajor << "." << p.glesMinor << " context on the " << p.platform << " display\n"
      << "  version: " << p.version << "\n  renderer: " << p.renderer << " (" << p.vendor << ")"
      << (p.softwareRenderer ? ", a software renderer: it runs on the CPU" : "") << "\n"
      << "  glsl: " << p.glsl << "\n  max texture size: " << p.maxTextureSize << "\n"
      << "  compute: ";
    if (p.compute)
        s << "yes, " << p.computeInvocations << " invocations, " << p.computeSharedBytes / 1024
          << " KiB shared memory\n";
    else
        s << "no\n";
    s << "  float render targets:";
    for (const auto& f : p.floatRenderable) s << " " << f;
    if (p.floatRenderable.empty()) s << " none";
    s << "\n  fragment float precision: highp " << p.fragmentHighpPrecision << " bits, mediump "
      << p.fragmentMediumpPrecision << " bits\n";
    return s.str();
}

std::string formatProbeJson(const Probe& p) {
    std::ostringstream s;
    s << "{\"board\": " << jsonString(p.model) << ", \"cpu\": " << jsonString(p.cpuSimd) << ", \"gles\": ";
    if (!p.gpu) {
        s << "null, \"gles_error\": " << jsonString(p.gpuError) << "}";
        return s.str();
    }
    s << "{\"platform\": " << jsonString(p.platform) << ", \"major\": " << p.glesMajor << ", \"minor\": " << p.glesMinor
      << ", \"version\": " << jsonString(p.version) << ", \"renderer\": " << jsonString(p.renderer)
      << ", \"vendor\": " << jsonString(p.vendor)
      << ", \"software_renderer\": " << (p.softwareRenderer ? "true" : "false") << ", \"glsl\": " << jsonString(p.glsl)
      << ", \"max_texture_size\": " << p.maxTextureSize << ", \"compute\": " << (p.compute ? "true" : "false")
      << ", \"max_compute_invocations\": " << p.computeInvocations
      << ", \"max_compute_shared_memory\": " << p.computeSharedBytes << ", \"float_renderable\": [";
    for (std::size_t i = 0; i < p.floatRenderable.size(); ++i) s << (i ? ", " : "") << jsonString(p.floatRenderable[i]);
    s << "], \"fragment_highp_bits\": " << p.fragmentHighpPrecision
      << ", \"fragment_mediump_bits\": " << p.fragmentMediumpPrecision << "}}";
    return s.str();
}

} // namespace striate
