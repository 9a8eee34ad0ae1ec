#include "tools/selftest/selftest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <sstream>

#include "board/probe.h"
#include "board/profile.h"
#include "core/params.h"
#include "cpu/reference/reference.h"
#include "sensors/synthetic_camera.h"
#ifdef STRIATE_SELFTEST_ELEMENTS
#include "tools/selftest/elements.h"
#endif
#include "io/image_io.h"
#include "io/npy.h"

namespace striate::selftest {
namespace {


/// A result copied out of a backend (its planes live only until its next frame).
struct Owned {
    bool complex = false;
    Image<float> real;
    Image<Complex32> complexPlane;
    ChainOutput view() const {
        ChainOutput o;
        o.complex = complex;
        o.real = real.view();
        if (complex) o.complexPlane = complexPlane.view();
        return o;
    }
};

Owned own(const ChainOutput& o) {
    Owned r;
    r.complex = o.complex;
    r.real.reset(o.real.width, o.real.height);
    for (int y = 0; y < o.real.height; ++y) std::copy(o.real.row(y), o.real.row(y) + o.real.width, r.real.row(y));
    if (o.complex) {
        r.complexPlane.reset(o.complexPlane.width, o.complexPlane.height);
        for (int y = 0; y < o.complexPlane.height; ++y)
            std::copy(o.complexPlane.row(y), o.complexPlane.row(y) + o.complexPlane.width, r.complexPlane.row(y));
    }
    return r;
}

Status runReference(const Chain& chain, const Image<std::uint8_t>& in, Owned* out) {
    reference::ReferenceBackend ref;
    if (Status s = ref.configure(chain, FrameFormat{in.width(), in.height()}); !s) return s;
    ChainOutput o;
    if (Status s = ref.process(in.view(), &o); !s) return s;
    *out = own(o);
    return {};
}

/// A golden as the reference's output: the real plane (a complex golden: magnitude in real, as
/// the reference writes it, and both parts).
Status loadGolden(const std::string& path, const Chain& chain, Owned* out) {
    io::NpyArray a;
    if (Status s = io::readNpy(path, &a); !s) return s;
    out->complex = a.channels == 2;
    if (out->complex != isComplexOutput(chain.stages.back()))
        return Status::error("'" + path + "' does not hold the chain's output kind");
    out->real.reset(a.width, a.height);
    if (out->complex) out->complexPlane.reset(a.width, a.height);
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) {
            const float* v = &a.data[(std::size_t(y) * a.width + x) * a.channels];
            if (out->complex) {
                out->complexPlane.at(x, y) = Complex32(v[0], v[1]);
                out->real.at(x, y) = std::abs(out->complexPlane.at(x, y));
            } else {
                out->real.at(x, y) = v[0];
            }
        }
    return {};
}

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::string Case::id() const {
    std::string n = input + "-" + std::to_string(width) + "x" + std::to_string(height) + "-" + chain;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    return n;
}

std::vector<Case> battery(bool full) {
    // Every stage's example chains (its parameter table); the first of each stage, the one the
    // quick battery also runs on 640x480.
    std::vector<Case> cases;
    for (const StageInfo& stage : stageInfos())
        for (const char* chain : stage.examples) {
            const bool first = chain == stage.examples.front();
            if (full || first) cases.push_back({chain, "shapes", 1, 1, true});
            cases.push_back({chain, "shapes", 17, 13, true});
            cases.push_back({chain, "shapes", 131, 67, false});
            cases.push_back({chain, "photo", 64, 48, true});
            if (full || first) cases.push_back({chain, "photo", 640, 480, false});
            if (full && first) cases.push_back({chain, "photo", 1280, 720, false});
        }
    return cases;
}

Status inputFor(const Case& c, const std::string& dataDir, Image<std::uint8_t>* out) {
    out->reset(c.width, c.height);
    if (c.input == "shapes") {
        sensors::CameraSettings settings;
        settings.scene = sensors::Scene::Shapes;
        settings.motion = false;
        settings.seed = 7;
        sensors::renderRows(settings, 0, out->view(), 0, c.height);
        return {};
    }
    Image<std::uint8_t> photo;
    if (Status s = io::readLuma(dataDir + "/astronaut.png", &photo); !s) return s;
    // Bilinear resampling of the whole photo onto the size (doubles: the same on every target).
    for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x) {
            const double sx = std::clamp((x + 0.5) * photo.width() / c.width - 0.5, 0.0, photo.width() - 1.0);
            const double sy = std::clamp((y + 0.5) * photo.height() / c.height - 0.5, 0.0, photo.height() - 1.0);
            const int x0 = static_cast<int>(sx), y0 = static_cast<int>(sy);
            const int x1 = std::min(x0 + 1, photo.width() - 1), y1 = std::min(y0 + 1, photo.height() - 1);
            const double fx = sx - x0, fy = sy - y0;
            const double v = (photo.at(x0, y0) * (1 - fx) + photo.at(x1, y0) * fx) * (1 - fy) +
                             (photo.at(x0, y1) * (1 - fx) + photo.at(x1, y1) * fx) * fy;
            out->at(x, y) = static_cast<std::uint8_t>(std::lround(v));
        }
    return {};
}

int Report::failures() const {
    return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.ran && !r.accuracy.pass; }));
}

Status run(const Options& options, Report* report) {
    *report = {};
    if (!std::filesystem::exists(options.dataDir + "/astronaut.png"))
        return Status::error("no selftest data in '" + options.dataDir + "' (astronaut.png and goldens/; --data DIR)");
    const BackendMaker make = options.make ? options.make : BackendMaker(startBackend);
    const Probe probe = probeMachine();
    // The profiles: the board's, or with --full every one this machine can honour.
    std::vector<std::string> profiles;
    if (probe.gpu) {
        BoardLimits limits;
        if (Status s = resolveBoard(options.board, probe, &limits); !s) return s;
        profiles.push_back(limits.profile);
        std::size_t n = 0;
        const BoardProfile* all = boardProfiles(&n);
        for (std::size_t i = 0; options.full && i < n; ++i)
            if (all[i].name != limits.profile && resolveBoard(all[i].name, probe, &limits)) profiles.push_back(all[i].name);
    } else {
        profiles.push_back(options.board.empty() ? "auto" : options.board);
    }
    report->profiles = profiles;
    std::vector<BackendKind> backends = options.backends;
    if (backends.empty()) backends = {BackendKind::Cpu, BackendKind::GlesCompute, BackendKind::GlesFragment};

    const std::vector<Case> cases = battery(options.full);
    auto add = [&](Row row) {
        if (options.progress) options.progress(row);
        report->rows.push_back(std::move(row));
    };
    for (const Case& c : cases) {
        Chain chain;
        if (Status s = parseChain(c.chain, &chain); !s) return s;
        Image<std::uint8_t> in;
        if (Status s = inputFor(c, options.dataDir, &in); !s) return s;
        const FrameFormat format{c.width, c.height};
        Owned ref;
        const auto t0 = std::chrono::steady_clock::now();
        if (Status s = runReference(chain, in, &ref); !s) return s;
        const double refMs = msSince(t0);
        // The reference itself, against the golden made on the development machine.
        if (c.golden) {
            Row row{"reference", "-", "golden", c, {}, refMs, true, ""};
            Owned golden;
            const std::string path = options.dataDir + "/goldens/" + c.id() + ".npy";
            if (Status s = loadGolden(path, chain, &golden); !s) {
                row.note = s.message();
                row.accuracy = {std::nan(""), 0, false};
            } else if (golden.real.width() != c.width || golden.real.height() != c.height) {
                row.note = "'" + path + "' is not " + std::to_string(c.width) + "x" + std::to_string(c.height);
                row.accuracy = {std::nan(""), 0, false};
            } else {
                row.accuracy = reference::accuracyOf(chain, in.view(), golden.view(), ref.view(),
                                                     Producer{false, false, c.input == "photo", true});
            }
            add(row);
        }
        for (BackendKind kind : backends) {
            const bool gpu = kind == BackendKind::GlesCompute || kind == BackendKind::GlesFragment;
            for (const std::string& profile : gpu ? profiles : std::vector<std::string>{"-"}) {
                Row row{nickOf(kBackendKinds, kind), profile, "reference", c, {}, 0, true, ""};
                std::unique_ptr<Backend> b;
                std::string fallback;
                const Status s = make(kind, BackendOptions{0, gpu ? profile : options.board}, chain, format, &b, &fallback);
                if (!s || !fallback.empty()) {
                    // A backend this device or profile cannot run (no compute on the board, a
                    // shader over its budget): said, not a failure. A failure to start at all is.
                    row.ran = !s;
                    row.accuracy = {std::nan(""), 0, false};
                    row.note = !s ? s.message() : fallback;
                    add(row);
                    continue;
                }
                ChainOutput out;
                Status ps = b->process(in.view(), &out);  // the first frame: programs, planes
                const auto t1 = std::chrono::steady_clock::now();
                if (ps) ps = b->process(in.view(), &out);
                row.ms = msSince(t1);
                if (!ps) {
                    row.accuracy = {std::nan(""), 0, false};
                    row.note = ps.message();
                } else {
                    row.accuracy = reference::accuracyOf(chain, in.view(), ref.view(), out,
                                                         Producer{b->runsOnGpu(), b->packedIntermediates(), c.input == "photo", false});
                    if (options.images) options.images(row, chain, in, ref.view(), out);
                }
                add(row);
            }
        }
    }

#ifdef STRIATE_SELFTEST_ELEMENTS
    // The elements, through real pipelines, against the same backends' direct results.
    checkElements(options, backends, profiles, add);
    findPlugin(&report->plugin);
#endif

    if (options.measure && probe.gpu) {
        // auto's measurements: each runnable backend on the standard chains under the board's
        // profile, the mean of three frames after one; at 640x480 (full: and 1280x720).
        Measurements& m = report->measurements;
        m.board = profiles.front();
        m.renderer = probe.renderer;
        m.versions = std::string("striate ") + STRIATE_VERSION + "; " + probe.version;
        std::vector<const char*> timed;  // every stage's main chains (core/params.cpp)
        for (const StageInfo& info : stageInfos()) timed.insert(timed.end(), info.timed.begin(), info.timed.end());
        for (const char* text : timed)
            for (const auto& [w, h] : {std::pair{640, 480}, std::pair{1280, 720}}) {
                if (w > 640 && !options.full) continue;
                Chain chain;
                parseChain(text, &chain);
                Image<std::uint8_t> in;
                if (Status s = inputFor(Case{text, "photo", w, h, false}, options.dataDir, &in); !s) return s;
                for (BackendKind kind : backends) {
                    std::unique_ptr<Backend> b;
                    std::string fallback;
                    if (!make(kind, BackendOptions{0, m.board}, chain, FrameFormat{w, h}, &b, &fallback) || !fallback.empty())
                        continue;
                    ChainOutput out;
                    if (!b->process(in.view(), &out)) continue;
                    const auto t0 = std::chrono::steady_clock::now();
                    bool ok = true;
                    for (int i = 0; i < 3 && ok; ++i) ok = static_cast<bool>(b->process(in.view(), &out));
                    if (ok) m.timings.push_back(Timing{text, w, h, kind, msSince(t0) / 3});
                }
            }
        if (!m.timings.empty()) {
            report->measurementsPath = measurementsPath(m.board, m.renderer);
            if (Status s = writeMeasurements(report->measurementsPath, m); !s) return s;
        }
    }
    return {};
}

Status writeGoldens(const std::string& dataDir, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    for (const Case& c : battery(true)) {
        if (!c.golden) continue;
        Chain chain;
        if (Status s = parseChain(c.chain, &chain); !s) return s;
        Image<std::uint8_t> in;
        if (Status s = inputFor(c, dataDir, &in); !s) return s;
        reference::ReferenceBackend ref;
        ChainOutput out;
        if (Status s = ref.configure(chain, FrameFormat{c.width, c.height}); !s) return s;
        if (Status s = ref.process(in.view(), &out); !s) return s;
        const std::string path = dir + "/" + c.id() + ".npy";
        if (Status s = out.complex ? io::writeNpy(path, out.complexPlane) : io::writeNpy(path, out.real); !s) return s;
    }
    return {};
}

std::string formatJson(const Report& report) {
    std::ostringstream j;
    auto number = [](double v) {
        if (!std::isfinite(v)) return std::string("null");
        char b[32];
        std::snprintf(b, sizeof b, "%.6g", v);
        return std::string(b);
    };
    j << "{\"failures\": " << report.failures() << ", \"profiles\": [";
    for (std::size_t i = 0; i < report.profiles.size(); ++i) j << (i ? ", " : "") << jsonString(report.profiles[i]);
    j << "], \"rows\": [\n";
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        const Row& r = report.rows[i];
        j << "  {\"backend\": " << jsonString(r.backend) << ", \"profile\": " << jsonString(r.profile)
          << ", \"check\": " << jsonString(r.check) << ", \"chain\": " << jsonString(r.c.chain)
          << ", \"input\": " << jsonString(r.c.input) << ", \"size\": \"" << r.c.width << "x" << r.c.height
          << "\", \"error\": " << number(r.accuracy.error) << ", \"budget\": " << number(r.accuracy.budget)
          << ", \"ran\": " << (r.ran ? "true" : "false") << ", \"pass\": " << (!r.ran || r.accuracy.pass ? "true" : "false")
          << ", \"ms\": " << number(r.ms) << ", \"note\": " << jsonString(r.note) << "}"
          << (i + 1 < report.rows.size() ? "," : "") << "\n";
    }
    j << "], \"measurements\": " << jsonString(report.measurementsPath) << ", \"timings\": [\n";
    const auto& t = report.measurements.timings;
    for (std::size_t i = 0; i < t.size(); ++i)
        j << "  {\"chain\": " << jsonString(t[i].chain) << ", \"size\": \"" << t[i].width << "x" << t[i].height
          << "\", \"backend\": \"" << nickOf(kBackendKinds, t[i].backend) << "\", \"ms\": " << number(t[i].ms) << "}"
          << (i + 1 < t.size() ? "," : "") << "\n";
    j << "]}\n";
    return j.str();
}

} // namespace striate::selftest
