// `striate selftest`'s command line (the tool calls it; a test-only program calls it with a
// deliberately wrong backend, tests/tools/wrong_backend.cpp).
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/params.h"
#include "tools/selftest/report.h"
#include "tools/selftest/selftest.h"

namespace striate::selftest {
namespace {

const char* kSelftestHelp = R"(usage: striate selftest [--board P] [--backend B|all] [--quick|--full] [--json FILE]
                        [--report DIR] [--data DIR]

The on-device regression test: a fixed battery (every stage x method x output, at 1x1, 17x13,
64x48 and 640x480; --full also 1280x720 and every board profile this machine can honour) on the
synthetic camera's shapes and on a real photo, run on every backend the device can run (cpu,
gles-compute, gles-fragment) under the board's profile. Each result is checked against the
reference backend run here, within docs/algorithms.md section 8, and the reference against goldens
made on the development machine (so a reference that is wrong here is caught too). Then each
filter element of the plugin GStreamer finds (a build tree's tool: the plugin beside it) runs
through appsrc ! element ! appsink on every backend, in every 8-bit input format but packed 4:2:2 at 131x67 with odd
strides (the GLES backends: GRAY8, NV12 and BGRx; --full: every format), and must give the same
output codes as the same backend run directly (check "element").

Prints one row per case (PASS/FAIL/n/a, backend, profile, check, chain, input, size, largest
error, budget, ms per frame), then every failure by name and a summary. It then times each backend
on every stage's main chains (below) at 640x480 (--full: and 1280x720) and stores the times for backend=auto ($XDG_CACHE_HOME/striate/<board>-<renderer>.json): auto
then picks the backend measured fastest here (striate probe says which rule chose).

options:
  --board NAME     board profile: auto (default), rpi0..rpi3, rpi4, rpi5, tight or host
  --backend NAME   cpu, gles-compute or gles-fragment (repeatable); all (default)
  --quick          the default battery (under 20 s on a 2-core PC with Mesa llvmpipe)
  --full           every chain at every size and profile (under 5 minutes there)
  --json FILE      also write the rows and times as JSON, for a fleet's CI
  --report DIR     also write DIR/index.html: per backend and chain the input, the reference,
                   the output and an error heat map side by side (failing cases first), and a
                   chart of the times; open it in a browser, no server needed
  --data DIR       the photo and goldens (default: ../share/striate beside the tool)
  --no-measure     skip the timing (auto keeps what was measured before)
  --write-goldens DIR   (development) write the reference's outputs of the golden cases into DIR
)";
const char* kSelftestHelpEnd = R"(
exit status: 0 all pass, 1 a regression (each named), 2 usage.
)";

/// The photo and goldens: beside the tool (../share/striate), installed or in a build tree (where
/// it is a link to the sources' tests/data).
std::string defaultDataDir() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return (self.parent_path().parent_path() / "share" / "striate").string();
}

std::string rowText(const Row& r) {
    char error[32] = "-", budget[32] = "-";
    if (r.ran && std::isfinite(r.accuracy.error)) std::snprintf(error, sizeof error, "%.3g", r.accuracy.error);
    if (r.ran && r.accuracy.budget > 0) std::snprintf(budget, sizeof budget, "%.3g", r.accuracy.budget);
    char line[512];
    std::snprintf(line, sizeof line, "%-4s %-13s %-5s %-9s %-72s %-6s %4dx%-4d %9s %9s %8.2f", !r.ran ? "n/a" : r.accuracy.pass ? "PASS" : "FAIL",
                  r.backend.c_str(), r.profile.c_str(), r.check.c_str(), r.c.chain.c_str(), r.c.input.c_str(), r.c.width,
                  r.c.height, error, budget, r.ms);
    return std::string(line) + (r.note.empty() ? "" : "  (" + r.note + ")");
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "striate: error: %s\n", message.c_str());
    return 2;
}

} // namespace

int command(int argc, char** argv, const BackendMaker& make) {
    Options o;
    o.make = make;
    std::string json, goldens, reportDir;
    o.dataDir = defaultDataDir();
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](std::string* v) {
            if (i + 1 >= argc) return false;
            *v = argv[++i];
            return true;
        };
        std::string v;
        if (arg == "-h" || arg == "--help") {
            std::fputs(kSelftestHelp, stdout);
            std::fputs("\nmain chains (timed for auto; each stage's table, core/params.cpp):\n", stdout);
            for (const StageInfo& stage : stageInfos())
                for (const char* chain : stage.timed) std::printf("  %s\n", chain);
            std::fputs(kSelftestHelpEnd, stdout);
            return 0;
        } else if (arg == "--board") {
            if (!value(&o.board)) return usageError("--board needs a value");
        } else if (arg == "--backend") {
            if (!value(&v)) return usageError("--backend needs a value");
            const auto kind = fromNick(kBackendKinds, v);
            if (v == "all") continue;
            if (!kind || *kind == BackendKind::Auto || *kind == BackendKind::Reference)
                return usageError("unknown backend '" + v + "' (expected cpu, gles-compute, gles-fragment or all)");
            o.backends.push_back(*kind);
        } else if (arg == "--quick") {
            o.full = false;
        } else if (arg == "--full") {
            o.full = true;
        } else if (arg == "--json") {
            if (!value(&json)) return usageError("--json needs a file name");
        } else if (arg == "--report") {
            if (!value(&reportDir)) return usageError("--report needs a directory");
        } else if (arg == "--data") {
            if (!value(&o.dataDir)) return usageError("--data needs a directory");
        } else if (arg == "--no-measure") {
            o.measure = false;
        } else if (arg == "--write-goldens") {
            if (!value(&goldens)) return usageError("--write-goldens needs a directory");
        } else {
            return usageError("unknown option '" + arg + "' (see striate selftest --help)");
        }
    }
    if (!goldens.empty()) {
        if (Status s = writeGoldens(o.dataDir, goldens); !s) return usageError(s.message());
        std::printf("goldens written into %s\n", goldens.c_str());
        return 0;
    }
    std::printf("%-4s %-13s %-5s %-9s %-72s %-6s %9s %9s %9s %8s\n", "", "backend", "board", "check", "chain", "input",
                "size", "error", "budget", "ms");
    o.progress = [](const Row& r) {
        std::printf("%s\n", rowText(r).c_str());
        std::fflush(stdout);
    };
    HtmlReport html;
    if (!reportDir.empty())
        o.images = [&](const Row& r, const Chain& chain, const Image<std::uint8_t>& in, const ChainOutput& ref,
                       const ChainOutput& out) { html.offer(r, chain, in, ref, out); };
    const auto t0 = std::chrono::steady_clock::now();
    Report report;
    if (Status s = run(o, &report); !s) return usageError(s.message());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int notRun = 0;
    for (const Row& r : report.rows) notRun += !r.ran;
    for (const Row& r : report.rows)
        if (r.ran && !r.accuracy.pass) std::printf("regression: %s\n", rowText(r).c_str());
    if (!report.measurementsPath.empty()) {
        std::printf("timings (ms per frame, mean of 3), stored for backend=auto in %s:\n", report.measurementsPath.c_str());
        for (const Timing& t : report.measurements.timings)
            std::printf("  %-42s %4dx%-4d %-13s %9.2f\n", t.chain.c_str(), t.width, t.height, nickOf(kBackendKinds, t.backend), t.ms);
    }
    if (!report.plugin.empty()) std::printf("elements: the plugin %s\n", report.plugin.c_str());
    std::printf("selftest: %zu rows on board %s, %d failed, %d not run (the backend cannot run there), %.1f s\n",
                report.rows.size(), report.profiles.front().c_str(), report.failures(), notRun, seconds);
    if (!reportDir.empty()) {
        if (Status s = html.write(reportDir, report); !s) return usageError(s.message());
        std::printf("report: %s/index.html\n", reportDir.c_str());
    }
    if (!json.empty()) {
        std::FILE* f = std::fopen(json.c_str(), "w");
        const std::string text = formatJson(report);
        if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0)
            return usageError("cannot write '" + json + "': " + std::strerror(errno));
    }
    return report.failures() ? 1 : 0;
}


} // namespace striate::selftest
