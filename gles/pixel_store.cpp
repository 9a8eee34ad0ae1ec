#include "gles/pixel_store.h"

#include <GLES3/gl3.h>

#include <cstring>

namespace striate::gles {

PixelStoreSupport probePixelStore(int glesMajor) {
    if (glesMajor >= 3) return {true, true, true};
    const char* all = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    auto has = [all](const char* name) {  // a whole name in the space-separated list
        const std::size_t n = std::strlen(name);
        for (const char* p = all; p && (p = std::strstr(p, name)) != nullptr; p += n)
            if ((p == all || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
        return false;
    };
    return {has("GL_EXT_unpack_subimage"), has("GL_NV_pack_subimage"), false};
}

namespace {

/// The pixel-store state one transfer relies on, set for the object's lifetime; what the context
/// held before is put back after (only what was changed is written, twice).
class PixelStoreScope {
public:
    PixelStoreScope(const PixelStoreSupport& support, bool pack, HostRows rows) {
        set(pack ? GL_PACK_ALIGNMENT : GL_UNPACK_ALIGNMENT, rows.alignment);
        if (pack ? support.packRows : support.unpackRows) {
            set(pack ? GL_PACK_ROW_LENGTH : GL_UNPACK_ROW_LENGTH, rows.rowLength);
            set(pack ? GL_PACK_SKIP_ROWS : GL_UNPACK_SKIP_ROWS, 0);
            set(pack ? GL_PACK_SKIP_PIXELS : GL_UNPACK_SKIP_PIXELS, 0);
        }
        if (support.pixelBuffers) {
            buffer_ = pack ? GL_PIXEL_PACK_BUFFER : GL_PIXEL_UNPACK_BUFFER;
            glGetIntegerv(pack ? GL_PIXEL_PACK_BUFFER_BINDING : GL_PIXEL_UNPACK_BUFFER_BINDING, &boundBuffer_);
            if (boundBuffer_ != 0) glBindBuffer(buffer_, 0);
        }
    }
    ~PixelStoreScope() {
        for (int i = 0; i < count_; ++i) glPixelStorei(saved_[i].name, saved_[i].value);
        if (boundBuffer_ != 0) glBindBuffer(buffer_, static_cast<GLuint>(boundBuffer_));
    }
    PixelStoreScope(const PixelStoreScope&) = delete;
    PixelStoreScope& operator=(const PixelStoreScope&) = delete;

private:
    void set(GLenum name, GLint value) {
        GLint found = 0;
        glGetIntegerv(name, &found);
        if (found == value) return;
        glPixelStorei(name, value);
        saved_[count_++] = {name, found};
    }
    struct Saved {
        GLenum name;
        GLint value;
    };
    Saved saved_[4] = {};
    int count_ = 0;
    GLenum buffer_ = 0;
    GLint boundBuffer_ = 0;
};

} // namespace

void readPixels(const PixelStoreSupport& support, int x, int y, int width, int height, unsigned format, unsigned type,
                void* pixels, HostRows rows) {
    const PixelStoreScope scope(support, true, rows);
    glReadPixels(x, y, width, height, format, type, pixels);
}

void uploadPixels(const PixelStoreSupport& support, unsigned target, int x, int y, int width, int height,
                  unsigned format, unsigned type, const void* pixels, HostRows rows) {
    const PixelStoreScope scope(support, false, rows);
    glTexSubImage2D(target, 0, x, y, width, height, format, type, pixels);
}

void allocateTexture(const PixelStoreSupport& support, unsigned target, unsigned internalFormat, int width, int height,
                     unsigned format, unsigned type, int layers) {
    const PixelStoreScope scope(support, false, HostRows{});
    const auto internal = static_cast<GLint>(internalFormat);
    if (layers > 0) glTexImage3D(target, 0, internal, width, height, layers, 0, format, type, nullptr);
    else glTexImage2D(target, 0, internal, width, height, 0, format, type, nullptr);
}

} // namespace striate::gles
