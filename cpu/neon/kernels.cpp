#include "cpu/neon/kernels.h"

#include <cstdlib>
#include <cstring>
#include <variant>

#include "cpu/neon/avx2.h"
#include "cpu/neon/neon.h"

namespace striate::cpu {

const char* simdPath() { return simdPathName(); }

bool runsAvx2() {
#if STRIATE_AVX2
    const char* disabled = std::getenv("STRIATE_CPU_DISABLE");
    return avx2::available() && !(disabled && std::strstr(disabled, "AVX2"));
#else
    return false;
#endif
}

} // namespace striate::cpu
