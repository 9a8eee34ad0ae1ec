// libFuzzer target for one image decoder of the tool (io/image_io.cpp), built once per format
// (STRIATE_FUZZ_PNG, STRIATE_FUZZ_JPEG, else Netpbm): inputs that do not start with the format's signature are skipped, so
// each target stays on its decoder. The bytes go through readLuma as a file (a memfd), as the tool
// reads them, with a 4-megapixel limit so that a header's claimed size is refused early; a decoded
// image must have the size its header gave and be readable to its last pixel.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/image_io.h"

#if defined(STRIATE_FUZZ_PNG)
constexpr char kSignature[] = "\x89PNG\r\n\x1a\n";
#elif defined(STRIATE_FUZZ_JPEG)
constexpr char kSignature[] = "\xff\xd8\xff";
#else
constexpr char kSignature[] = "P";  // P1..P6
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < sizeof kSignature - 1 || std::memcmp(data, kSignature, sizeof kSignature - 1) != 0) return -1;
    const int fd = memfd_create("fuzz-image", MFD_CLOEXEC);
    if (fd < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
        const ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) std::abort();
        done += static_cast<std::size_t>(n);
    }
    striate::Image<std::uint8_t> image;
    const striate::Status s = striate::io::readLuma("/proc/self/fd/" + std::to_string(fd), &image, std::int64_t(1) << 22);
    close(fd);
    if (!s) {
        if (s.message().empty()) std::abort();
        return 0;
    }
    if (image.width() < 1 || image.height() < 1 || std::int64_t(image.width()) * image.height() > (std::int64_t(1) << 22))
        std::abort();
    unsigned sum = 0;  // every pixel read: AddressSanitizer checks the rows exist
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) sum += image.at(x, y);
    return static_cast<int>(sum & 0);
}
