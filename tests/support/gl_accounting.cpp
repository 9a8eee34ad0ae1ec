// GL objects and storage counted by interposition (gl_accounting.h). Exported C entry points with
// the GL names; each forwards to the next definition in the symbol search order.
#include "tests/support/gl_accounting.h"

#include <EGL/egl.h>
#include <GLES3/gl31.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <tuple>

namespace {

template <class F>
F real(const char* name) {
    static_assert(sizeof(F) == sizeof(void*));
    void* p = dlsym(RTLD_NEXT, name);
    if (!p) {
        std::fprintf(stderr, "gl_accounting: no %s to forward to\n", name);
        std::abort();
    }
    F f;
    std::memcpy(&f, &p, sizeof f);
    return f;
}

enum Kind { Texture, Framebuffer, Buffer, Renderbuffer, Program, Shader };

/// The bookkeeping's own memory from malloc, not operator new: a test that counts heap
/// allocations (allocation_counter.h) must not count the instrument's.
template <class T>
struct Malloc {
    using value_type = T;
    Malloc() = default;
    template <class U>
    Malloc(const Malloc<U>&) {}
    T* allocate(std::size_t n) {
        if (void* p = std::malloc(n * sizeof(T))) return static_cast<T*>(p);
        std::abort();
    }
    void deallocate(T* p, std::size_t) { std::free(p); }
    template <class U>
    bool operator==(const Malloc<U>&) const { return true; }
};
template <class K, class V>
using Map = std::map<K, V, std::less<K>, Malloc<std::pair<const K, V>>>;

/// Bytes per texel of a sized internal format, or of an unsized one (GLES 2.0: format and type).
std::size_t texelBytes(GLenum internalFormat, GLenum format, GLenum type) {
    switch (internalFormat) {
    case GL_R8: case GL_R8UI: case GL_R8I: case GL_STENCIL_INDEX8: return 1;
    case GL_RG8: case GL_R16F: case GL_R16UI: case GL_R16I: case GL_RGB565: case GL_RGBA4: case GL_RGB5_A1:
    case GL_DEPTH_COMPONENT16: return 2;
    case GL_RGB8: return 3;
    case GL_RGBA8: case GL_SRGB8_ALPHA8: case GL_RG16F: case GL_R32F: case GL_R32UI: case GL_R32I: case GL_RGBA8UI:
    case GL_RGB10_A2: case GL_R11F_G11F_B10F: case GL_DEPTH24_STENCIL8: case GL_DEPTH_COMPONENT24: case GL_RG16UI:
    case GL_DEPTH_COMPONENT32F: return 4;
    case GL_RGBA16F: case GL_RG32F: case GL_RG32UI: case GL_RGBA16UI: case GL_DEPTH32F_STENCIL8: return 8;
    case GL_RGB32F: return 12;
    case GL_RGBA32F: case GL_RGBA32UI: return 16;
    default: break;
    }
    std::size_t components = 0, size = 0;
    switch (format) {
    case GL_RED: case GL_ALPHA: case GL_LUMINANCE: case GL_RED_INTEGER: components = 1; break;
    case GL_RG: case GL_LUMINANCE_ALPHA: case GL_RG_INTEGER: components = 2; break;
    case GL_RGB: components = 3; break;
    case GL_RGBA: case GL_RGBA_INTEGER: components = 4; break;
    default: return 0;
    }
    switch (type) {
    case GL_UNSIGNED_BYTE: case GL_BYTE: size = 1; break;
    case GL_HALF_FLOAT: case 0x8D61 /* GL_HALF_FLOAT_OES */: case GL_UNSIGNED_SHORT: case GL_SHORT: size = 2; break;
    case GL_FLOAT: case GL_UNSIGNED_INT: case GL_INT: size = 4; break;
    default: return 0;
    }
    return components * size;
}

/// What one context's objects hold. Textures are keyed by (name, level).
struct ContextObjects {
    Map<GLenum, Map<GLuint, bool>> names;  // kind -> live names
    Map<std::pair<GLuint, GLint>, std::size_t> textureBytes;
    Map<GLuint, std::size_t> bufferBytes, renderbufferBytes;
    GLenum activeUnit = 0;
    Map<std::pair<GLenum, GLenum>, GLuint> boundTextures;  // (unit, target) -> name
    Map<GLenum, GLuint> boundBuffers;                      // target -> name
    GLuint boundRenderbuffer = 0;
};

struct State {
    std::mutex mutex;
    Map<EGLContext, ContextObjects> contexts;
    striate::testing::GlAccount account;
    std::atomic<bool> active{false};

    ContextObjects& current() { return contexts[eglGetCurrentContext()]; }
    void recount() {
        std::size_t bytes = 0, objects = 0;
        for (const auto& [ctx, c] : contexts) {
            for (const auto& [k, b] : c.textureBytes) bytes += b;
            for (const auto& [k, b] : c.bufferBytes) bytes += b;
            for (const auto& [k, b] : c.renderbufferBytes) bytes += b;
            for (const auto& [kind, live] : c.names) objects += live.size();
        }
        account.liveBytes = bytes;
        account.liveObjects = objects;
        if (bytes > account.peakBytes) account.peakBytes = bytes;
    }
};

State& state() {
    static State* s = new (std::malloc(sizeof(State))) State;  // never destroyed: calls may come during exit
    return *s;
}

void added(Kind kind, GLsizei n, const GLuint* names) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.active = true;
    ContextObjects& c = s.current();
    for (GLsizei i = 0; i < n; ++i) c.names[kind][names[i]] = true;
    s.account.created += n;
    s.recount();
}

void removed(Kind kind, GLsizei n, const GLuint* names) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    ContextObjects& c = s.current();
    for (GLsizei i = 0; i < n; ++i) {
        const GLuint name = names[i];
        if (name == 0) continue;
        c.names[kind].erase(name);
        if (kind == Texture)
            for (auto it = c.textureBytes.begin(); it != c.textureBytes.end();)
                it = it->first.first == name ? c.textureBytes.erase(it) : std::next(it);
        if (kind == Buffer) c.bufferBytes.erase(name);
        if (kind == Renderbuffer) c.renderbufferBytes.erase(name);
    }
    s.recount();
}

void specifyTexture(GLenum target, GLint level, std::size_t bytes, bool known) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    ContextObjects& c = s.current();
    ++s.account.specified;
    if (!known) ++s.account.unknownFormats;
    const GLuint name = c.boundTextures[{c.activeUnit, target}];
    c.textureBytes[{name, level}] = bytes;
    s.recount();
}

void specifyTextureLevels(GLenum target, GLsizei levels, GLenum internalFormat, GLsizei w, GLsizei h, GLsizei d) {
    const std::size_t texel = texelBytes(internalFormat, 0, 0);
    for (GLint level = 0; level < levels; ++level) {
        std::size_t bytes = texel * static_cast<std::size_t>(w) * h * d;
        specifyTexture(target, level, bytes, texel != 0);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
        if (target == GL_TEXTURE_3D) d = d > 1 ? d / 2 : 1;
    }
}

} // namespace

namespace striate::testing {

GlAccount glAccount() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    return s.account;
}

void resetGlPeak() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.account.peakBytes = s.account.liveBytes;
}

bool glAccountingActive() { return state().active; }

} // namespace striate::testing

// The interposed entry points (C linkage, exported).
#define STRIATE_GEN(fn, kind)                                            \
    extern "C" void fn(GLsizei n, GLuint* names) {                       \
        static const auto next = real<void (*)(GLsizei, GLuint*)>(#fn); \
        next(n, names);                                                  \
        added(kind, n, names);                                           \
    }
#define STRIATE_DELETE(fn, kind)                                               \
    extern "C" void fn(GLsizei n, const GLuint* names) {                       \
        static const auto next = real<void (*)(GLsizei, const GLuint*)>(#fn); \
        removed(kind, n, names);                                               \
        next(n, names);                                                        \
    }
STRIATE_GEN(glGenTextures, Texture)
STRIATE_DELETE(glDeleteTextures, Texture)
STRIATE_GEN(glGenFramebuffers, Framebuffer)
STRIATE_DELETE(glDeleteFramebuffers, Framebuffer)
STRIATE_GEN(glGenBuffers, Buffer)
STRIATE_DELETE(glDeleteBuffers, Buffer)
STRIATE_GEN(glGenRenderbuffers, Renderbuffer)
STRIATE_DELETE(glDeleteRenderbuffers, Renderbuffer)

extern "C" GLuint glCreateProgram() {
    static const auto next = real<GLuint (*)()>("glCreateProgram");
    const GLuint p = next();
    added(Program, 1, &p);
    return p;
}
extern "C" void glDeleteProgram(GLuint p) {
    static const auto next = real<void (*)(GLuint)>("glDeleteProgram");
    removed(Program, 1, &p);
    next(p);
}
extern "C" GLuint glCreateShader(GLenum type) {
    static const auto next = real<GLuint (*)(GLenum)>("glCreateShader");
    const GLuint sh = next(type);
    added(Shader, 1, &sh);
    return sh;
}
extern "C" void glDeleteShader(GLuint sh) {
    static const auto next = real<void (*)(GLuint)>("glDeleteShader");
    removed(Shader, 1, &sh);
    next(sh);
}

extern "C" void glActiveTexture(GLenum unit) {
    static const auto next = real<void (*)(GLenum)>("glActiveTexture");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.current().activeUnit = unit;
    }
    next(unit);
}
extern "C" void glBindTexture(GLenum target, GLuint texture) {
    static const auto next = real<void (*)(GLenum, GLuint)>("glBindTexture");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        ContextObjects& c = s.current();
        c.boundTextures[{c.activeUnit, target}] = texture;
    }
    next(target, texture);
}
extern "C" void glBindBuffer(GLenum target, GLuint buffer) {
    static const auto next = real<void (*)(GLenum, GLuint)>("glBindBuffer");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.current().boundBuffers[target] = buffer;
    }
    next(target, buffer);
}
extern "C" void glBindBufferBase(GLenum target, GLuint index, GLuint buffer) {
    static const auto next = real<void (*)(GLenum, GLuint, GLuint)>("glBindBufferBase");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.current().boundBuffers[target] = buffer;  // binds the generic point too
    }
    next(target, index, buffer);
}
extern "C" void glBindBufferRange(GLenum target, GLuint index, GLuint buffer, GLintptr offset, GLsizeiptr size) {
    static const auto next = real<void (*)(GLenum, GLuint, GLuint, GLintptr, GLsizeiptr)>("glBindBufferRange");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.current().boundBuffers[target] = buffer;
    }
    next(target, index, buffer, offset, size);
}
extern "C" void glBindRenderbuffer(GLenum target, GLuint renderbuffer) {
    static const auto next = real<void (*)(GLenum, GLuint)>("glBindRenderbuffer");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.current().boundRenderbuffer = renderbuffer;
    }
    next(target, renderbuffer);
}

extern "C" void glTexImage2D(GLenum target, GLint level, GLint internalFormat, GLsizei w, GLsizei h, GLint border,
                             GLenum format, GLenum type, const void* pixels) {
    static const auto next =
        real<void (*)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void*)>("glTexImage2D");
    next(target, level, internalFormat, w, h, border, format, type, pixels);
    const std::size_t texel = texelBytes(static_cast<GLenum>(internalFormat), format, type);
    // Cube faces share one texture: count them as one texture's levels would not tell them apart.
    specifyTexture(target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X && target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z ? GL_TEXTURE_CUBE_MAP : target,
                   level, texel * static_cast<std::size_t>(w) * h, texel != 0);
}
extern "C" void glTexImage3D(GLenum target, GLint level, GLint internalFormat, GLsizei w, GLsizei h, GLsizei d,
                             GLint border, GLenum format, GLenum type, const void* pixels) {
    static const auto next =
        real<void (*)(GLenum, GLint, GLint, GLsizei, GLsizei, GLsizei, GLint, GLenum, GLenum, const void*)>("glTexImage3D");
    next(target, level, internalFormat, w, h, d, border, format, type, pixels);
    const std::size_t texel = texelBytes(static_cast<GLenum>(internalFormat), format, type);
    specifyTexture(target, level, texel * static_cast<std::size_t>(w) * h * d, texel != 0);
}
extern "C" void glTexStorage2D(GLenum target, GLsizei levels, GLenum internalFormat, GLsizei w, GLsizei h) {
    static const auto next = real<void (*)(GLenum, GLsizei, GLenum, GLsizei, GLsizei)>("glTexStorage2D");
    next(target, levels, internalFormat, w, h);
    specifyTextureLevels(target, levels, internalFormat, w, h, 1);
}
extern "C" void glTexStorage3D(GLenum target, GLsizei levels, GLenum internalFormat, GLsizei w, GLsizei h, GLsizei d) {
    static const auto next = real<void (*)(GLenum, GLsizei, GLenum, GLsizei, GLsizei, GLsizei)>("glTexStorage3D");
    next(target, levels, internalFormat, w, h, d);
    specifyTextureLevels(target, levels, internalFormat, w, h, d);
}
extern "C" void glBufferData(GLenum target, GLsizeiptr size, const void* data, GLenum usage) {
    static const auto next = real<void (*)(GLenum, GLsizeiptr, const void*, GLenum)>("glBufferData");
    next(target, size, data, usage);
    State& s = state();
    std::lock_guard lock(s.mutex);
    ContextObjects& c = s.current();
    ++s.account.specified;
    c.bufferBytes[c.boundBuffers[target]] = static_cast<std::size_t>(size);
    s.recount();
}
extern "C" void glRenderbufferStorage(GLenum target, GLenum internalFormat, GLsizei w, GLsizei h) {
    static const auto next = real<void (*)(GLenum, GLenum, GLsizei, GLsizei)>("glRenderbufferStorage");
    next(target, internalFormat, w, h);
    State& s = state();
    std::lock_guard lock(s.mutex);
    ContextObjects& c = s.current();
    ++s.account.specified;
    const std::size_t texel = texelBytes(internalFormat, 0, 0);
    if (!texel) ++s.account.unknownFormats;
    c.renderbufferBytes[c.boundRenderbuffer] = texel * static_cast<std::size_t>(w) * h;
    s.recount();
}
extern "C" GLint glGetUniformLocation(GLuint program, const GLchar* name) {
    static const auto next = real<GLint (*)(GLuint, const GLchar*)>("glGetUniformLocation");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        ++s.account.uniformLookups;
    }
    return next(program, name);
}

extern "C" EGLBoolean eglDestroyContext(EGLDisplay display, EGLContext context) {
    static const auto next = real<EGLBoolean (*)(EGLDisplay, EGLContext)>("eglDestroyContext");
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        s.contexts.erase(context);
        s.recount();
    }
    return next(display, context);
}

#ifdef STRIATE_GL_ACCOUNTING_REPORT
// The LD_PRELOAD module: at exit, the peak and what was never deleted, to $STRIATE_GL_ACCOUNTING
// (a file) or stderr.
__attribute__((destructor)) static void report() {
    const striate::testing::GlAccount a = striate::testing::glAccount();
    const char* path = std::getenv("STRIATE_GL_ACCOUNTING");
    std::FILE* f = path && *path ? std::fopen(path, "w") : stderr;
    if (!f) return;
    std::fprintf(f, "peak_bytes %zu\nlive_bytes %zu\nlive_objects %zu\ncreated %ld\nspecified %ld\nunknown_formats %ld\n",
                 a.peakBytes, a.liveBytes, a.liveObjects, a.created, a.specified, a.unknownFormats);
    if (f != stderr) std::fclose(f);
}
#endif
