#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "core/status.h"

namespace striate {

/// One time measured by `striate selftest`: a standard chain at a size on a backend, in ms per
/// frame.
struct Timing {
    std::string chain;
    int width = 0, height = 0;
    BackendKind backend = BackendKind::Cpu;
    double ms = 0;
};

/// What produced a set of timings, and the timings.
struct Measurements {
    std::string board, renderer, versions;
    std::vector<Timing> timings;
};

/// Where selftest keeps the measurements of a board profile on a renderer:
/// $XDG_CACHE_HOME/striate/<board>-<renderer>.json ($HOME/.cache when XDG_CACHE_HOME is unset),
/// the renderer in lower case with every other run of characters as one '-'.
std::string measurementsPath(const std::string& board, const std::string& renderer);
/// Writes the file (creating its directory): one JSON object, one timing per line.
Status writeMeasurements(const std::string& path, const Measurements& m);
/// Reads what writeMeasurements wrote. False when there is no such file or it is not one.
bool readMeasurements(const std::string& path, Measurements* m);

/// The fastest backend measured for chains whose last stage is of the same kind as `chain`'s
/// (a blur, a Gabor, edges, a threshold; every chain when `chain` is null), by the sum of its times over the sizes
/// every candidate was measured at; among `allowed`. Empty when nothing comparable was measured.
/// `reason` lists the sums.
std::optional<BackendKind> fastestMeasured(const Measurements& m, const Chain* chain,
                                           const std::vector<BackendKind>& allowed, std::string* reason);

} // namespace striate
