#pragma once
// `striate probe`'s report, shared by the tool and the Python module (striate.probe()).

#include <string>

#include "core/backend.h"
#include "core/chain.h"
#include "core/status.h"

namespace striate {

/// The report as text lines and as one JSON object: the machine's probe (board/probe.h), the
/// board profile applied to it, the backend `auto` picks and, with a chain, what each backend's
/// plan of it holds at `format` on this board.
struct ProbeReport {
    std::string text;
    std::string json;
};

/// Probes this machine under `board` (empty or "auto": STRIATE_BOARD, the device tree, host).
/// A misspelt board is an error before anything is probed (`out` untouched); a profile that needs
/// what this machine lacks fills `out` and is then the error, naming the capability.
Status probeReport(const std::string& board, const Chain* chain, const FrameFormat& format, ProbeReport* out);

} // namespace striate
