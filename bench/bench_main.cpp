// striate-bench: times the cpu backend against OpenCV on one real photo at several sizes, both with
// the same number of threads, and prints medians, spreads and the ratio ours / OpenCV.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <unistd.h>

#include "board/backend_choice.h"
#include "core/chain.h"
#include "core/params.h"
#include "cpu/neon/avx2.h"
#include "cpu/neon/cpu_backend.h"
#include "cpu/neon/neon.h"
#include "io/image_io.h"

namespace {

using namespace striate;
using Clock = std::chrono::steady_clock;

/// The OpenCV features above 128-bit SIMD on x86: disabling them leaves SSE up to 4.2, the width
/// of NEON. OpenCV names AVX-512 "AVX512-SKX" here (its CPU_DISABLE list ignores "AVX512_SKX",
/// with a warning, and would keep dispatching to it).
constexpr const char* kWiderThan128 = "AVX512-SKX,AVX2,FMA3,AVX,FP16";

const char* kHelp = R"(usage: striate bench [options]

Times the cpu backend against OpenCV on the same real photo (resized), same thread count, and
prints one row per filter: our median ms, OpenCV's median ms, their spreads (min..max) and the
ratio ours / OpenCV (below 1: we are faster), then the memory our backend holds for the row's chain
(GPU and host for a GLES backend; bench/memory.sh counts it independently). Blur rows come in pairs: 8-bit out (what an
element writes, process8) against OpenCV's u8 GaussianBlur, float out against its f32 one.

The rows run twice: both sides as built (every SIMD extension this CPU has: on x86 with AVX2
our 8-bit blur and float direct FIR run at 256 bits), then, in a second process, both held to
128-bit SIMD (OPENCV_CPU_DISABLE=%s, STRIATE_CPU_DISABLE=AVX2): NEON's width,
what a Raspberry Pi would see. Each run names the OpenCV features it had and our width.

options:
  --size WxH      one size instead of 640x480, 1280x720 and 1920x1080
  --photo FILE    the photo (default: scikit-image's motorcycle_left.png from python3-skimage)
  --repeat N      timed runs per row, ours and the peer's alternating (default 15)
  --threads N     threads for both sides (default 2)
  --sigmas LIST   the blur rows' sigmas, comma-separated (default 1,2,4,8,16,32)
  --gabor-sigmas LIST  the Gabor rows' sigmas (default 2,4,8; wavelength 2 sigma; at 0, 30 and
                  90 degrees, each method named at 0 and 90 against sepFilter2D; and the
                  6-orientation bank, the maximum of the magnitudes, against six OpenCV Gabors)
  --only TEXT     only the rows whose filter contains TEXT (e.g. "canny", "sigma=8")
  --gles          instead: each GLES backend and board profile against the cpu backend
                  (640x480 and 1280x720 unless --size), one row per chain
  --json FILE     also write the rows as JSON (the 128-bit run's to FILE with -simd128 added)
  --opencv WHICH  built, simd128 or both (default both)
  -h, --help      this text
)";

/// The SIMD features OpenCV dispatches to in this process.
std::string opencvFeatures() {
    const std::pair<int, const char*> features[] = {
        {CV_CPU_SSE2, "SSE2"}, {CV_CPU_SSE4_2, "SSE4.2"}, {CV_CPU_AVX, "AVX"}, {CV_CPU_FMA3, "FMA3"},
        {CV_CPU_AVX2, "AVX2"}, {CV_CPU_AVX512_SKX, "AVX512-SKX"}, {CV_CPU_NEON, "NEON"}};
    std::string s;
    for (auto [id, name] : features)
        if (cv::checkHardwareSupport(id)) {
            if (!s.empty()) s += ' ';
            s += name;
        }
    return s.empty() ? "none" : s;
}

struct Timing {
    double median = 0, min = 0, max = 0;
};

Timing summarize(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

double elapsedMs(const std::function<void()>& fn) {
    const auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Times two functions in alternation, so both see the same background load: on a shared
/// machine the load drifts by tens of percent within a minute, and sequential timing would put
/// that drift into the ratio. One warm-up call each (first-frame allocations, OpenCV's pool).
std::pair<Timing, Timing> timePair(int repeat, const std::function<void()>& a, const std::function<void()>& b) {
    a();
    b();
    std::vector<double> ta, tb;
    for (int i = 0; i < repeat; ++i) {
        ta.push_back(elapsedMs(a));
        tb.push_back(elapsedMs(b));
    }
    return {summarize(ta), summarize(tb)};
}

struct Row {
    std::string size, filter, peer;
    Timing ours, theirs;
    MemoryUse memory;  ///< what our backend holds for the row's chain (Backend::memory)
};

/// A row's memory as the table shows it: "7.9 MiB", or "15.8 MiB GPU + 8.1 MiB" on a GPU backend.
std::string describeMemory(const MemoryUse& m) {
    if (m.gpu == 0 && m.host == 0) return "-";
    return m.gpu ? describeBytes(m.gpu) + " GPU + " + describeBytes(m.host) : describeBytes(m.host);
}

/// Prints one row: ours against the peer, with spreads and the ratio.
void printRow(const Row& r) {
    char oursSpread[32], peerSpread[32];
    std::snprintf(oursSpread, sizeof oursSpread, "%.2f..%.2f", r.ours.min, r.ours.max);
    std::snprintf(peerSpread, sizeof peerSpread, "%.2f..%.2f", r.theirs.min, r.theirs.max);
    std::printf("%-10s %-44s %-34s %9.2f %17s %9.2f %17s %7.3f  %s\n", r.size.c_str(), r.filter.c_str(), r.peer.c_str(),
                r.ours.median, oursSpread, r.theirs.median, peerSpread, r.ours.median / r.theirs.median,
                describeMemory(r.memory).c_str());
    std::fflush(stdout);
}

/// Each GLES backend under each board profile against the cpu backend, frame in, result read
/// back (what an element pays per frame), alternating.
Status benchGles(const std::vector<std::pair<int, int>>& sizes, const Image<std::uint8_t>& original, int repeat,
                 int threads, const std::string& only, std::vector<Row>* rows) {
#ifdef STRIATE_HAVE_GLES
    // The blur's sigma and method sweep, then each stage's first example chain (its table's
    // catalogue, as selftest and the tests run it) that the sweep lacks.
    std::vector<std::string> chains = {"blur sigma=2", "blur sigma=3 method=recursive", "blur sigma=8 method=recursive",
                                       "blur sigma=16 method=recursive", "blur sigma=48 method=recursive",
                                       "blur sigma=8 method=boxes", "gabor sigma=4 wavelength=8 orientation=30", "edges"};
    for (const StageInfo& stage : stageInfos())
        if (std::find(chains.begin(), chains.end(), stage.examples.front()) == chains.end())
            chains.push_back(stage.examples.front());
    // gles-fragment's forms beside its default: the recursive filters' (recursive blurs and Gabor
    // chains) and the hysteresis's draws (edges).
    struct Target {
        BackendKind kind;
        const char* board;
        gles::RecursiveForm form = gles::RecursiveForm::Auto;
        gles::HysteresisForm hysteresis = gles::FragmentOptions{}.hysteresis;
        bool appliesTo(const std::string& text) const {
            if (form != gles::RecursiveForm::Auto) return text.find("recursive") != std::string::npos || text.find("gabor") != std::string::npos;
            if (hysteresis != gles::FragmentOptions{}.hysteresis) return text.find("edges") != std::string::npos;
            return true;
        }
        std::string name() const {
            return std::string(nickOf(kBackendKinds, kind)) + " " + board +
                   (form != gles::RecursiveForm::Auto ? std::string(" ") + nickOf(gles::kRecursiveForms, form) : std::string()) +
                   (hysteresis != gles::FragmentOptions{}.hysteresis
                        ? std::string(" hysteresis ") + nickOf(gles::kHysteresisForms, hysteresis)
                        : std::string());
        }
    };
    constexpr gles::RecursiveForm kAuto = gles::RecursiveForm::Auto;
    constexpr gles::HysteresisForm kDraws = gles::HysteresisForm::Draws;
    const Target targets[] = {{BackendKind::GlesCompute, "host"},
                              {BackendKind::GlesFragment, "host"},
                              {BackendKind::GlesFragment, "host", gles::RecursiveForm::Strips},
                              {BackendKind::GlesFragment, "host", gles::RecursiveForm::Block},
                              {BackendKind::GlesFragment, "host", kAuto, kDraws},
                              {BackendKind::GlesFragment, "rpi3"},
                              {BackendKind::GlesFragment, "rpi3", gles::RecursiveForm::Strips},
                              {BackendKind::GlesFragment, "rpi3", gles::RecursiveForm::Block},
                              {BackendKind::GlesFragment, "rpi3", kAuto, kDraws},
                              {BackendKind::GlesFragment, "tight"}};
    for (auto [W, H] : sizes) {
        const cv::Mat src(original.height(), original.width(), CV_8UC1, const_cast<std::uint8_t*>(original.data()),
                          original.stride());
        cv::Mat u8;
        cv::resize(src, u8, cv::Size(W, H), 0, 0, cv::INTER_CUBIC);
        const ImageView<const std::uint8_t> view(u8.ptr<std::uint8_t>(), W, H, static_cast<std::ptrdiff_t>(u8.step));
        const std::string size = std::to_string(W) + "x" + std::to_string(H);
        for (const std::string& text : chains) {
            if (!only.empty() && text.find(only) == std::string::npos) continue;
            Chain chain;
            (void)parseChain(text, &chain);
            cpu::CpuBackend cpuBackend(threads);
            if (Status s = cpuBackend.configure(chain, FrameFormat{W, H}); !s) return s;
            for (const Target& t : targets) {
                if (!t.appliesTo(text)) continue;
                const BackendOptions options{threads, t.board};
                gles::FragmentOptions forms;
                forms.recursiveForm = t.form;
                forms.hysteresis = t.hysteresis;
                std::unique_ptr<Backend> gpu;
                std::string fallback;
                if (Status s = startBackendWithForms(t.kind, options, forms, chain, FrameFormat{W, H}, &gpu, &fallback); !s)
                    return s;
                const std::string name = t.name();
                if (!fallback.empty()) {
                    std::printf("%-10s %-44s skipped: %s\n", size.c_str(), (std::string(text) + " on " + name).c_str(),
                                fallback.c_str());
                    continue;
                }
                ChainOutput out;
                auto [a, b] = timePair(repeat, [&] { (void)gpu->process(view, &out); },
                                       [&] { (void)cpuBackend.process(view, &out); });
                rows->push_back({size, std::string(text) + " on " + name, "cpu backend", a, b, gpu->memory()});
                printRow(rows->back());
            }
        }
    }
    return {};
#else
    (void)sizes, (void)original, (void)repeat, (void)threads, (void)only, (void)rows;
    return Status::error("--gles needs a build with GLES (STRIATE_WITH_GLES=ON)");
#endif
}

/// A comma-separated list of sigmas into *out; what is wrong with it, or "".
std::string parseSigmas(const std::string& v, std::vector<double>* out) {
    out->clear();
    for (std::size_t at = 0; at < v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        char* end = nullptr;
        const std::string item = v.substr(at, comma - at);
        const double sigma = std::strtod(item.c_str(), &end);
        if (item.empty() || *end || !(sigma >= kMinSigma && sigma <= kMaxSigma))
            return "'" + item + "' is not a sigma in 0.3..256";
        out->push_back(sigma);
        at = comma + 1;
    }
    return out->empty() ? "needs at least one sigma" : "";
}

int usage(const std::string& m) {
    std::fprintf(stderr, "striate-bench: error: %s\n", m.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::pair<int, int>> sizes = {{640, 480}, {1280, 720}, {1920, 1080}};
    std::string photo = "/usr/lib/python3/dist-packages/skimage/data/motorcycle_left.png";
    std::string json, only;
    int repeat = 15, threads = 2;
    bool gles = false;
    std::string opencv = "both";
    std::vector<double> sigmas = {1, 2, 4, 8, 16, 32}, gaborSigmas = {2, 4, 8};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "-h" || a == "--help") {
            std::printf(kHelp, kWiderThan128);
            return 0;
        } else if (a == "--size") {
            int w = 0, h = 0;
            const std::string v = next();
            if (std::sscanf(v.c_str(), "%dx%d", &w, &h) != 2 || w < 8 || h < 8 || w > 8192 || h > 8192)
                return usage("--size '" + v + "' is not WxH with sides in 8..8192");
            sizes = {{w, h}};
        } else if (a == "--photo") {
            photo = next();
        } else if (a == "--repeat") {
            repeat = std::atoi(next().c_str());
            if (repeat < 1 || repeat > 1000) return usage("--repeat must be in 1..1000");
        } else if (a == "--threads") {
            threads = std::atoi(next().c_str());
            if (threads < 1 || threads > 256) return usage("--threads must be in 1..256");
        } else if (a == "--sigmas" || a == "--gabor-sigmas") {
            std::vector<double>& list = a == "--sigmas" ? sigmas : gaborSigmas;
            if (std::string bad = parseSigmas(next(), &list); !bad.empty()) return usage(a + ": " + bad);
        } else if (a == "--only") {
            only = next();
        } else if (a == "--json") {
            json = next();
        } else if (a == "--opencv") {
            opencv = next();
            if (opencv != "built" && opencv != "simd128" && opencv != "both")
                return usage("--opencv '" + opencv + "' is not built, simd128 or both");
        } else if (a == "--gles") {
            gles = true;
            if (sizes.size() == 3) sizes = {{640, 480}, {1280, 720}};
        } else {
            return usage("unknown option '" + a + "' (see striate bench --help)");
        }
    }
    Image<std::uint8_t> original;
    if (Status s = io::readLuma(photo, &original); !s) return usage(s.message());
    cv::setNumThreads(threads);
    const char* held = std::getenv("OPENCV_CPU_DISABLE");
    if (opencv == "simd128" && (!held || std::string(held) != kWiderThan128)) {
        // OpenCV reads the variable once, when it loads: run again with it set.
        setenv("OPENCV_CPU_DISABLE", kWiderThan128, 1);
        execv("/proc/self/exe", argv);
        return usage(std::string("cannot run again with OPENCV_CPU_DISABLE set: ") + std::strerror(errno));
    }
    // Ours at 128 bits too (read when a CpuBackend is made).
    if (opencv == "simd128") setenv("STRIATE_CPU_DISABLE", "AVX2", 1);
    std::printf("striate bench: photo %s, %d threads each, %d runs per row, cpu path %s (8-bit blur and float FIR at %d bits), OpenCV %s (%s: %s)\n",
                photo.c_str(), threads, repeat, cpu::simdPathName(), cpu::runsAvx2() ? 256 : 128, CV_VERSION,
                opencv == "simd128" ? "held to 128-bit SIMD" : "as built", opencvFeatures().c_str());
    std::printf("%-10s %-44s %-34s %9s %17s %9s %17s %7s  %s\n", "size", gles ? "striate (GLES backend, board)" : "striate (cpu)",
                gles ? "peer" : "OpenCV", "ours ms", "ours min..max", gles ? "peer ms" : "cv ms",
                gles ? "peer min..max" : "cv min..max", "ratio", "ours memory");

    std::vector<Row> rows;
    if (gles) {
        if (Status s = benchGles(sizes, original, repeat, threads, only, &rows); !s) return usage(s.message());
        sizes.clear();
    }
    for (auto [W, H] : sizes) {
        const cv::Mat src(original.height(), original.width(), CV_8UC1, original.data(), original.stride());
        cv::Mat u8;
        cv::resize(src, u8, cv::Size(W, H), 0, 0, cv::INTER_CUBIC);
        cv::Mat f32;
        u8.convertTo(f32, CV_32F, 1.0 / 255);
        const ImageView<const std::uint8_t> view(u8.ptr<std::uint8_t>(), W, H, static_cast<std::ptrdiff_t>(u8.step));
        const std::string size = std::to_string(W) + "x" + std::to_string(H);
        cpu::CpuBackend backend(threads);

        auto wanted = [&](const std::string& filter) { return only.empty() || filter.find(only) != std::string::npos; };
        // Configures the backend for a chain and returns the function that runs one frame.
        Image<std::uint8_t> codes(W, H);
        auto ours = [&](const std::string& chainText, bool eightBit = false) -> std::function<void()> {
            Chain chain;
            if (Status s = parseChain(chainText, &chain); !s) std::abort();
            if (Status s = backend.configure(chain, FrameFormat{W, H}); !s) std::abort();
            if (eightBit)
                return [&, e = chain.encoding()] {
                    (void)backend.process8(view, Output8{codes.data(), codes.stride(), 1, e});
                };
            return [&] {
                ChainOutput out;
                (void)backend.process(view, &out);
            };
        };
        // The backend is configured for the row's chain when its row is added.
        auto add = [&](const std::string& filter, const std::string& peer, Timing a, Timing b) {
            rows.push_back({size, filter, peer, a, b, filter.rfind("memcpy", 0) == 0 ? MemoryUse{} : backend.memory()});
            printRow(rows.back());
        };

        cv::Mat dst, dst2, mag;
        if (wanted("memcpy")) {
            // The memory-bandwidth floor of an 8-bit filter: the frame read once and written once,
            // on one thread, against OpenCV's fastest blur.
            auto [a, b] = timePair(repeat, [&] {
                for (int y = 0; y < H; ++y) std::memcpy(codes.row(y), view.row(y), static_cast<std::size_t>(W));
            }, [&] { cv::GaussianBlur(u8, dst, cv::Size(0, 0), 1.0, 1.0, cv::BORDER_REPLICATE); });
            add("memcpy of the frame (bandwidth floor)", "GaussianBlur u8 sigma 1", a, b);
        }
        for (double sigma : sigmas) {
            auto cvU8 = [&] { cv::GaussianBlur(u8, dst, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE); };
            auto cvF32 = [&] { cv::GaussianBlur(f32, dst, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE); };
            for (const char* m : {"auto", "direct", "boxes", "recursive"}) {
                char chain[96];
                std::snprintf(chain, sizeof chain, "blur sigma=%g method=%s", sigma, m);
                if (!wanted(chain)) continue;
                auto [a, b] = timePair(repeat, ours(chain, true), cvU8);
                add(std::string(chain) + " u8 out", "GaussianBlur u8", a, b);
                std::tie(a, b) = timePair(repeat, ours(chain), cvF32);
                add(std::string(chain) + " f32 out", "GaussianBlur f32", a, b);
            }
        }
        if (wanted("blur sigma=32 method=auto")) {
            // Constant time: sigma 32 against sigma 4, both ours, alternating (two backends).
            cpu::CpuBackend other(threads);
            Chain c32, c4;
            (void)parseChain("blur sigma=32", &c32);
            (void)parseChain("blur sigma=4", &c4);
            (void)backend.configure(c32, FrameFormat{W, H});
            (void)other.configure(c4, FrameFormat{W, H});
            ChainOutput out;
            auto [a, b] = timePair(repeat, [&] { (void)backend.process(view, &out); },
                                   [&] { (void)other.process(view, &out); });
            add("blur sigma=32 method=auto", "striate blur sigma=4 (constant time)", a, b);
        }
        for (double sigma : gaborSigmas) {
            const double lambda = 2 * sigma;  // one octave: the usual pairing, 8 at sigma 4
            const int R = static_cast<int>(std::ceil(4 * sigma));
            // OpenCV's complex Gabor at theta into `out` (its magnitude): at 0 and 90 degrees the
            // kernel separates, g(y) times g(x) cos / sin (w x) (x and y swapped at 90), and runs as
            // two sepFilter2D calls; elsewhere two filter2D calls (real and imaginary
            // getGaborKernel, DFT-based at these sizes). Then magnitude.
            cv::Mat g(1, 2 * R + 1, CV_32F), gc(1, 2 * R + 1, CV_32F), gs(1, 2 * R + 1, CV_32F);
            for (int t2 = -R; t2 <= R; ++t2) {
                const double e = std::exp(-t2 * t2 / (2 * sigma * sigma));
                g.at<float>(t2 + R) = static_cast<float>(e);
                gc.at<float>(t2 + R) = static_cast<float>(e * std::cos(2 * std::numbers::pi * t2 / lambda));
                gs.at<float>(t2 + R) = static_cast<float>(e * std::sin(2 * std::numbers::pi * t2 / lambda));
            }
            auto peerGabor = [&, R, sigma, lambda](double theta, bool separable) -> std::function<void(cv::Mat&)> {
                if (separable) {
                    const bool alongX = theta == 0;
                    return [&, alongX](cv::Mat& out) {
                        cv::sepFilter2D(f32, dst, CV_32F, alongX ? gc : g, alongX ? g : gc, cv::Point(-1, -1), 0,
                                        cv::BORDER_REPLICATE);
                        cv::sepFilter2D(f32, dst2, CV_32F, alongX ? gs : g, alongX ? g : gs, cv::Point(-1, -1), 0,
                                        cv::BORDER_REPLICATE);
                        cv::magnitude(dst, dst2, out);
                    };
                }
                const double th = theta * std::numbers::pi / 180;
                const cv::Mat kre = cv::getGaborKernel(cv::Size(2 * R + 1, 2 * R + 1), sigma, th, lambda, 1, 0, CV_32F);
                const cv::Mat kim = cv::getGaborKernel(cv::Size(2 * R + 1, 2 * R + 1), sigma, th, lambda, 1,
                                                       std::numbers::pi / 2, CV_32F);
                return [&, kre, kim](cv::Mat& out) {
                    cv::filter2D(f32, dst, CV_32F, kre, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
                    cv::filter2D(f32, dst2, CV_32F, kim, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
                    cv::magnitude(dst, dst2, out);
                };
            };
            for (double theta : {0.0, 30.0, 90.0}) {
                char chain[128];
                std::snprintf(chain, sizeof chain, "gabor sigma=%g wavelength=%g orientation=%g", sigma, lambda, theta);
                const std::string methods[] = {std::string(chain) + " method=direct", std::string(chain) + " method=recursive"};
                const bool autoRows = wanted(chain);
                if (!autoRows && !wanted(methods[0]) && !wanted(methods[1])) continue;
                const auto run = ours(chain);
                if (autoRows && theta != 90) {  // filter2D's time does not depend on the orientation
                    auto [t, full] = timePair(repeat, run, [&, peer = peerGabor(theta, false)] { peer(mag); });
                    add(chain, "filter2D complex Gabor", t, full);
                }
                if (theta != 30) {
                    const auto separable = [&, peer = peerGabor(theta, true)] { peer(mag); };
                    if (autoRows) {
                        auto [t2, sep] = timePair(repeat, run, separable);
                        add(chain, "sepFilter2D complex Gabor", t2, sep);
                    }
                    // Each method named, against the same peer: the crossover auto follows.
                    for (const std::string& named : methods) {
                        if (!wanted(named)) continue;
                        auto [t2, sep] = timePair(repeat, ours(named), separable);
                        add(named, "sepFilter2D complex Gabor", t2, sep);
                    }
                }
            }
            // The main job's bank: six orientations, the maximum of their magnitudes. OpenCV has
            // no bank: each orientation as above (separable at 0 and 90), then the running maximum.
            char bank[128];
            std::snprintf(bank, sizeof bank, "gabor sigma=%g wavelength=%g orientations=6", sigma, lambda);
            if (wanted(bank)) {
                std::vector<std::function<void(cv::Mat&)>> peers;
                for (double theta = 0; theta < 180; theta += 30) peers.push_back(peerGabor(theta, theta == 0 || theta == 90));
                cv::Mat best;
                auto [t, peer] = timePair(repeat, ours(bank), [&] {
                    peers[0](best);
                    for (std::size_t k = 1; k < peers.size(); ++k) {
                        peers[k](mag);
                        cv::max(best, mag, best);
                    }
                });
                add(bank, "6 x (sep)filter2D Gabor, max", t, peer);
            }
        }
        if (wanted("edges method=canny sigma=1.4")) {
            // Thresholds in OpenCV's 3x3 Sobel units: 8 * 255 times ours (gradient of the unit image).
            const EdgeSpec e;
            const double scale = 8 * 255.0;
            auto [t, peer] = timePair(repeat, ours("edges sigma=1.4", true), [&] {
                cv::GaussianBlur(u8, dst, cv::Size(0, 0), 1.4, 1.4, cv::BORDER_REPLICATE);
                cv::Canny(dst, dst2, e.lowThreshold * scale, e.highThreshold * scale, 3, true);
            });
            add("edges method=canny sigma=1.4", "GaussianBlur + Canny L2", t, peer);
        }
        if (wanted("threshold")) {
            // OpenCV's Gaussian adaptive threshold takes an odd block size and derives its sigma
            // from it (getGaussianKernel): ours runs at that sigma; C in codes is 255 x offset.
            const int block = 25;
            const double sigma = 0.3 * ((block - 1) * 0.5 - 1) + 0.8, offset = 0.02;
            char chain[96];
            std::snprintf(chain, sizeof chain, "threshold sigma=%g offset=%g", sigma, offset);
            auto [t, peer] = timePair(repeat, ours(chain, true), [&] {
                cv::adaptiveThreshold(u8, dst, 255, cv::ADAPTIVE_THRESH_GAUSSIAN_C, cv::THRESH_BINARY, block, offset * 255);
            });
            add(chain, "adaptiveThreshold Gaussian, block 25", t, peer);
        }
    }
    if (!json.empty()) {
        if (opencv == "simd128") json = json.substr(0, json.rfind(".json")) + "-simd128.json";
        std::FILE* f = std::fopen(json.c_str(), "w");
        if (!f) return usage("cannot write '" + json + "'");
        std::fprintf(f, "[\n");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            std::fprintf(f,
                         "  {\"size\": \"%s\", \"filter\": \"%s\", \"peer\": \"%s\", \"ours_ms\": %.4f, "
                         "\"ours_min\": %.4f, \"ours_max\": %.4f, \"peer_ms\": %.4f, \"peer_min\": %.4f, "
                         "\"peer_max\": %.4f, \"ratio\": %.4f, \"ours_gpu_bytes\": %zu, \"ours_host_bytes\": %zu}%s\n",
                         r.size.c_str(), r.filter.c_str(), r.peer.c_str(), r.ours.median, r.ours.min, r.ours.max,
                         r.theirs.median, r.theirs.min, r.theirs.max, r.ours.median / r.theirs.median, r.memory.gpu,
                         r.memory.host, i + 1 < rows.size() ? "," : "");
        }
        std::fprintf(f, "]\n");
        std::fclose(f);
    }
    if (opencv == "both" && !gles) {
        // The same rows against OpenCV at 128-bit SIMD, in a fresh process (see kHelp).
        std::fflush(stdout);
        std::vector<char*> args(argv, argv + argc);
        char simd128[] = "--opencv", which[] = "simd128";
        args.push_back(simd128);
        args.push_back(which);
        args.push_back(nullptr);
        execv("/proc/self/exe", args.data());
        return usage(std::string("cannot run the 128-bit SIMD rows: ") + std::strerror(errno));
    }
    return 0;
}
