#pragma once

namespace striate::gles {

/// Which pixel-store state the current context has: GLES 3.0 has all of it; GLES 2.0 has only the
/// alignments, plus the unpack row length and skips with EXT_unpack_subimage and the pack ones with
/// NV_pack_subimage. Probed once per context (probePixelStore) and kept in ContextInfo.
struct PixelStoreSupport {
    bool unpackRows = false;    ///< GL_UNPACK_ROW_LENGTH, _SKIP_ROWS, _SKIP_PIXELS
    bool packRows = false;      ///< GL_PACK_ROW_LENGTH, _SKIP_ROWS, _SKIP_PIXELS
    bool pixelBuffers = false;  ///< GL_PIXEL_PACK_BUFFER and GL_PIXEL_UNPACK_BUFFER bindings
};

/// The current context's PixelStoreSupport; `glesMajor` is its version.
PixelStoreSupport probePixelStore(int glesMajor);

/// How a transfer's rows lie in host memory: `rowLength` pixels a row (0: the transfer's width),
/// each row starting on a multiple of `alignment` bytes.
struct HostRows {
    int rowLength = 0;
    int alignment = 4;
};

/// Every transfer between host memory and a texture or framebuffer goes through these. In a
/// context Striate shares (GstGL's), whatever its owner left in the pixel store applies to our
/// transfers too: GstGL 1.26 leaves GL_PACK_ROW_LENGTH at its last download's stride, which made
/// a 25x63 read-back write four times its buffer. So each one sets all of the state it relies on
/// (alignment, row length, no skips, no pixel buffer bound: a pointer is then host memory, not an
/// offset) and puts back what it found. GL names are passed as unsigned (GLenum).
void readPixels(const PixelStoreSupport& support, int x, int y, int width, int height, unsigned format,
                unsigned type, void* pixels, HostRows rows = {});
/// glTexSubImage2D into the texture bound to `target`.
void uploadPixels(const PixelStoreSupport& support, unsigned target, int x, int y, int width, int height,
                  unsigned format, unsigned type, const void* pixels, HostRows rows = {});
/// glTexImage2D (or, with `layers` > 0, glTexImage3D) of uninitialised storage for the texture bound
/// to `target`: no pixel buffer is read from.
void allocateTexture(const PixelStoreSupport& support, unsigned target, unsigned internalFormat, int width,
                     int height, unsigned format, unsigned type, int layers = 0);

} // namespace striate::gles
