#include "board/profile.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "core/backend.h"

namespace striate {
namespace {

// VideoCore IV (Pi 0..3) through Mesa's vc4 driver: GLES 2.0 only, no float render targets
// (RGBA8 and RGB565 only), textures up to 2048 (vc4_screen.c: MAX_TEXTURE_2D_SIZE). vc4 has no hard
// instruction limit but no register spilling: a fragment shader whose values live at once exceed
// the registers of 2 threads runs at 1 (half the latency hiding), and beyond those of 1 thread it
// fails to register-allocate and its draws are skipped. Measured with Mesa 22.3.6's vc4 compiler
// under the noop DRM shim (docs/boards.md, "The real Pi GPU compilers"; scripts/pi_compilers.sh):
// - 2 threads hold up to about 30 temporaries (a 33-fetch pass kept 31 live and ran at 1 thread);
//   the shaders' generators keep few live (constant offsets, fetches outside branches): every
//   shader of the matrix at 4096 ALU / 256 fetches / strips of 16 compiled at 2 threads, the
//   largest 22 temporaries (a complex section over a strip of 16; they grow with the strip).
// - So the budget bounds what grows with it: strips of 16 (22 temporaries), 128 fetches and 1024
//   ALU per shader (up to about 2000 vc4 instructions: the driver's compile stays short on a Pi).
// vc4 allocates every texture and buffer from the CMA pool, 256 MiB by default with the
// vc4-kms-v3d overlay and shared with the camera's buffers, the ISP and the display's
// framebuffers (together under 64 MiB at 1080p): a chain's plan may take half of it (at
// 1920x1080, Canny takes 19.8 MiB in packed planes, the 6-orientation bank 33.6, a recursive blur
// of sigma 48 57.3; docs/performance-history.md).
constexpr std::size_t kMiB = 1024 * 1024;
constexpr gles::GpuLimits kVc4{
    .glesMajor = 2,
    .glesMinor = 0,
    .compute = false,
    .floatTargets = false,
    .maxTextureSize = 2048,
    .memoryBytes = 128 * kMiB,
    .budget = {.alu = 1024, .fetches = 128, .dependentDepth = 4, .uniforms = 64},
    .unrollLimit = 16,
};

// V3D 4.2 (Pi 4) through Mesa's v3d driver: GLES 3.1 with compute, 256 invocations and 32 KiB
// shared memory per workgroup (v3d_screen.c), float targets R16F..RGBA32F, textures up to 4096.
// Loops unroll up to 16 iterations (docs/design.md). v3d spills registers rather than fail, and drops
// from 4 threads to 2 first. Measured with Mesa 22.3.6's v3d (V3D 4.2) and Mesa 25.0.7's (V3D
// 7.1) under the noop DRM shim (docs/boards.md): at 4096 ALU / 256 fetches a complex 29-pair
// Gabor pass (560 ALU, 59 fetches) spilled 113 registers, and the four-rows passes of large sigmas
// ran to 7400 instructions, whose compile takes minutes under qemu and seconds on a Pi. At 256
// ALU / 64 fetches and 17 wide fetches (complex values or QuadRows texels: a Gabor pass reading
// a four-rows blur through 27 of them spilled 18 registers; a complex section over a strip of 16
// makes 17 and takes 34 registers at 4 threads) no shader of the matrix spills and every one
// runs at 2 threads or more. v3d allocates from system memory, which the camera, the ISP and the
// display share: a chain's plan may take a quarter of the smallest Pi 4's 1 GiB.
constexpr gles::GpuLimits kV3d{
    .glesMajor = 3,
    .glesMinor = 1,
    .compute = true,
    .computeInvocations = 256,
    .computeSharedBytes = 32768,
    .floatTargets = true,
    .maxTextureSize = 4096,
    .memoryBytes = 256 * kMiB,
    .budget = {.alu = 256, .fetches = 64, .dependentDepth = 8, .uniforms = 256, .wideFetches = 17},
    .unrollLimit = 16,
};

// How fast each board's GPU runs a plan, for the planner's choice of forms (gles/limits.h
// GpuSpeed; the same constants as scripts/pi_passes.py's BOARDS, whose sources docs/boards.md
// lists): QPUs, 3D clock, TMUs and the memory bandwidth the cpu's STREAM copy sees (the Pi 4's
// 5.5 GB/s measured, 43% of its peak; the others assumed at the same share of theirs). The fixed
// cost of a draw, 50 us (a submit, a bin and a render job, and every tile's list), is **assumed**:
// no measurement of it on these boards was found. The instruction fits are
// scripts/fit_shader_counts.py's least squares over the real compilers' counts of the conformance
// matrix's distinct fragment shaders (2026-11-27: Mesa 22.3.6 vc4, 269 shaders, 76% within 10% of
// their count and 98% within 25%; v3d 4.2, 409, 47% and 84%; Mesa 25.0.7 v3d 7.1, 409, 53% and
// 80%): good enough to rank forms whose estimates differ by more than the planner's margin
// (gles/fragment/plan_cost.h kEstimateMargin), not to stand for a compiler's count.
constexpr gles::GpuLimits withSpeed(gles::GpuLimits limits, const gles::GpuSpeed& speed) {
    limits.speed = speed;
    return limits;
}
// VideoCore IV: 12 QPUs in 3 slices, 2 TMUs a slice, 300 MHz on the Pi 3 (250 on the Pi 0-2,
// which take the Pi 3's figures: the forms chosen depend on the ratios of the bounds, and those
// boards have no estimates of their own); LPDDR2 at 3.2 GB/s peak (1.4 GB/s assumed).
constexpr gles::GpuSpeed kVc4Speed{.qpus = 12, .clockMHz = 300, .tmus = 6, .bandwidthGBs = 1.4, .drawMicroseconds = 50,
                                   .base = 27.62, .perAlu = 1.51, .perFetch = 1.98};
// V3D 4.2: 8 QPUs in 2 slices at 500 MHz, one TMU a slice (assumed); 5.5 GB/s measured.
constexpr gles::GpuSpeed kV3d42Speed{.qpus = 8, .clockMHz = 500, .tmus = 2, .bandwidthGBs = 5.5, .drawMicroseconds = 50,
                                     .base = 15.87, .perAlu = 1.48, .perFetch = 0.52, .quadAlu = 1.56, .quadFetch = -1.89,
                                     .rowsAlu = -3.69, .rowsFetch = 32.44};
// V3D 7.1: 800 MHz, QPUs and TMUs assumed as the Pi 4's; 7.4 GB/s assumed (43% of LPDDR4X-4267).
constexpr gles::GpuSpeed kV3d71Speed{.qpus = 8, .clockMHz = 800, .tmus = 2, .bandwidthGBs = 7.4, .drawMicroseconds = 50,
                                     .base = 16.59, .perAlu = 1.11, .perFetch = 0.53, .quadAlu = 1.31, .quadFetch = -2.54,
                                     .rowsAlu = -2.75, .rowsFetch = 20.28};

const BoardProfile kProfiles[] = {
    BoardProfile{"rpi0", "Raspberry Pi Zero, VideoCore IV (vc4)", withSpeed(kVc4, kVc4Speed)},
    BoardProfile{"rpi1", "Raspberry Pi 1, VideoCore IV (vc4)", withSpeed(kVc4, kVc4Speed)},
    BoardProfile{"rpi2", "Raspberry Pi 2, VideoCore IV (vc4)", withSpeed(kVc4, kVc4Speed)},
    BoardProfile{"rpi3", "Raspberry Pi 3, VideoCore IV (vc4)", withSpeed(kVc4, kVc4Speed)},
    BoardProfile{"rpi4", "Raspberry Pi 4, V3D 4.2 (v3d)", withSpeed(kV3d, kV3d42Speed)},
    // V3D 7.1 (Pi 5): as V3D 4.2 for what Striate uses; its 7680 limit is for framebuffers, textures
    // stay at 4096 (docs/design.md).
    BoardProfile{"rpi5", "Raspberry Pi 5, V3D 7.1 (v3d)", withSpeed(kV3d, kV3d71Speed)},
    // The ARB_fragment_program minimums of seed 004: 64 ALU instructions, 32 texture fetches,
    // 4 levels of dependent reads; GLES 2.0 without float targets; 32 MiB of GPU memory.
    BoardProfile{"tight", "the smallest fragment hardware (seed 004 limits), for testing the planner",
                 {.glesMajor = 2,
                  .glesMinor = 0,
                  .compute = false,
                  .floatTargets = false,
                  .maxTextureSize = 2048,
                  .memoryBytes = 32 * kMiB,
                  .budget = {.alu = 64, .fetches = 32, .dependentDepth = 4, .uniforms = 32},
                  .unrollLimit = 32}},
    // Everything as probed; the fragment budget of a desktop-class GPU. Strips of 16 as on V3D:
    // wider unrolled strips barely change a frame's cost but compile far more slowly (llvmpipe).
    BoardProfile{"host", "this machine as probed",
                 {.budget = {.alu = 4096, .fetches = 256, .dependentDepth = 8, .uniforms = 256}, .unrollLimit = 16}},
};

std::string version(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }

/// min over limits where 0 means "unbounded" on the profile side.
int cap(int probed, int profile) { return profile > 0 ? std::min(probed, profile) : probed; }

} // namespace

const BoardProfile* boardProfiles(std::size_t* count) {
    *count = std::size(kProfiles);
    return kProfiles;
}

std::string boardNames() {
    std::string names = "auto";
    for (const BoardProfile& p : kProfiles) names += std::string(", ") + p.name;
    return names;
}

const BoardProfile* findBoardProfile(std::string_view name) {
    for (const auto& p : kProfiles)
        if (name == p.name) return &p;
    return nullptr;
}

Status checkBoardName(std::string_view name) {
    if (name.empty() || name == "auto" || findBoardProfile(name)) return {};
    const BoardProfile* unused = nullptr;
    std::string chosenBy;
    return chooseBoardProfile(name, Probe{}, &unused, &chosenBy);
}

Status chooseBoardProfile(std::string_view requested, const Probe& probe, const BoardProfile** profile,
                          std::string* chosenBy) {
    std::string name(requested);
    *chosenBy = "--board";
    if (name.empty() || name == "auto") {
        const char* env = std::getenv("STRIATE_BOARD");
        if (env && *env && std::string_view(env) != "auto") {
            name = env;
            *chosenBy = "STRIATE_BOARD";
        } else {
            name = "host";
            *chosenBy = "default (no Raspberry Pi model in /proc/device-tree/model)";
            // Device-tree models: "Raspberry Pi 4 Model B Rev 1.4", "Raspberry Pi Zero 2 W Rev 1.0",
            // "Raspberry Pi Model B Rev 2" (a Pi 1), "Raspberry Pi Compute Module 4 Rev 1.0".
            static constexpr std::pair<const char*, const char*> kModels[] = {
                {"Raspberry Pi Zero", "rpi0"}, {"Raspberry Pi Model", "rpi1"}, {"Raspberry Pi 2", "rpi2"},
                {"Raspberry Pi 3", "rpi3"}, {"Raspberry Pi Compute Module 3", "rpi3"}, {"Raspberry Pi 4", "rpi4"},
                {"Raspberry Pi 400", "rpi4"}, {"Raspberry Pi Compute Module 4", "rpi4"}, {"Raspberry Pi 5", "rpi5"},
                {"Raspberry Pi Compute Module 5", "rpi5"}};
            for (const auto& [prefix, board] : kModels)
                if (probe.model.rfind(prefix, 0) == 0) {
                    name = board;
                    *chosenBy = "device-tree model '" + probe.model + "'";
                }
        }
    }
    *profile = findBoardProfile(name);
    if (!*profile) return Status::error("unknown board '" + name + "' (expected " + boardNames() + ")");
    return {};
}

Status applyBoardProfile(const BoardProfile& chosen, const Probe& probe, BoardLimits* limits) {
    const gles::GpuLimits& profile = chosen.limits;
    const std::string board = std::string("board '") + chosen.name + "' ";
    if (!probe.gpu) return Status::error(board + "needs an OpenGL ES context: " + probe.gpuError);
    const bool isHost = profile.glesMajor == 0;
    if (!isHost && (probe.glesMajor < profile.glesMajor ||
                    (probe.glesMajor == profile.glesMajor && probe.glesMinor < profile.glesMinor)))
        return Status::error(board + "needs GLES " + version(profile.glesMajor, profile.glesMinor) +
                             "; this machine offers GLES " + version(probe.glesMajor, probe.glesMinor));
    if (profile.compute && !probe.compute)
        return Status::error(board + "needs GLES 3.1 compute shaders; this machine's GLES " +
                             version(probe.glesMajor, probe.glesMinor) + " has none");
    if (profile.floatTargets && !probe.floatTargets)
        return Status::error(board + "needs float render targets (R32F); this machine's GPU cannot render to them");
    BoardLimits l;
    l.profile = chosen.name;
    if (isHost) {
        l.glesMajor = probe.glesMajor;
        l.glesMinor = probe.glesMinor;
        l.compute = probe.compute;
        l.floatTargets = probe.floatTargets;
    } else {
        l.glesMajor = profile.glesMajor;
        l.glesMinor = profile.glesMinor;
        l.compute = profile.compute;
        l.floatTargets = profile.floatTargets;
    }
    l.computeInvocations = l.compute ? cap(probe.computeInvocations, profile.computeInvocations) : 0;
    l.computeSharedBytes = l.compute ? cap(probe.computeSharedBytes, profile.computeSharedBytes) : 0;
    l.maxTextureSize = cap(probe.maxTextureSize, profile.maxTextureSize);
    l.memoryBytes = profile.memoryBytes;
    l.budget = profile.budget;
    l.unrollLimit = profile.unrollLimit;
    l.speed = profile.speed;
    *limits = l;
    return {};
}

Status resolveBoard(std::string_view requested, const Probe& probe, BoardLimits* limits) {
    const BoardProfile* profile = nullptr;
    std::string chosenBy;
    if (Status s = chooseBoardProfile(requested, probe, &profile, &chosenBy); !s) return s;
    if (Status s = applyBoardProfile(*profile, probe, limits); !s) return s;
    limits->chosenBy = chosenBy;
    return {};
}

std::string formatBoardLimits(const BoardLimits& l) {
    std::ostringstream s;
    s << "board: " << l.profile << " (chosen by " << l.chosenBy << ")\n"
      << "  gles " << version(l.glesMajor, l.glesMinor) << ", compute: ";
    if (l.compute) s << "yes, " << l.computeInvocations << " invocations, " << l.computeSharedBytes / 1024 << " KiB shared";
    else s << "no";
    s << "\n  float render targets: " << (l.floatTargets ? "yes" : "no (packed RGBA8 intermediates)")
      << "\n  max texture size: " << l.maxTextureSize << "\n  fragment budget: " << l.budget.alu << " ALU, "
      << l.budget.fetches << " texture fetches, " << l.budget.dependentDepth << " dependent-read levels, "
      << l.budget.uniforms << " uniform vectors"
      << (l.budget.wideFetches ? ", " + std::to_string(l.budget.wideFetches) + " wide fetches" : std::string())
      << "; loops unroll to " << l.unrollLimit << "\n  GPU memory per chain: "
      << (l.memoryBytes ? describeBytes(l.memoryBytes) : std::string("unbounded")) << "\n";
    return s.str();
}

std::string formatBoardLimitsJson(const BoardLimits& l) {
    std::ostringstream s;
    s << "{\"profile\": " << jsonString(l.profile) << ", \"chosen_by\": " << jsonString(l.chosenBy)
      << ", \"gles\": " << jsonString(version(l.glesMajor, l.glesMinor)) << ", \"compute\": " << (l.compute ? "true" : "false")
      << ", \"compute_invocations\": " << l.computeInvocations << ", \"compute_shared_bytes\": " << l.computeSharedBytes
      << ", \"float_targets\": " << (l.floatTargets ? "true" : "false") << ", \"max_texture_size\": " << l.maxTextureSize
      << ", \"budget\": {\"alu\": " << l.budget.alu << ", \"texture_fetches\": " << l.budget.fetches
      << ", \"dependent_depth\": " << l.budget.dependentDepth << ", \"uniform_vectors\": " << l.budget.uniforms
      << ", \"wide_fetches\": " << l.budget.wideFetches
      << "}, \"unroll_limit\": " << l.unrollLimit << ", \"gpu_memory_bytes\": " << l.memoryBytes << "}";
    return s.str();
}

} // namespace striate
