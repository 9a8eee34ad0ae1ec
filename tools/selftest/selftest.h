#pragma once
// `striate selftest`: the on-device regression test (README "On a Raspberry Pi", docs/boards.md).
// A fixed battery of chains, sizes and inputs runs on every backend the device can run, under the
// board's profile (every profile with --full); each result is checked against the reference
// computed on the device (docs/algorithms.md 8) and against goldens made by the reference on the
// development machine, so a reference that is itself wrong on the device is caught too.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "board/backend_choice.h"
#include "board/measured.h"
#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"
#include "cpu/reference/accuracy.h"
#include "core/status.h"

namespace striate::selftest {

/// One case of the battery: a chain on an input at a size.
struct Case {
    std::string chain;
    std::string input;  ///< "shapes" (the synthetic camera, seeded) or "photo" (the installed photo)
    int width = 0, height = 0;
    bool golden = false;  ///< checked against a golden as well (the small sizes)
    /// A file-name-safe name: input-WxH-chain.
    std::string id() const;
};

/// The battery: every stage x method x output at 1x1 (quick: one chain per stage), odd sizes
/// (17x13, 131x67), and on the photo at 64x48 and 640x480 (quick: one chain per stage; full: every
/// chain, and 1280x720). Goldens: the 1x1, 17x13 and 64x48 cases.
std::vector<Case> battery(bool full);

/// The input of a case: the synthetic camera's shapes scene (noise model on, seed 7) or the photo
/// in `dataDir` resampled to the size.
Status inputFor(const Case& c, const std::string& dataDir, Image<std::uint8_t>* out);

/// docs/algorithms.md 8's measure and budget (cpu/reference/accuracy.h).
using reference::Accuracy;
using reference::Producer;

/// One row of the report.
struct Row {
    std::string backend, profile, check;  ///< check: "reference" or "golden"
    Case c;
    Accuracy accuracy;
    double ms = 0;     ///< the backend's time for the frame
    bool ran = true;   ///< false: the backend could not run this case (note says why; not a failure)
    std::string note;
};

/// Makes a backend as startBackend does; tests give a deliberately wrong one.
using BackendMaker = std::function<Status(BackendKind, const BackendOptions&, const Chain&, const FrameFormat&,
                                          std::unique_ptr<Backend>*, std::string*)>;

struct Options {
    std::string board;                  ///< profile name; empty: auto
    std::vector<BackendKind> backends;  ///< empty: cpu, gles-compute, gles-fragment
    bool full = false;
    std::string dataDir;  ///< holds astronaut.png and goldens/
    bool measure = true;  ///< time the standard chains and store them for auto
    BackendMaker make;    ///< empty: startBackend
    std::function<void(const Row&)> progress;  ///< called after each row
    /// Called with each case a backend ran: its row, input, the reference's output and its own.
    std::function<void(const Row&, const Chain&, const Image<std::uint8_t>&, const ChainOutput&, const ChainOutput&)> images;
};

struct Report {
    std::vector<Row> rows;
    Measurements measurements;
    std::string measurementsPath;  ///< where they were stored; empty when not measured
    std::vector<std::string> profiles;
    std::string plugin;  ///< the plugin whose elements were checked ("FILE VERSION"); empty: none
    int failures() const;
};

/// Runs the battery. An error is for the caller's input (an unknown board, a missing data
/// directory); failing cases are rows.
Status run(const Options& options, Report* report);

/// The reference's outputs of the golden cases, written into `dir` as <id>.npy (float32).
Status writeGoldens(const std::string& dataDir, const std::string& dir);

/// The rows and measurements as one JSON object.
std::string formatJson(const Report& report);

/// `striate selftest ARGS...` (argv without the command): prints the rows, the failures and a
/// summary; returns the exit status (0 all pass, 1 a regression, 2 usage). `make`: as in Options.
int command(int argc, char** argv, const BackendMaker& make);

} // namespace striate::selftest
