#pragma once

#include <string_view>

#include "board/measured.h"

namespace striate {

/// What a frame of each main chain is estimated to cost on a board's GPU and on its own cores
/// (docs/boards.md, "GPU or cores: what `auto` follows"), made by scripts/estimates.py from
/// scripts/pi_passes.py (the GPU: the Pi's real compilers' instruction counts, the boards' clocks)
/// and scripts/cpu_estimate.py (the cores: the arm64 build's instructions counted under
/// qemu-user, the cores' clocks and an assumed IPC) into board/estimates.tsv, compiled in.
/// Estimates, not measurements: `striate selftest` on the board measures, and overrides them.
/// As Timings (chain, size, backend, ms), so fastestMeasured picks from them as from a
/// selftest's; `board` and `renderer` say where they come from. No timings for a board without
/// estimates (rpi0..rpi2, tight, host).
Measurements boardEstimates(std::string_view board);

} // namespace striate
