#include "cpu/neon/kernels.h"

#include <cstdlib>
#include <cstring>
#include <variant>

#include "cpu/neon/avx2.h"

namespace striate::cpu {
namespace {

/// The cpu kernels, most specialised first (STYLE.md 2): the first entry whose selector accepts a
/// stage runs it, and its name is what logs and --explain show.
struct KernelEntry {
    const char* name;
    bool (*selects)(const Stage&);
};

template <class S>
const S* as(const Stage& s) {
    return std::get_if<S>(&s);
}

constexpr KernelEntry kKernels[] = {
    {"blur.direct.fir-symmetric", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Direct; }},
    {"blur.boxes.running-sum-x4", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Boxes; }},
    {"blur.recursive.yvv3", [](const Stage& s) { auto b = as<BlurSpec>(s); return b && b->resolvedMethod() == BlurMethod::Recursive; }},
    {"gabor.recursive.yvv3-complex", [](const Stage& s) { auto g = as<GaborSpec>(s); return g && g->resolvedMethod() == GaborMethod::Recursive; }},
    {"gabor.direct.fir-complex", [](const Stage& s) { auto g = as<GaborSpec>(s); return g && g->resolvedMethod() == GaborMethod::Direct; }},
    {"edges.canny.fir-nms-hysteresis", [](const Stage& s) { auto e = as<EdgeSpec>(s); return e && e->method == EdgeMethod::Canny; }},
    {"edges.gabor-energy.bank-nms-hysteresis", [](const Stage& s) { auto e = as<EdgeSpec>(s); return e && e->method == EdgeMethod::Gabor; }},
};

} // namespace

const char* kernelName(const Stage& stage) {
    for (const auto& k : kKernels)
        if (k.selects(stage)) return k.name;
    return "?";
}

bool runsAvx2() {
#if STRIATE_AVX2
    const char* disabled = std::getenv("STRIATE_CPU_DISABLE");
    return avx2::available() && !(disabled && std::strstr(disabled, "AVX2"));
#else
    return false;
#endif
}

} // namespace striate::cpu
