#pragma once

#include "core/spec.h"

namespace striate::cpu {

/// The SIMD path the cpu kernels were built for ("neon", "neon-simde", ...), for --version and
/// the probe: the name without the NEON/SIMDe header.
const char* simdPath();

} // namespace striate::cpu
