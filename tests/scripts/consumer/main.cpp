// Blurs a step edge on the cpu backend through the installed headers and libraries and prints
// the middle row: what a program built against the package sees.
#include <cstdio>
#include <memory>
#include <string>

#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"

int main() {
    using namespace striate;
    Chain chain;
    if (Status s = parseChain("blur sigma=1", &chain); !s) return std::printf("%s\n", s.message().c_str()), 1;
    const FrameFormat format{8, 3};
    Image<std::uint8_t> in(format.width, format.height);
    for (int y = 0; y < format.height; ++y)
        for (int x = 0; x < format.width; ++x) in.at(x, y) = x < 4 ? 0 : 255;
    std::unique_ptr<Backend> backend;
    std::string fallback;
    if (Status s = startBackend(BackendKind::Cpu, BackendOptions{}, chain, format, &backend, &fallback); !s)
        return std::printf("%s\n", s.message().c_str()), 1;
    ChainOutput out;
    if (Status s = backend->process(in.view(), &out); !s) return std::printf("%s\n", s.message().c_str()), 1;
    std::printf("%s:", backend->name());
    for (int x = 0; x < format.width; ++x) std::printf(" %.3f", out.real.at(x, 1));
    std::printf("\n");
    return 0;
}
