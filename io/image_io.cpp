#include "io/image_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include "core/backend.h"

namespace striate::io {
namespace {

using Bytes = std::vector<unsigned char>;

/// The size check every reader makes from the header, before allocating: writes the problem into
/// `message` and returns false when the image is empty, wider or taller than kMaxDimension, or
/// beyond `maxPixels`.
bool sizeAllowed(long long width, long long height, std::int64_t maxPixels, char* message, std::size_t size) {
    if (width < 1 || height < 1 || width > kMaxDimension || height > kMaxDimension) {
        std::snprintf(message, size, "the image is %lldx%lld, outside 1..%d pixels per side", width, height,
                      kMaxDimension);
        return false;
    }
    if (width * height > maxPixels) {
        std::snprintf(message, size, "the image is %lldx%lld = %lld pixels, beyond the limit of %lld (--max-pixels)",
                      width, height, width * height, static_cast<long long>(maxPixels));
        return false;
    }
    return true;
}

Status checkSize(const std::string& path, long long width, long long height, std::int64_t maxPixels) {
    char message[160];
    if (sizeAllowed(width, height, maxPixels, message, sizeof message)) return {};
    return Status::error("'" + path + "': " + message);
}

/// A sample of `maxval` levels as 8 bits, rounded: the one scaling of 16-bit PNG and of PGM/PPM.
unsigned char scaleTo8(long v, long maxval) {
    return static_cast<unsigned char>((std::min(v, maxval) * 255 + maxval / 2) / maxval);
}

/// Fills `out` from interleaved 8-bit samples with 1 (grey) or 3 (RGB) channels.
void toLuma(const unsigned char* data, int width, int height, int channels, Image<std::uint8_t>* out) {
    out->reset(width, height);
    for (int y = 0; y < height; ++y) {
        const unsigned char* p = data + std::size_t(y) * width * channels;
        std::uint8_t* o = out->row(y);
        for (int x = 0; x < width; ++x, p += channels) o[x] = channels == 1 ? p[0] : lumaOf(p[0], p[1], p[2]);
    }
}

/// libpng's low-level reader (the simplified API converts colour spaces and applies gAMA, so the
/// values read would not be the values stored).
struct PngRead {
    const Bytes* bytes;
    std::size_t pos;
    std::jmp_buf jump;
    char message[160];
};

void pngError(png_structp png, png_const_charp text) {
    auto* r = static_cast<PngRead*>(png_get_error_ptr(png));
    std::snprintf(r->message, sizeof r->message, "%s", text);
    std::longjmp(r->jump, 1);
}

void pngWarning(png_structp, png_const_charp) {}  // ancillary-chunk complaints: the pixels are fine

void pngReadBytes(png_structp png, png_bytep out, std::size_t n) {
    auto* r = static_cast<PngRead*>(png_get_io_ptr(png));
    if (n > r->bytes->size() - r->pos) png_error(png, "the file is truncated");
    std::memcpy(out, r->bytes->data() + r->pos, n);
    r->pos += n;
}

/// Decodes into `samples` (8 or 16-bit big-endian, 1 or 3 channels: palette expanded, alpha
/// stripped, no gamma). libpng reports errors by longjmp: only trivially destructible locals live
/// here, and the caller owns the buffer.
bool decodePng(PngRead* r, std::int64_t maxPixels, Bytes* samples, int* width, int* height, int* channels, int* depth) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, pngError, pngWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        std::snprintf(r->message, sizeof r->message, "out of memory");
        png_destroy_read_struct(&png, nullptr, nullptr);
        return false;
    }
    if (setjmp(r->jump)) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    png_set_read_fn(png, r, pngReadBytes);
    png_read_info(png, info);
    const long long w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (!sizeAllowed(w, h, maxPixels, r->message, sizeof r->message)) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    const int colorType = png_get_color_type(png, info);
    if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (colorType == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (colorType & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
    const int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *width = static_cast<int>(w);
    *height = static_cast<int>(h);
    *channels = png_get_channels(png, info);
    *depth = png_get_bit_depth(png, info);
    const std::size_t rowBytes = png_get_rowbytes(png, info);
    try {
        samples->resize(rowBytes * *height);
    } catch (const std::bad_alloc&) {
        std::snprintf(r->message, sizeof r->message, "out of memory for its %dx%d pixels", *width, *height);
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    for (int pass = 0; pass < passes; ++pass)
        for (int y = 0; y < *height; ++y) png_read_row(png, samples->data() + rowBytes * y, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

Status readPng(const std::string& path, const Bytes& bytes, std::int64_t maxPixels, Image<std::uint8_t>* out) {
    PngRead r{&bytes, 0, {}, {}};
    Bytes samples;
    int width = 0, height = 0, channels = 0, depth = 0;
    if (!decodePng(&r, maxPixels, &samples, &width, &height, &channels, &depth))
        return Status::error("'" + path + "' is not a readable PNG: " + r.message);
    if (depth == 16) {  // big-endian pairs to 8 bits, in place
        const std::size_t count = samples.size() / 2;
        for (std::size_t i = 0; i < count; ++i) samples[i] = scaleTo8((samples[2 * i] << 8) | samples[2 * i + 1], 65535);
    }
    toLuma(samples.data(), width, height, channels, out);
    return {};
}

struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

/// libjpeg prints warnings ("Premature end of JPEG file") to stderr and carries on with grey
/// filler; striate keeps stderr to one line and refuses the damaged image instead.
void jpegOutputMessage(j_common_ptr) {}

void jpegErrorExit(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

/// libjpeg reports errors by longjmp: this function keeps only trivially destructible locals
/// between setjmp and the decoder calls, and the caller owns the output buffer.
bool decodeJpeg(const Bytes& bytes, std::int64_t maxPixels, Bytes* pixels, int* width, int* height, int* channels,
                JpegError* err) {
    jpeg_decompress_struct cinfo;
    cinfo.err = jpeg_std_error(&err->mgr);
    err->mgr.error_exit = jpegErrorExit;
    err->mgr.output_message = jpegOutputMessage;
    if (setjmp(err->jump)) {
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes.data(), bytes.size());
    jpeg_read_header(&cinfo, TRUE);
    // Before jpeg_start_decompress: a progressive image's coefficients are allocated there, for
    // the whole frame the header claims.
    if (!sizeAllowed(cinfo.image_width, cinfo.image_height, maxPixels, err->message, sizeof err->message)) {
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    *width = static_cast<int>(cinfo.output_width);
    *height = static_cast<int>(cinfo.output_height);
    *channels = cinfo.output_components;
    pixels->resize(std::size_t(*width) * *height * *channels);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels->data() + std::size_t(cinfo.output_scanline) * *width * *channels;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    const bool damaged = err->mgr.num_warnings > 0;
    if (damaged) (*cinfo.err->format_message)(reinterpret_cast<j_common_ptr>(&cinfo), err->message);
    jpeg_destroy_decompress(&cinfo);
    return !damaged;
}

Status readJpeg(const std::string& path, const Bytes& bytes, std::int64_t maxPixels, Image<std::uint8_t>* out) {
    Bytes pixels;
    int width = 0, height = 0, channels = 0;
    JpegError err{};
    if (!decodeJpeg(bytes, maxPixels, &pixels, &width, &height, &channels, &err))
        return Status::error("'" + path + "' is not a readable JPEG: " + err.message);
    toLuma(pixels.data(), width, height, channels, out);
    return {};
}

/// Netpbm P2/P5 (grey) and P3/P6 (colour), maxval up to 65535, scaled to 8 bits.
Status readPnm(const std::string& path, const Bytes& bytes, std::int64_t maxPixels, Image<std::uint8_t>* out) {
    const char kind = static_cast<char>(bytes[1]);
    const bool ascii = kind == '2' || kind == '3';
    const int channels = (kind == '3' || kind == '6') ? 3 : 1;
    std::size_t pos = 2;
    auto skipSpace = [&] {
        while (pos < bytes.size()) {
            if (bytes[pos] == '#')
                while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
            else if (std::isspace(bytes[pos])) ++pos;
            else break;
        }
    };
    // A decimal number, read whole: more than 9 digits is refused as written, never wrapped or cut.
    std::string text;
    auto number = [&](long* v) {
        skipSpace();
        const std::size_t begin = pos;
        while (pos < bytes.size() && std::isdigit(bytes[pos])) ++pos;
        text.assign(bytes.begin() + begin, bytes.begin() + pos);
        if (text.empty() || text.size() > 9) return false;
        *v = std::stol(text);
        return true;
    };
    auto headerError = [&] {
        return Status::error("'" + path + "' has a broken PGM/PPM header" +
                             (text.size() > 9 ? ": " + text + " is out of range" : std::string()));
    };
    long width = 0, height = 0, maxval = 0;
    if (!number(&width) || !number(&height) || !number(&maxval)) return headerError();
    if (Status s = checkSize(path, width, height, maxPixels); !s) return s;
    if (maxval < 1 || maxval > 65535)
        return Status::error("'" + path + "' has maxval " + std::to_string(maxval) + ", outside 1..65535");
    const std::size_t count = std::size_t(width) * height * channels;
    const std::size_t bytesPer = maxval > 255 ? 2 : 1;
    ++pos;  // the single whitespace byte after maxval
    // Checked before allocating: binary samples take bytesPer bytes each, ASCII ones at least two.
    const std::size_t left = bytes.size() - std::min(pos, bytes.size());
    if (ascii ? count > (left + 1) / 2 : count * bytesPer > left) return Status::error("'" + path + "' is truncated");
    Bytes samples(count);
    for (std::size_t i = 0; i < count; ++i) {
        long v;
        if (!ascii) {
            const unsigned char* p = bytes.data() + pos + i * bytesPer;
            v = bytesPer == 2 ? (p[0] << 8) | p[1] : p[0];
        } else if (!number(&v)) {
            return Status::error("'" + path + "' is truncated or has a sample that is not a number");
        }
        if (v > maxval)
            return Status::error("'" + path + "' has a sample of " + std::to_string(v) + ", above its maxval " +
                                 std::to_string(maxval));
        samples[i] = scaleTo8(v, maxval);
    }
    toLuma(samples.data(), static_cast<int>(width), static_cast<int>(height), channels, out);
    return {};
}

/// The whole file, refusing what cannot be an image: a directory, a device, or more bytes than an
/// image of `maxPixels` could take (16-bit RGB written as ASCII: 18 bytes a pixel).
Status readFile(const std::string& path, std::int64_t maxPixels, Bytes* bytes) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::error("cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) return Status::error("'" + path + "' is a directory, not an image file");
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return Status::error("'" + path + "' is not a regular file");
    const std::uint64_t limit = std::uint64_t(maxPixels) * 18 + (1 << 20);
    auto tooLarge = [&] {
        return Status::error("'" + path + "' is larger than an image of " + std::to_string(maxPixels) +
                             " pixels can be (--max-pixels)");
    };
    if (S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > limit) return tooLarge();
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return Status::error("cannot open '" + path + "': " + std::strerror(errno));
    unsigned char chunk[1 << 16];
    std::size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0 && bytes->size() <= limit)
        bytes->insert(bytes->end(), chunk, chunk + n);
    const bool failed = std::ferror(f);
    const int error = errno;
    std::fclose(f);
    if (failed) return Status::error("cannot read '" + path + "': " + std::strerror(error));
    if (bytes->size() > limit) return tooLarge();
    if (bytes->empty()) return Status::error("'" + path + "' is empty");
    return {};
}

} // namespace

Status readLuma(const std::string& path, Image<std::uint8_t>* out, std::int64_t maxPixels) {
    Bytes bytes;
    if (Status s = readFile(path, maxPixels, &bytes); !s) return s;
    if (bytes.size() >= 8 && png_sig_cmp(bytes.data(), 0, 8) == 0) return readPng(path, bytes, maxPixels, out);
    if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF)
        return readJpeg(path, bytes, maxPixels, out);
    if (bytes.size() >= 2 && bytes[0] == 'P' && std::strchr("2356", bytes[1]) && bytes[1] != 0)
        return readPnm(path, bytes, maxPixels, out);
    return Status::error("'" + path + "' is not a PNG, JPEG, PGM or PPM image");
}

namespace {

bool hasExtension(const std::string& path, const char* ext) {
    const std::size_t n = std::strlen(ext);
    if (path.size() < n) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != ext[i]) return false;
    return true;
}

} // namespace

Status checkOutput(const std::string& path, bool image) {
    if (image && !hasExtension(path, ".png") && !hasExtension(path, ".pgm"))
        return Status::error("cannot write '" + path + "': the output name must end in .png or .pgm");
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return Status::error("cannot write '" + path + "': it is a folder");
    std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) folder = ".";
    if (!std::filesystem::is_directory(folder, ec))
        return Status::error("cannot write '" + path + "': no folder '" + folder.string() + "'");
    if (access(folder.c_str(), W_OK) != 0)
        return Status::error("cannot write '" + path + "': the folder '" + folder.string() + "' is not writable (" +
                             std::strerror(errno) + ")");
    return {};
}

Status writeGray(const std::string& path, ImageView<const std::uint8_t> image) {
    if (hasExtension(path, ".png")) {
        png_image img{};
        img.version = PNG_IMAGE_VERSION;
        img.width = image.width;
        img.height = image.height;
        img.format = PNG_FORMAT_GRAY;
        if (!png_image_write_to_file(&img, path.c_str(), 0, image.data, static_cast<png_int_32>(image.stride), nullptr))
            return Status::error("cannot write '" + path + "': " + img.message);
        return {};
    }
    if (hasExtension(path, ".pgm")) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) return Status::error("cannot write '" + path + "': " + std::strerror(errno));
        bool ok = std::fprintf(f, "P5\n%d %d\n255\n", image.width, image.height) > 0;
        for (int y = 0; ok && y < image.height; ++y)
            ok = std::fwrite(image.row(y), 1, image.width, f) == std::size_t(image.width);
        ok = std::fclose(f) == 0 && ok;
        if (!ok) return Status::error("cannot write '" + path + "'");
        return {};
    }
    return Status::error("cannot write '" + path + "': the output name must end in .png or .pgm");
}

Status writeRgbPng(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb) {
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    img.width = width;
    img.height = height;
    img.format = PNG_FORMAT_RGB;
    if (rgb.size() != std::size_t(width) * height * 3 ||
        !png_image_write_to_file(&img, path.c_str(), 0, rgb.data(), width * 3, nullptr))
        return Status::error("cannot write '" + path + "': " + img.message);
    return {};
}

} // namespace striate::io
