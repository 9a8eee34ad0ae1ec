#include "io/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace striate::io {
namespace {

static_assert(sizeof(float) == 4);

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Status writeArray(const std::string& path, int height, int width, int channels,
                  const std::function<const float*(int)>& row) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(height) + ", " +
                         std::to_string(width) + (channels > 1 ? ", " + std::to_string(channels) : "") + "), }";
    // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to a multiple of 64.
    const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
    header.append(total - 10 - header.size() - 1, ' ');
    header.push_back('\n');
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) return Status::error("cannot write '" + path + "': " + std::strerror(errno));
    const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                        static_cast<unsigned char>(header.size() & 0xff),
                                        static_cast<unsigned char>(header.size() >> 8)};
    bool ok = std::fwrite(preamble, 1, 10, f.get()) == 10 &&
              std::fwrite(header.data(), 1, header.size(), f.get()) == header.size();
    for (int y = 0; ok && y < height; ++y)
        ok = std::fwrite(row(y), sizeof(float), std::size_t(width) * channels, f.get()) == std::size_t(width) * channels;
    if (!ok || std::fflush(f.get()) != 0) return Status::error("cannot write '" + path + "': " + std::strerror(errno));
    return {};
}

} // namespace

Status writeNpy(const std::string& path, ImageView<const float> p) {
    return writeArray(path, p.height, p.width, 1, [&](int y) { return p.row(y); });
}

Status writeNpy(const std::string& path, ImageView<const Complex32> p) {
    // std::complex<float> is laid out as two floats (real, imaginary), as NumPy's last axis wants.
    return writeArray(path, p.height, p.width, 2, [&](int y) { return reinterpret_cast<const float*>(p.row(y)); });
}

Status readNpy(const std::string& path, NpyArray* out) {
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) return Status::error("cannot open '" + path + "': " + std::strerror(errno));
    unsigned char preamble[10];
    if (std::fread(preamble, 1, 10, f.get()) != 10 || std::memcmp(preamble, "\x93NUMPY", 6) != 0 || preamble[6] != 1)
        return Status::error("'" + path + "' is not a NumPy 1.0 array");
    std::string header(preamble[8] | (preamble[9] << 8), ' ');
    if (std::fread(header.data(), 1, header.size(), f.get()) != header.size())
        return Status::error("'" + path + "' is truncated");
    const auto shapeAt = header.find("'shape': (");
    if (header.find("'descr': '<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos ||
        shapeAt == std::string::npos)
        return Status::error("'" + path + "' is not a little-endian float32 C-order array");
    int dims[3] = {0, 0, 1};
    const int n = std::sscanf(header.c_str() + shapeAt + 10, "%d, %d, %d", &dims[0], &dims[1], &dims[2]);
    if (n < 2 || dims[0] < 1 || dims[1] < 1 || dims[0] > 1 << 15 || dims[1] > 1 << 15 || (n == 3 && dims[2] != 2))
        return Status::error("'" + path + "' has a shape other than H x W or H x W x 2");
    out->height = dims[0];
    out->width = dims[1];
    out->channels = n == 3 ? 2 : 1;
    out->data.resize(std::size_t(out->height) * out->width * out->channels);
    if (std::fread(out->data.data(), sizeof(float), out->data.size(), f.get()) != out->data.size())
        return Status::error("'" + path + "' is truncated");
    return {};
}

} // namespace striate::io
