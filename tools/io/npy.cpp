#include "tools/io/npy.h"

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

} // namespace striate::io
