#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "gles/limits.h"

namespace striate {

/// What this machine offers, probed once (docs/design.md, Boards and budgets): the GLES context
/// and its limits from real queries (float formats by framebuffer completeness, not extension strings: the
/// GpuLimits part, whose budget and unroll limit are not probed and stay 0), the board's
/// device-tree model, the CPU's SIMD path.
struct Probe : gles::GpuLimits {
    // GPU (empty when no context could be made; gpuError says why).
    bool gpu = false;
    std::string gpuError;
    std::string platform;  ///< EGL platform of the display
    std::string version, renderer, vendor, glsl;
    /// The renderer rasterises on the CPU (Mesa llvmpipe, softpipe, swrast): the GLES backends run,
    /// but on the cores the cpu backend uses better (docs/performance-history.md).
    bool softwareRenderer = false;
    std::vector<std::string> floatRenderable;  ///< of R16F RG16F RGBA16F R32F RG32F RGBA32F (R32F: floatTargets)
    int fragmentHighpPrecision = 0;  ///< bits of highp float in fragment shaders (0: no highp)
    int fragmentMediumpPrecision = 0;
    // Board and CPU.
    std::string model;  ///< /proc/device-tree/model, or empty
    std::string cpuSimd;
};

/// Probes the machine: makes and drops a GLES context (a failure fills gpuError, not a Status).
Probe probeMachine();
/// The probe as text lines or as one JSON object.
std::string formatProbe(const Probe& p);
std::string formatProbeJson(const Probe& p);
/// A JSON string literal of s (quotes and backslashes escaped, control characters dropped).
std::string jsonString(const std::string& s);

} // namespace striate
