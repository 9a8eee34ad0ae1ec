#include "tools/io/image_io.h"

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include "core/backend.h"

namespace striate::io {
namespace {

using Bytes = std::vector<unsigned char>;

Status checkSize(const std::string& path, long width, long height) {
    if (width < 1 || height < 1 || width > kMaxDimension || height > kMaxDimension)
        return Status::error("'" + path + "' is " + std::to_string(width) + "x" + std::to_string(height) +
                             ", outside 1.." + std::to_string(kMaxDimension) + " pixels per side");
    return {};
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

Status readPng(const std::string& path, const Bytes& bytes, Image<std::uint8_t>* out) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
        return Status::error("'" + path + "' is not a readable PNG: " + image.message);
    if (Status s = checkSize(path, image.width, image.height); !s) {
        png_image_free(&image);
        return s;
    }
    image.format = PNG_FORMAT_RGB;
    Bytes rgb(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr))
        return Status::error("'" + path + "' is not a readable PNG: " + image.message);
    toLuma(rgb.data(), image.width, image.height, 3, out);
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
bool decodeJpeg(const Bytes& bytes, Bytes* pixels, int* width, int* height, int* channels, JpegError* err) {
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
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    *width = static_cast<int>(cinfo.output_width);
    *height = static_cast<int>(cinfo.output_height);
    *channels = cinfo.output_components;
    if (*width > kMaxDimension || *height > kMaxDimension) {
        std::snprintf(err->message, sizeof err->message, "image is %dx%d, larger than %d pixels per side", *width,
                      *height, kMaxDimension);
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
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

Status readJpeg(const std::string& path, const Bytes& bytes, Image<std::uint8_t>* out) {
    Bytes pixels;
    int width = 0, height = 0, channels = 0;
    JpegError err{};
    if (!decodeJpeg(bytes, &pixels, &width, &height, &channels, &err))
        return Status::error("'" + path + "' is not a readable JPEG: " + err.message);
    toLuma(pixels.data(), width, height, channels, out);
    return {};
}

/// Netpbm P2/P5 (grey) and P3/P6 (colour), maxval up to 65535, scaled to 8 bits.
Status readPnm(const std::string& path, const Bytes& bytes, Image<std::uint8_t>* out) {
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
    auto number = [&](long* v) {
        skipSpace();
        if (pos >= bytes.size() || !std::isdigit(bytes[pos])) return false;
        *v = 0;
        while (pos < bytes.size() && std::isdigit(bytes[pos]) && *v < 1000000) *v = *v * 10 + (bytes[pos++] - '0');
        return true;
    };
    long width = 0, height = 0, maxval = 0;
    if (!number(&width) || !number(&height) || !number(&maxval))
        return Status::error("'" + path + "' has a broken PGM/PPM header");
    if (Status s = checkSize(path, width, height); !s) return s;
    if (maxval < 1 || maxval > 65535)
        return Status::error("'" + path + "' has maxval " + std::to_string(maxval) + ", outside 1..65535");
    const std::size_t count = std::size_t(width) * height * channels;
    Bytes samples(count);
    auto scale = [maxval](long v) { return static_cast<unsigned char>((std::min(v, maxval) * 255 + maxval / 2) / maxval); };
    if (ascii) {
        for (std::size_t i = 0; i < count; ++i) {
            long v;
            if (!number(&v)) return Status::error("'" + path + "' is truncated");
            samples[i] = scale(v);
        }
    } else {
        ++pos;  // the single whitespace byte after maxval
        const std::size_t bytesPer = maxval > 255 ? 2 : 1;
        if (pos + count * bytesPer > bytes.size()) return Status::error("'" + path + "' is truncated");
        for (std::size_t i = 0; i < count; ++i) {
            const unsigned char* p = bytes.data() + pos + i * bytesPer;
            samples[i] = scale(bytesPer == 2 ? (p[0] << 8) | p[1] : p[0]);
        }
    }
    toLuma(samples.data(), static_cast<int>(width), static_cast<int>(height), channels, out);
    return {};
}

} // namespace

Status readLuma(const std::string& path, Image<std::uint8_t>* out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return Status::error("cannot open '" + path + "': " + std::strerror(errno));
    Bytes bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.empty()) return Status::error("'" + path + "' is empty");
    if (bytes.size() >= 8 && png_sig_cmp(bytes.data(), 0, 8) == 0) return readPng(path, bytes, out);
    if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return readJpeg(path, bytes, out);
    if (bytes.size() >= 2 && bytes[0] == 'P' && std::strchr("2356", bytes[1]) && bytes[1] != 0)
        return readPnm(path, bytes, out);
    return Status::error("'" + path + "' is not a PNG, JPEG, PGM or PPM image");
}

Status writeGray(const std::string& path, ImageView<const std::uint8_t> image) {
    auto endsWith = [&](const char* ext) {
        const std::size_t n = std::strlen(ext);
        if (path.size() < n) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != ext[i]) return false;
        return true;
    };
    if (endsWith(".png")) {
        png_image img{};
        img.version = PNG_IMAGE_VERSION;
        img.width = image.width;
        img.height = image.height;
        img.format = PNG_FORMAT_GRAY;
        if (!png_image_write_to_file(&img, path.c_str(), 0, image.data, static_cast<png_int_32>(image.stride), nullptr))
            return Status::error("cannot write '" + path + "': " + img.message);
        return {};
    }
    if (endsWith(".pgm")) {
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

} // namespace striate::io
