#pragma once

#include <string>
#include <string_view>

#include "board/probe.h"
#include "core/status.h"
#include "gles/limits.h"

namespace striate {

/// One board of docs/design.md (Boards and budgets): its name and what it offers the GLES
/// backends (a cap on the probe).
struct BoardProfile {
    const char* name = "";
    const char* description = "";
    gles::GpuLimits limits;
};

/// The profiles of docs/design.md (Boards and budgets), in order: rpi0, rpi1, rpi2, rpi3, rpi4,
/// rpi5, tight, host.
const BoardProfile* boardProfiles(std::size_t* count);
const BoardProfile* findBoardProfile(std::string_view name);
/// "auto, rpi0, rpi1, ..., host": what a board option accepts, for messages and help.
std::string boardNames();

/// A profile applied to the probed machine: every limit is the smaller of the two.
struct BoardLimits : gles::GpuLimits {
    std::string profile;   ///< the profile's name
    std::string chosenBy;  ///< "--board", "STRIATE_BOARD", "device-tree model ...", "default"
};

/// The profile a board name selects: a profile name, or "auto" (STRIATE_BOARD when set, else the
/// device-tree model, else host). `requested` empty means auto.
Status chooseBoardProfile(std::string_view requested, const Probe& probe, const BoardProfile** profile,
                          std::string* chosenBy);

/// A board option's value checked before anything is probed: empty, auto or a profile's name;
/// else chooseBoardProfile's error naming the value and the names.
Status checkBoardName(std::string_view name);

/// Applies a profile to a probe. A profile that needs what the machine lacks (a GPU at all, a
/// GLES version, compute shaders, float render targets) is an error naming the capability.
Status applyBoardProfile(const BoardProfile& profile, const Probe& probe, BoardLimits* limits);

/// Both of the above: the limits the GLES backends run under.
Status resolveBoard(std::string_view requested, const Probe& probe, BoardLimits* limits);

/// The limits as text lines / one JSON object (striate probe).
std::string formatBoardLimits(const BoardLimits& limits);
std::string formatBoardLimitsJson(const BoardLimits& limits);

} // namespace striate
