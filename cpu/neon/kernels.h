#pragma once

#include "core/spec.h"

namespace striate::cpu {

/// The name of the cpu kernel that runs a stage, as logs and --explain show it.
const char* kernelName(const Stage& stage);

} // namespace striate::cpu
