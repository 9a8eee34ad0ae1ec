// The real Raspberry Pi GPU compilers' check (docs/boards.md, "The real Pi GPU compilers"): every
// shader the GPU backends generate for a board's profile, over a matrix of chains, compiled by the
// driver of the context it runs in. Under qemu-aarch64 with Mesa's noop DRM shim that driver is
// vc4 (Pi 0-3) or v3d (Pi 4/5): nothing executes, and no pixel is read; the verdicts come from
// what the compiler reports through KHR_debug (gles/driver_log.h).
//
//   pi_compilers --boards rpi0,rpi3 [--report FILE.tsv] [--min-threads N] [--quick] [--only TEXT]
//   pi_compilers --over-limit      a test-only fragment shader over vc4's limit, through the
//                                  same check: it must fail, naming the shader
//   pi_compilers --compute PROGRAM...  each compute program, named as --explain names it
//                                  ("recursive_line.comp AXIS=0 ..."), compiled and dispatched
//                                  once (where Mesa's v3d compiles): a line "PROGRAM: N inst,
//                                  T threads";
//                                  with V3D_DEBUG=qpu the driver prints its code, whose loops
//                                  scripts/pi_passes.py measures
//
// It fails (exit 1) on a compile or link error, a pass the driver did not compile (vc4's
// register-allocation failure), any spill (v3d), a fragment or compute shader below the board's
// thread minimum, and a shader over its profile's declared budget (PI_COMPILERS_TIMES=1 also
// prints each chain's first-frame time on stderr). A chain the planner refuses
// on the board (a direct blur that would need more than 64 passes) is listed, not failed: the
// element runs it on the cpu. The report has one row per distinct shader.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <GLES3/gl31.h>

#include "board/probe.h"
#include "board/profile.h"
#include "core/chain.h"
#include "gles/compute_backend.h"
#include "gles/driver_log.h"
#include "gles/fragment/fragment_backend.h"
#include "gles/program_cache.h"
#include "tools/selftest/selftest.h"

namespace {

using namespace striate;

/// Sigmas from 0.3 to 64, log-spaced, and both sides of each crossover the planners and `auto`
/// follow (direct below 3 and recursive from 3 under auto; recursive needs 0.5).
std::vector<double> sigmas(bool quick) {
    if (quick) return {0.3, 1, 2, 4, 8, 16, 64};
    std::vector<double> s;
    for (int i = 0; i <= 16; ++i) s.push_back(std::round(0.3 * std::pow(64 / 0.3, i / 16.0) * 100) / 100);
    for (double x : {0.49, 0.5, 2.99, 3.0, 3.556, 9.99, 10.0}) s.push_back(x);
    return s;
}

std::string num(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
}

/// Every stage x method x output, the sigma sweep, orientations 1..12, several wavelengths,
/// chained stages, the selftest battery and the main job's chains.
std::vector<std::string> matrix(bool quick) {
    std::set<std::string> chains;
    const std::vector<double> sweep = sigmas(quick);
    for (double s : sweep) {
        for (const char* m : {"auto", "direct", "boxes", "recursive"})
            if (std::string(m) != "recursive" || s >= 0.5) chains.insert("blur sigma=" + num(s) + " method=" + m);
        for (const char* m : {"auto", "direct", "recursive"})
            if (std::string(m) != "recursive" || s >= 0.5)
                chains.insert("gabor sigma=" + num(s) + " wavelength=" + num(std::max(2.0, 2 * s)) + " orientation=30 method=" + m);
        chains.insert("edges sigma=" + num(s));
        if (s >= 0.5) chains.insert("edges method=gabor sigma=" + num(s) + " wavelength=" + num(std::max(2.0, 2 * s)));
    }
    for (const char* out : {"magnitude", "real", "imaginary", "phase", "complex"})
        for (const char* m : {"direct", "recursive"}) {
            chains.insert(std::string("gabor sigma=2 wavelength=6 orientation=30 output=") + out + " method=" + m);
            chains.insert(std::string("gabor sigma=4 wavelength=8 orientation=60 output=") + out + " method=" + m +
                          " remove-dc=false");
        }
    for (int n = 1; n <= 12; ++n) chains.insert("gabor sigma=4 wavelength=8 orientations=" + std::to_string(n));
    for (double lambda : {2.0, 4.0, 8.0, 16.0, 64.0}) chains.insert("gabor sigma=4 wavelength=" + num(lambda) + " orientation=45");
    for (const char* out : {"edges", "strength", "overlay"})
        for (const char* m : {"canny", "gabor"}) chains.insert(std::string("edges method=") + m + " output=" + out);
    for (int n : {1, 4, 8, 12}) chains.insert("edges method=gabor orientations=" + std::to_string(n));
    // Chained stages.
    chains.insert("blur sigma=2 ! gabor sigma=4 wavelength=8 orientations=6");
    // A bank followed by a stage: a packed bank's unpairing draws in system memory (as the chain's
    // result it runs only into a texture, FragmentPlan::pairedResult).
    chains.insert("gabor sigma=4 wavelength=8 orientations=6 ! blur sigma=2");
    chains.insert("blur sigma=2 ! gabor sigma=4 wavelength=10 orientation=30 ! blur sigma=2");
    chains.insert("blur sigma=8 ! edges");
    chains.insert("blur sigma=2 ! threshold sigma=6 offset=0.01");
    chains.insert("gabor sigma=3 wavelength=8 output=real ! edges method=gabor");
    // The main job (scripts/run.sh) and the README's examples.
    chains.insert("edges");
    chains.insert("blur sigma=2");
    chains.insert("gabor sigma=4 wavelength=8 orientations=6 gain=4");
    chains.insert("gabor sigma=8 wavelength=16 orientations=8");
    for (const selftest::Case& c : selftest::battery(!quick)) chains.insert(c.chain);
    return {chains.begin(), chains.end()};
}

struct Row {
    std::string board, backend, pass, chain;
    gles::StageStats stats;
    bool failed = false;
    std::string planned;  // the planner's cost, for fragment shaders
};

/// The report, written a row at a time (a long run can be read while it goes).
FILE* gReport = nullptr;

void writeRow(const Row& r) {
    if (!gReport) return;
    const gles::StageStats& s = r.stats;
    std::fprintf(gReport, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d:%d\t%s\t%s\n", r.board.c_str(), r.backend.c_str(), r.pass.c_str(),
                 r.failed ? -1 : s.instructions, s.threads, s.uniforms, s.maxTemps, s.cycles, s.spills, s.fills, r.planned.c_str(),
                 r.chain.c_str());
    std::fflush(gReport);
}

struct Verdicts {
    int failures = 0, refused = 0;
    std::vector<std::string> messages;
    void fail(const std::string& m) {
        ++failures;
        messages.push_back("FAIL " + m);
    }
};

/// The planner's cost of each fragment shader, by name (--explain's pass lines carry it).
std::map<std::string, std::string> plannedCosts(const gles::GlesBackend& b) {
    std::map<std::string, std::string> costs;
    for (const gles::PassInfo& p : b.passes()) {
        const std::size_t at = p.grid.find("; ");
        // Sections are listed as "NAME k=N".
        std::string name = p.name;
        if (const std::size_t k = name.rfind(" k="); k != std::string::npos) name.erase(k);
        costs[name] = at == std::string::npos ? "" : p.grid.substr(at + 2);
    }
    return costs;
}

/// Runs `chains` through one backend of `board`, adding a row per newly heard program.
void check(const std::string& board, const BoardLimits& limits, BackendKind kind, const std::vector<std::string>& chains,
           int minThreads, std::vector<Row>* rows, Verdicts* v) {
    std::unique_ptr<gles::GlesBackend> b;
    Status made;
    if (kind == BackendKind::GlesCompute) {
        std::unique_ptr<gles::ComputeBackend> c;
        made = gles::ComputeBackend::create(limits, &c);
        b = std::move(c);
    } else {
        std::unique_ptr<gles::FragmentBackend> f;
        made = gles::FragmentBackend::create(limits, gles::FragmentOptions{}, &f);
        b = std::move(f);
    }
    const std::string backend = nickOf(kBackendKinds, kind);
    if (!made) return v->fail(board + " " + backend + ": " + made.message());
    if (!b->driverLog().installed()) return v->fail(board + " " + backend + ": the context has no KHR_debug");
    std::size_t heard = 0;
    for (const std::string& text : chains) {
        Chain chain;
        if (Status s = parseChain(text, &chain); !s) {
            v->fail("'" + text + "': " + s.message());
            continue;
        }
        // 1280x720 for the main job's chains and the plain blur (a frame tall enough for tiled
        // passes), a small frame wider than every strip otherwise.
        const bool main = text == "edges" || text == "blur sigma=2" || text.starts_with("gabor sigma=4 wavelength=8 orientations=6");
        const FrameFormat format{main ? 1280 : 192, main ? 720 : 108};
        const auto t0 = std::chrono::steady_clock::now();
        if (Status s = b->configure(chain, format); !s) {
            const std::string& m = s.message();
            if (m.find("does not compile") != std::string::npos || m.find("does not link") != std::string::npos ||
                m.find("GL_") != std::string::npos) {
                v->fail(board + " " + backend + " '" + text + "': " + m);
            } else {
                ++v->refused;
                v->messages.push_back("refused " + board + " " + backend + " '" + text + "': " + m);
            }
            continue;
        }
        // A real output as the elements make it (process8: gles-compute's encode pass where its
        // plan has one), a complex one as floats; the pixels are never read.
        Image<std::uint8_t> frame(format.width, format.height), codes(format.width, format.height);
        ChainOutput out;
        const Status processed = chain.complexOutput()
                                     ? b->process(frame.view(), &out)
                                     : b->process8(frame.view(), Output8{codes.data(), codes.stride(), 1, chain.encoding()});
        if (std::getenv("PI_COMPILERS_TIMES"))
            std::fprintf(stderr, "%s %s %.2f s '%s'\n", board.c_str(), backend.c_str(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), text.c_str());
        const std::map<std::string, std::string> costs = plannedCosts(*b);
        const auto& reports = b->driverLog().reports();
        for (; heard < reports.size(); ++heard) {
            const gles::PassReport& r = reports[heard];
            Row row;
            row.board = board;
            row.backend = backend;
            row.pass = r.pass;
            row.chain = text;
            row.failed = r.failed();
            if (const auto c = costs.find(r.pass); c != costs.end()) row.planned = c->second;
            const gles::StageStats* s = r.passStage();
            if (s) row.stats = *s;
            if (r.failed()) v->fail(board + " " + backend + " '" + r.pass + "' (chain '" + text + "'): the driver did not compile it");
            else if (!s) v->fail(board + " " + backend + " '" + r.pass + "' (chain '" + text + "'): no statistics from the driver");
            else if (s->spills || s->fills)
                v->fail(board + " " + backend + " '" + r.pass + "': " + std::to_string(s->spills) + ":" + std::to_string(s->fills) +
                        " spills:fills");
            else if (s->threads >= 0 && s->threads < minThreads)
                v->fail(board + " " + backend + " '" + r.pass + "' (chain '" + text + "'): " + std::to_string(s->threads) +
                        " threads, the board's minimum is " + std::to_string(minThreads));
            writeRow(row);
            rows->push_back(row);
        }
        if (!processed && processed.message().find("did not compile") == std::string::npos)
            v->fail(board + " " + backend + " '" + text + "': " + processed.message());
    }
}

/// A context of our own, current, with the driver log listening (--over-limit, --compute): false
/// (said on stderr) where there is none or it has no KHR_debug.
bool ownContext(std::unique_ptr<gles::EglContext>* ctx, gles::DriverLog* log) {
    Status made = gles::EglContext::create(ctx);
    if (made) made = (*ctx)->makeCurrent();
    if (!made) {
        std::fprintf(stderr, "pi_compilers: no GLES context: %s\n", made.message().c_str());
        return false;
    }
    if (!log->install()) {
        std::fprintf(stderr, "pi_compilers: the context has no KHR_debug\n");
        return false;
    }
    return true;
}

/// The over-limit shader through the driver log, as a backend's pass would go.
int overLimit() {
    std::unique_ptr<gles::EglContext> ctx;
    gles::DriverLog log;
    if (!ownContext(&ctx, &log)) return 2;
    gles::ProgramCache cache(ctx->info().major, ctx->info().minor);
    const std::string name = gles::kOverVc4LimitName;
    unsigned program = 0;
    if (Status s = cache.fragment(name, gles::overVc4LimitShader(), &program); !s) {
        std::printf("FAIL '%s': %s\n", name.c_str(), s.message().c_str());
        return 1;
    }
    GLuint texture = 0, fbo = 0, vbo = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    GLuint target = 0;
    glGenTextures(1, &target);
    glBindTexture(GL_TEXTURE_2D, target);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target, 0);
    glBindTexture(GL_TEXTURE_2D, texture);
    const float triangle[] = {-1, -1, 3, -1, -1, 3};
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glViewport(0, 0, 64, 64);
    glUseProgram(program);
    log.begin(name, false);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    log.end();
    glFinish();
    const Status verdict = log.verdict("pi_compilers");
    std::fputs(log.describe().c_str(), stdout);
    log.uninstall();
    if (!verdict) {
        std::printf("FAIL %s\n", verdict.message().c_str());
        return 1;
    }
    const gles::StageStats* s = log.reports().empty() ? nullptr : log.reports()[0].passStage();
    if (!s) {
        std::printf("no statistics for '%s': this driver reports none\n", name.c_str());
        return 2;
    }
    std::printf("ok '%s': %s\n", name.c_str(), gles::describeStats(*s).c_str());
    return 0;
}

/// --compute: each program compiled and dispatched once (nothing executes under the noop shim).
int computePrograms(const std::vector<std::string>& programs) {
    std::unique_ptr<gles::EglContext> ctx;
    gles::DriverLog log;
    if (!ownContext(&ctx, &log)) return 2;
    gles::ProgramCache cache(ctx->info().major, ctx->info().minor);
    // Every image and sampler unit a program may use bound to a small R32F texture, and every
    // storage-buffer binding to a small buffer: the driver sets up a dispatch's state from them
    // even where nothing executes.
    GLuint texture = 0, buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 256, nullptr, GL_STATIC_DRAW);
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32F, 4, 4);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    for (GLuint unit = 0; unit < 4; ++unit) {
        glBindImageTexture(unit, texture, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32F);
        glActiveTexture(GL_TEXTURE0 + unit);
        glBindTexture(GL_TEXTURE_2D, texture);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, unit, buffer);
    }
    int status = 0;
    for (const std::string& name : programs) {
        std::stringstream words(name);
        std::string file, word;
        words >> file;
        gles::Defines defines;
        while (words >> word)
            if (const std::size_t eq = word.find('='); eq != std::string::npos) defines.emplace_back(word.substr(0, eq), word.substr(eq + 1));
        unsigned program = 0;
        if (Status s = cache.compute(file, defines, &program); !s) {
            std::printf("FAIL '%s': %s\n", name.c_str(), s.message().c_str());
            status = 1;
            continue;
        }
        glUseProgram(program);
        log.begin(name, true);
        glDispatchCompute(1, 1, 1);
        log.end();
        glFinish();
        const gles::StageStats* stats = log.reports().empty() ? nullptr : log.reports().back().passStage();
        if (!stats) {
            std::printf("FAIL '%s': no statistics from the driver\n", name.c_str());
            status = 1;
            continue;
        }
        std::printf("  %s: %d inst, %d threads\n", name.c_str(), stats->instructions, stats->threads);
        std::fflush(stdout);  // after the driver's own output for it (V3D_DEBUG goes to stderr)
    }
    glDeleteTextures(1, &texture);
    glDeleteBuffers(1, &buffer);
    log.uninstall();
    return status;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> boards;
    std::string report;
    int minThreads = 1;
    bool quick = false;
    std::string only;  // chains containing this text alone (a developer's look at one case)
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--over-limit") return overLimit();
        if (a == "--compute") return computePrograms(std::vector<std::string>(argv + i + 1, argv + argc));
        if (a == "--boards" && i + 1 < argc) boards = split(argv[++i]);
        else if (a == "--report" && i + 1 < argc) report = argv[++i];
        else if (a == "--min-threads" && i + 1 < argc) minThreads = std::atoi(argv[++i]);
        else if (a == "--quick") quick = true;
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else {
            std::fprintf(stderr, "usage: pi_compilers --boards B[,B...] [--report FILE.tsv] [--min-threads N] [--quick] [--only TEXT] | --over-limit | --compute PROGRAM...\n");
            return 2;
        }
    }
    if (boards.empty()) {
        std::fprintf(stderr, "pi_compilers: --boards is required\n");
        return 2;
    }
    const Probe probe = probeMachine();
    if (!probe.gpu) {
        std::fprintf(stderr, "pi_compilers: no GLES context: %s\n", probe.gpuError.c_str());
        return 2;
    }
    std::printf("pi_compilers: %s, GLES %d.%d\n", probe.renderer.c_str(), probe.glesMajor, probe.glesMinor);
    if (!report.empty()) {
        gReport = std::fopen(report.c_str(), "w");
        if (!gReport) {
            std::fprintf(stderr, "pi_compilers: cannot write %s\n", report.c_str());
            return 2;
        }
        std::fprintf(gReport, "board\tbackend\tpass\tinstructions\tthreads\tuniforms\ttemporaries\testimated_cycles\t"
                              "spills:fills\tplanned\tfirst chain\n");
    }
    std::vector<std::string> chains = matrix(quick);
    std::erase_if(chains, [&](const std::string& c) { return c.find(only) == std::string::npos; });
    std::vector<Row> rows;
    Verdicts v;
    std::vector<std::pair<std::string, BoardLimits>> checked;
    for (const std::string& board : boards) {
        BoardLimits limits;
        if (Status s = resolveBoard(board, probe, &limits); !s) {
            v.fail(s.message());
            continue;
        }
        // Boards whose limits are the same plan the same shaders (rpi0..rpi3 share vc4's profile).
        const auto same = std::find_if(checked.begin(), checked.end(), [&](const auto& c) {
            const BoardLimits& o = c.second;
            return o.glesMajor == limits.glesMajor && o.glesMinor == limits.glesMinor && o.compute == limits.compute &&
                   o.computeInvocations == limits.computeInvocations && o.computeSharedBytes == limits.computeSharedBytes &&
                   o.floatTargets == limits.floatTargets && o.maxTextureSize == limits.maxTextureSize &&
                   o.budget.alu == limits.budget.alu && o.budget.fetches == limits.budget.fetches &&
                   o.budget.dependentDepth == limits.budget.dependentDepth && o.budget.uniforms == limits.budget.uniforms &&
                   o.budget.wideFetches == limits.budget.wideFetches &&
                   o.unrollLimit == limits.unrollLimit && o.speed == limits.speed;
        });
        if (same != checked.end()) {
            std::printf("%s: the limits of %s, so the same shaders: checked with %s\n", board.c_str(), same->first.c_str(),
                        same->first.c_str());
            continue;
        }
        checked.emplace_back(board, limits);
        if (limits.compute) check(board, limits, BackendKind::GlesCompute, chains, minThreads, &rows, &v);
        check(board, limits, BackendKind::GlesFragment, chains, minThreads, &rows, &v);
    }
    if (gReport) std::fclose(gReport);
    for (const std::string& m : v.messages) std::printf("%s\n", m.c_str());
    std::printf("pi_compilers: %zu chains, %zu distinct shaders on %s; %d refused by the planner; %d failed\n", chains.size(),
                rows.size(), probe.renderer.c_str(), v.refused, v.failures);
    return v.failures ? 1 : 0;
}
