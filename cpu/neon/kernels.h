#pragma once

#include "core/spec.h"

namespace striate::cpu {

/// The name of the cpu kernel that runs a stage, as logs and --explain show it (defined in
/// cpu_backend.cpp, beside the backend's other visits of a stage).
const char* kernelName(const Stage& stage);

/// The SIMD path the cpu kernels were built for ("neon", "neon-simde", ...), for --version and
/// the probe: the name without the NEON/SIMDe header.
const char* simdPath();

} // namespace striate::cpu
