// striate: the command-line tool (docs/design.md, "Command-line tool").
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "board/backend_choice.h"
#ifdef STRIATE_HAVE_GLES
#include "board/probe_report.h"
#endif
#include "core/backend.h"
#include "core/chain.h"
#include "core/params.h"
#include "cpu/neon/kernels.h"
#include "io/image_io.h"
#include "io/npy.h"
#ifdef STRIATE_HAVE_GLES
#include "tools/selftest/selftest.h"
#endif

namespace {

using namespace striate;

constexpr int kUsageError = 2;

const char* kMainHelp = R"(striate: vision filters (Gaussian blur, Gabor, edges, adaptive threshold) for camera boards

usage: striate <command> [options]

commands:
  filter IN OUT --chain "..."   filter an image file (see striate filter --help)
  probe [--json]                what this machine offers: GLES context and limits, board, CPU;
                                with --chain, the memory each backend takes for it
  selftest [options]            the on-device regression test (see striate selftest --help)
  bench [options]               time the cpu backend against OpenCV (a source build's: it needs
                                striate-bench beside the tool, which the package leaves out)
  help                          this text

options:
  -h, --help     this text
  --version      print the version
)";

const char* kFilterHelp = R"(usage: striate filter IN OUT --chain "STAGE ! STAGE ..." [options]

Reads IN (PNG, JPEG, PGM or PPM; the stored values, no gamma or colour-profile transform; 16-bit
samples scaled to 8 bits with rounding; colour becomes BT.601 luma; alpha is ignored), runs the
chain, and writes the 8-bit result to OUT (.png or .pgm) as grey: the codes the GStreamer
elements and the Python module give (the backend's 8-bit path).

options:
  --chain TEXT      the stages, separated by '!', e.g.
                    "blur sigma=2 ! gabor sigma=4 wavelength=10 orientation=30"
  --backend NAME    auto (default), cpu, reference, gles-compute or gles-fragment; a GPU backend that cannot
                    run warns once on stderr and the cpu backend runs instead
  --board NAME      board profile capping the GPU backends: auto (default: STRIATE_BOARD, else
                    the device-tree model, else host), rpi0..rpi3, rpi4, rpi5, tight or host
  --raw FILE.npy    also write the float32 result in the unit of docs/algorithms.md 0
                    (H x W, or H x W x 2 for gabor output=complex): the float path, whose
                    8-bit codes can differ from OUT's by one where the cpu's 8-bit path is in
                    fixed point (docs/algorithms.md)
  --threads N       cpu backend threads (default: one per hardware thread)
  --max-pixels N    refuse larger inputs, from their header, before reading them (default
                    67108864 = 8192x8192; at most 32768x32768)
  --frames N        run the chain on the image N times (default 1), as on N frames of a stream
                    from one started backend; OUT holds the last. For profiling: the work of one
                    frame is the difference between N and 1 (scripts/cpu_estimate.py)
  --explain         print the parsed chain and the kernels or GPU passes that run it, after the
                    frame: a GPU backend adds each program's statistics as the driver's compiler
                    reported them (Mesa's vc4 and v3d on a Pi; llvmpipe reports none), and
                    gles-fragment what the frame ran: its draws, the bytes they moved at the
                    least and loaded in tiles, the fragments per program, the bytes read back and
                    uploaded between draws, and a frame's upload and read-back; gles-compute its
                    hysteresis's passes and tile-loop iterations (scripts/pi_passes.py counts
                    them). On a Pi board (--board) gles-fragment also prints the forms its
                    planner chose by the board's estimate and that estimate per pass (estimates,
                    not measurements; docs/boards.md)
  -h, --help        this text

stages and parameters (names and values as the GStreamer element properties):
)";

/// The rest of filter --help, after the stage list made from the parameter tables.
const char* kFilterHelpEnd = R"(  Numbers are decimal; each parameter and each option is given once (the element property
  ranges, checked whatever the method).
  method=recursive needs sigma >= 0.5; auto picks direct below sigma 3, recursive above
  (on cpu: a blur with 8-bit output, direct in fixed point below sigma 10; a gabor whose
  orientations are all 0 or 90 degrees, direct below sigma 8).

8-bit output: round(255 * (offset + scale * value)) clamped to 0..255, where scale is the gain
(1 where a stage has none), offset 0.5 for real and imaginary, phase maps [-pi, pi] to [0, 255],
and edge strength maps high-threshold to 128.

exit status: 0 on success, 2 on a usage or input error (one line on stderr), 1 otherwise.
)";

int usageError(const std::string& message) {
    std::fprintf(stderr, "striate: error: %s\n", message.c_str());
    return kUsageError;
}

struct FilterArgs {
    std::string in, out, chain, raw, board;
    BackendKind backend = BackendKind::Auto;
    int threads = 0;
    int frames = 1;
    std::int64_t maxPixels = io::kDefaultMaxPixels;
    bool explain = false;
    bool chainGiven = false;
};

int runFilter(int argc, char** argv) {
    FilterArgs a;
    std::vector<std::string> positional, seen;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        // An option given twice is an error, not "the last one wins".
        if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
            if (std::find(seen.begin(), seen.end(), arg) != seen.end()) return usageError(arg + " is given twice");
            seen.push_back(arg);
        }
        auto value = [&](std::string* v) {
            if (i + 1 >= argc) return false;
            *v = argv[++i];
            return true;
        };
        std::string v;
        long long n = 0;
        // This option's value as an integer in 1..most, or the usage error that names it.
        auto integer = [&](long long most, long long* out) -> std::string {
            if (!value(&v)) return arg + " needs a value";
            char* end = nullptr;
            errno = 0;
            *out = std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || *end || errno || *out < 1 || *out > most)
                return arg + " '" + v + "' is not an integer in 1.." + std::to_string(most);
            return "";
        };
        if (arg == "-h" || arg == "--help") {
            std::fputs((kFilterHelp + describeStages(2) + kFilterHelpEnd).c_str(), stdout);
            return 0;
        } else if (arg == "--chain") {
            if (!value(&a.chain)) return usageError("--chain needs a value");
            a.chainGiven = true;
        } else if (arg == "--raw") {
            if (!value(&a.raw)) return usageError("--raw needs a file name");
        } else if (arg == "--backend") {
            if (!value(&v)) return usageError("--backend needs a value");
            if (Status s = parseBackendKind(v, &a.backend); !s) return usageError(s.message());
        } else if (arg == "--board") {
            if (!value(&a.board)) return usageError("--board needs a value");
        } else if (arg == "--threads") {
            if (const std::string e = integer(256, &n); !e.empty()) return usageError(e);
            a.threads = static_cast<int>(n);
        } else if (arg == "--frames") {
            if (const std::string e = integer(100000, &n); !e.empty()) return usageError(e);
            a.frames = static_cast<int>(n);
        } else if (arg == "--max-pixels") {
            if (const std::string e = integer(static_cast<long long>(kMaxDimension) * kMaxDimension, &n); !e.empty())
                return usageError(e);
            a.maxPixels = n;
        } else if (arg == "--explain") {
            a.explain = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usageError("unknown option '" + arg + "' (see striate filter --help)");
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() != 2) return usageError("filter needs IN and OUT (see striate filter --help)");
    if (!a.chainGiven) return usageError("filter needs --chain (see striate filter --help)");
    a.in = positional[0];
    a.out = positional[1];

    Chain chain;
    if (Status s = parseChain(a.chain, &chain); !s) return usageError(s.message());
    // Outputs that cannot be written fail now, not after a long frame.
    if (Status s = io::checkOutput(a.out, true); !s) return usageError(s.message());
    if (!a.raw.empty())
        if (Status s = io::checkOutput(a.raw, false); !s) return usageError(s.message());
    Image<std::uint8_t> luma;
    if (Status s = io::readLuma(a.in, &luma, a.maxPixels); !s) return usageError(s.message());

    std::unique_ptr<Backend> backend;
    const FrameFormat format{luma.width(), luma.height()};
    std::string fallback;
    if (Status s = startBackend(a.backend, BackendOptions{a.threads, a.board}, chain, format, &backend, &fallback); !s)
        return usageError(s.message());
    if (!fallback.empty()) std::fprintf(stderr, "striate: warning: %s; using the cpu backend\n", fallback.c_str());
    // One run of the frame; a GPU backend that fails on it gives one warning and the cpu runs it.
    auto run = [&](const auto& frame) {
        std::string warning;
        Status s = runWithCpuFallback(&backend, BackendOptions{a.threads, a.board}, chain, format, frame, &warning);
        if (!warning.empty()) std::fprintf(stderr, "striate: warning: %s\n", warning.c_str());
        return s;
    };
    // OUT is the backend's 8-bit output, the codes the elements give (process8: a real output),
    // or the magnitude of a complex one through process(); --raw is process()'s float output.
    ChainOutput result;
    Image<std::uint8_t> out8(format.width, format.height);
    const Output8 to8{out8.data(), out8.stride(), 1, chain.encoding()};
    const bool real = !chain.complexOutput();
    Status processed;
    for (int frame = 0; frame < a.frames && (frame == 0 || processed); ++frame)
        processed = real ? run([&](Backend& b) { return b.process8(luma.view(), to8); })
                         : run([&](Backend& b) { return b.process(luma.view(), &result); });
    // The frame's passes ran for the first time: what the driver compiled is known now (a GPU
    // backend's explain() then lists its statistics).
    if (a.explain) {
        std::printf("chain: %s\nbackend: %s\n", formatChain(chain).c_str(), backend->name());
        std::fputs(backend->explain().c_str(), stdout);
    }
    if (processed && real && !a.raw.empty()) processed = run([&](Backend& b) { return b.process(luma.view(), &result); });
    if (!processed) {
        std::fprintf(stderr, "striate: error: %s\n", processed.message().c_str());
        return 1;
    }
    if (!real)
        for (int y = 0; y < format.height; ++y)
            for (int x = 0; x < format.width; ++x) out8.at(x, y) = encode8(result.real.at(x, y), chain.encoding());
    if (Status s = io::writeGray(a.out, out8.view()); !s) return usageError(s.message());
    if (!a.raw.empty()) {
        Status s = result.complex ? io::writeNpy(a.raw, result.complexPlane) : io::writeNpy(a.raw, result.real);
        if (!s) return usageError(s.message());
    }
    return 0;
}

const char* kProbeHelp = R"(usage: striate probe [--json] [--board NAME] [--chain "..." [--size WxH]]

Makes a headless OpenGL ES context (EGL: Mesa surfaceless, a GBM render node, or the EGL device
platform; GLES 3.1, 3.0 or 2.0) and prints what it offers: version, renderer, maximum texture size,
compute limits, the float formats that really complete a framebuffer, shader precision; and the
board's device-tree model and the CPU's SIMD path. A machine without a GPU context says why.
Then the board profile (--board, else STRIATE_BOARD, else the device-tree model, else host) applied
to what was probed, and the backend `auto` picks (for --chain's chain when given). A profile that
needs what this machine lacks is an error naming the capability (exit status 2). On a Pi board
(rpi3, rpi4, rpi5) also the board's estimates, GPU and cpu, for chains ending in each kind of
stage, and which is the lower: what `auto` follows on that board's own GPU until `striate
selftest` has measured (docs/boards.md).

With --chain: the memory each backend's plan of that chain holds at --size (default 1920x1080)
on this board: GPU memory (textures, buffers, renderbuffers) and host memory (planes, scratch).
A GPU backend whose plan exceeds what the board lends it says so, as an element would on caps.
On a Pi board also gles-fragment's estimate of a frame, per pass (the larger of an issue, a
texture and a memory bound, and a fixed cost a draw, from the board's published figures and a fit
to its real compiler's counts), and the forms its planner chose by it with the alternatives'
estimates: estimates, not measurements (docs/boards.md).
)";

int runProbe(int argc, char** argv) {
    bool json = false;
    std::string board, chainText, size;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(kProbeHelp, stdout);
            return 0;
        }
        if (arg == "--json") json = true;
        else if ((arg == "--chain" || arg == "--size") && i + 1 >= argc) return usageError(arg + " needs a value");
        else if (arg == "--chain") chainText = argv[++i];
        else if (arg == "--size") size = argv[++i];
        else if (arg == "--board" && !board.empty()) return usageError("--board is given twice");
        else if (arg == "--board" && i + 1 < argc) board = argv[++i];
        else if (arg == "--board") return usageError("--board needs a value");
        else return usageError("unknown option '" + arg + "' (see striate probe --help)");
    }
    Chain chain;
    FrameFormat format{1920, 1080};
    if (!size.empty() && chainText.empty()) return usageError("--size needs --chain");
    if (!chainText.empty())
        if (Status s = parseChain(chainText, &chain); !s) return usageError(s.message());
    if (!size.empty()) {
        char end = 0;
        if (std::sscanf(size.c_str(), "%dx%d%c", &format.width, &format.height, &end) != 2)
            return usageError("--size '" + size + "' is not WxH");
        if (Status s = validateFrameFormat(format); !s) return usageError(s.message());
    }
#ifdef STRIATE_HAVE_GLES
    ProbeReport report;
    const Status s = probeReport(board, chainText.empty() ? nullptr : &chain, format, &report);
    if (!report.json.empty()) std::fputs(json ? (report.json + "\n").c_str() : report.text.c_str(), stdout);
    if (!s) return usageError(s.message());
    return 0;
#else
    (void)json;
    return usageError("this build has no GLES support (configure with STRIATE_WITH_GLES=ON)");
#endif
}

int runSelftest(int argc, char** argv) {
#ifdef STRIATE_HAVE_GLES
    return selftest::command(argc, argv, {});
#else
    (void)argc;
    (void)argv;
    return usageError("this build has no GLES support (configure with STRIATE_WITH_GLES=ON)");
#endif
}

/// `striate bench` runs the benchmark program built beside this one (it links OpenCV, a
/// bench-only dependency, which the tool itself does not).
int runBench(int argc, char** argv) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path bench = self.parent_path() / "striate-bench";
    if (ec || !std::filesystem::exists(bench))
        return usageError("striate bench needs " + bench.string() +
                          ", which the striate package leaves out (it links OpenCV, a benchmark-only dependency): "
                          "build Striate from its sources (scripts/deps.sh installs libopencv-dev; "
                          "STRIATE_BUILD_BENCH=ON, the default) and run build/bin/striate bench");
    std::vector<char*> args;
    std::string program = bench.string();
    args.push_back(program.data());
    for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(program.c_str(), args.data());
    std::fprintf(stderr, "striate: error: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(kMainHelp, stderr);
        return kUsageError;
    }
    const std::string command = argv[1];
    if (command == "-h" || command == "--help" || command == "help") {
        std::fputs(kMainHelp, stdout);
        return 0;
    }
    if (command == "--version") {
        std::printf("striate %s (%s)\n", STRIATE_VERSION, cpu::simdPath());
        return 0;
    }
    try {
        if (command == "filter") return runFilter(argc - 2, argv + 2);
        if (command == "bench") return runBench(argc - 2, argv + 2);
        if (command == "probe") return runProbe(argc - 2, argv + 2);
        if (command == "selftest") return runSelftest(argc - 2, argv + 2);
    } catch (const std::bad_alloc&) {
        // A frame within --max-pixels can still exceed a small board's memory: one line, no abort.
        std::fprintf(stderr, "striate: error: out of memory (a smaller image or --max-pixels refuses it earlier)\n");
        return 1;
    }
    return usageError("unknown command '" + command + "' (expected filter, probe, selftest or bench; see striate --help)");
}
