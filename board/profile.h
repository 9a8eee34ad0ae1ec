#pragma once

#include <string>
#include <string_view>

#include "board/probe.h"
#include "core/status.h"

namespace striate {

/// Static cost limits of one fragment shader (DESIGN.md, Boards and budgets).
struct FragmentBudget {
    int alu = 0;             ///< ALU instructions (estimate)
    int textureFetches = 0;  ///< texture fetches
    int dependentDepth = 0;  ///< levels of dependent texture reads
    int uniformVectors = 0;  ///< vec4 uniforms
};

/// What a board offers the GLES backends. A profile caps what the probe found; 0 in a limit of
/// `host` means "as probed".
struct BoardProfile {
    const char* name = "";
    const char* description = "";
    int glesMajor = 0, glesMinor = 0;  ///< the GLES version the board's driver gives
    bool compute = false;              ///< GLES 3.1 compute shaders
    int computeInvocations = 0;        ///< per workgroup
    int computeSharedBytes = 0;        ///< per workgroup
    bool floatTargets = false;         ///< float render targets (else packed RGBA8 intermediates)
    int maxTextureSize = 0;
    FragmentBudget budget;             ///< per fragment shader
    int unrollLimit = 0;               ///< iterations a generated loop may unroll to
};

/// The profiles of DESIGN.md, in order: rpi0, rpi1, rpi2, rpi3, rpi4, rpi5, tight, host.
const BoardProfile* boardProfiles(std::size_t* count);
const BoardProfile* findBoardProfile(std::string_view name);

/// A profile applied to the probed machine: every limit is the smaller of the two.
struct BoardLimits {
    std::string profile;     ///< the profile's name
    std::string chosenBy;    ///< "--board", "STRIATE_BOARD", "device-tree model ...", "default"
    int glesMajor = 0, glesMinor = 0;
    bool compute = false;
    int computeInvocations = 0;
    int computeSharedBytes = 0;
    bool floatTargets = false;
    int maxTextureSize = 0;
    FragmentBudget budget;
    int unrollLimit = 0;
};

/// The profile a board name selects: a profile name, or "auto" (STRIATE_BOARD when set, else the
/// device-tree model, else host). `requested` empty means auto.
Status chooseBoardProfile(std::string_view requested, const Probe& probe, const BoardProfile** profile,
                          std::string* chosenBy);

/// Applies a profile to a probe. A profile that needs what the machine lacks (a GPU at all, a
/// GLES version, compute shaders, float render targets) is an error naming the capability.
Status applyBoardProfile(const BoardProfile& profile, const Probe& probe, BoardLimits* limits);

/// Both of the above: the limits the GLES backends run under.
Status resolveBoard(std::string_view requested, const Probe& probe, BoardLimits* limits);

/// The limits as text lines / one JSON object (striate probe).
std::string formatBoardLimits(const BoardLimits& limits);
std::string formatBoardLimitsJson(const BoardLimits& limits);

} // namespace striate
