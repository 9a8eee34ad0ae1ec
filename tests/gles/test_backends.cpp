// Board profiles, the planner's budgets and the GPU backends' fault paths, on this machine's GLES
// (Mesa llvmpipe in CI). Runs in every environment test_gles runs in (STRIATE_EXPECT: gles31, es3
// for MESA_GLES_VERSION_OVERRIDE=3.0, es2, none for no EGL vendor); CTest picks the suites each
// environment can run (Gles31*: compute, GlesWithoutCompute*: a context without it, NoDisplay*:
// no EGL at all), so no test skips.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <cstdio>
#include <new>

#include <cstdlib>
#include <string>
#include <vector>

#include "board/backend_choice.h"
#include "board/probe.h"
#include "board/profile.h"
#include "cpu/reference/reference.h"
#include "core/chain.h"
#include "gles/compute_backend.h"
#include "gles/fragment/fragment_backend.h"
#include "tests/support/gles_env.h"
#include "tests/support/inputs.h"
#include "tests/support/sanitizers.h"
#include "tests/support/vs_reference.h"

namespace striate {
namespace {

bool hasCompute() { return test::expectsCompute(); }
bool hasGles() { return test::expectsGles(); }

Chain chainOf(const std::string& text) {
    Chain c;
    EXPECT_TRUE(parseChain(text, &c)) << text;
    return c;
}

/// Every stage and method, with sigmas that make the planner split passes on small boards.
const char* const kSweep[] = {
    "blur sigma=0.3 method=direct",
    "blur sigma=6 method=direct",
    "blur sigma=3 method=boxes",
    "blur sigma=40 method=boxes",
    "blur sigma=2 method=recursive",
    "blur sigma=30 method=recursive",
    "gabor sigma=2 wavelength=6 orientation=30 method=direct output=phase",
    "gabor sigma=6 wavelength=12 orientation=30 method=direct output=complex",
    "gabor sigma=4 wavelength=8 orientation=60 method=recursive output=real",
    "gabor sigma=3 wavelength=8 orientations=6",
    "edges",
    "edges sigma=5 output=strength",
    "edges method=gabor output=overlay",
    // Each end of the recursive filter's sigma range (short responses run as FIRs on quads).
    "blur sigma=0.5 method=recursive",
    "blur sigma=0.55 method=recursive",
    "blur sigma=256 method=recursive",
    "gabor sigma=0.5 wavelength=4 method=recursive",
};

/// The sweep above and each stage's first example chain (its table's catalogue; the real-compiler
/// check and the conformance matrix run all of them): a stage the sweep does not name is here.
std::vector<std::string> everyStage() {
    std::vector<std::string> out(std::begin(kSweep), std::end(kSweep));
    for (const StageInfo& stage : stageInfos())
        if (std::find(out.begin(), out.end(), stage.examples.front()) == out.end()) out.push_back(stage.examples.front());
    return out;
}

TEST(BoardProfiles, TableHoldsTheDesignProfiles) {
    std::size_t n = 0;
    const BoardProfile* p = boardProfiles(&n);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < n; ++i) names.push_back(p[i].name);
    EXPECT_EQ(names, (std::vector<std::string>{"rpi0", "rpi1", "rpi2", "rpi3", "rpi4", "rpi5", "tight", "host"}));
    EXPECT_FALSE(findBoardProfile("rpi3")->limits.compute);
    EXPECT_FALSE(findBoardProfile("rpi3")->limits.floatTargets);
    EXPECT_TRUE(findBoardProfile("rpi4")->limits.compute);
    EXPECT_EQ(findBoardProfile("tight")->limits.budget.alu, 64);
    EXPECT_EQ(findBoardProfile("tight")->limits.budget.fetches, 32);
    EXPECT_EQ(findBoardProfile("tight")->limits.budget.dependentDepth, 4);
}

TEST(BoardProfiles, NeverGrantWhatTheMachineLacks) {
    Probe es30;
    es30.gpu = true;
    es30.glesMajor = 3;
    es30.maxTextureSize = 8192;
    BoardLimits limits;
    Status s = applyBoardProfile(*findBoardProfile("rpi4"), es30, &limits);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("board 'rpi4' needs GLES 3.1; this machine offers GLES 3.0"), std::string::npos) << s.message();
    Probe es31 = es30;
    es31.glesMinor = 1;  // a 3.1 context whose driver reports no compute
    s = applyBoardProfile(*findBoardProfile("rpi5"), es31, &limits);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("needs GLES 3.1 compute shaders"), std::string::npos) << s.message();
    Probe none;
    none.gpuError = "no EGL display: tried surfaceless";
    s = applyBoardProfile(*findBoardProfile("tight"), none, &limits);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("board 'tight' needs an OpenGL ES context: no EGL display"), std::string::npos);
    // A profile caps: rpi3 on a big GPU still has 2048 textures and no float targets.
    ASSERT_TRUE(applyBoardProfile(*findBoardProfile("rpi3"), es31, &limits));
    EXPECT_EQ(limits.maxTextureSize, 2048);
    EXPECT_FALSE(limits.floatTargets);
    EXPECT_FALSE(limits.compute);
}

TEST(BoardProfiles, UnknownBoardIsAnError) {
    BoardLimits limits;
    const Status s = resolveBoard("pi4", probeMachine(), &limits);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("unknown board 'pi4' (expected auto, rpi0"), std::string::npos) << s.message();
}

/// The boards each backend runs under in this environment.
std::vector<std::string> fragmentBoards() {
    if (!hasGles()) return {};
    if (hasCompute()) return {"host", "rpi0", "rpi3", "rpi4", "rpi5", "tight"};
    return {"host", "rpi0", "rpi3", "tight"};  // rpi4/5 need GLES 3.1 (checked below)
}

TEST(Budgets, EveryFragmentShaderOfEveryProfileFitsAndCompiles) {
    int shaders = 0;
    for (const std::string& board : fragmentBoards()) {
        const gles::ShaderCost& budget = findBoardProfile(board)->limits.budget;
        for (const std::string& text : everyStage()) {
            std::unique_ptr<Backend> b;
            std::string fallback;
            // configure() compiles every program and refuses any shader over the budget.
            ASSERT_TRUE(startBackend(BackendKind::GlesFragment, BackendOptions{0, board}, chainOf(text), FrameFormat{64, 48},
                                     &b, &fallback));
            ASSERT_EQ(fallback, "") << board << ": " << text;
            const auto* fragment = dynamic_cast<gles::FragmentBackend*>(b.get());
            ASSERT_NE(fragment, nullptr);
            // Packed where the board has no float targets, or (host) the context renders none.
            const bool packed = board == "host" ? test::expectedGles() == "es2" : !findBoardProfile(board)->limits.floatTargets;
            EXPECT_EQ(fragment->packed(), packed) << board;
            for (const gles::FragmentShader& s : fragment->shaders()) {
                EXPECT_LE(s.cost.alu, budget.alu) << board << " " << s.name;
                EXPECT_LE(s.cost.fetches, budget.fetches) << board << " " << s.name;
                EXPECT_LE(s.cost.dependentDepth, budget.dependentDepth) << board << " " << s.name;
                EXPECT_LE(s.cost.uniforms, budget.uniforms) << board << " " << s.name;
                if (budget.wideFetches) {
                    EXPECT_LE(s.cost.wideFetches, budget.wideFetches) << board << " " << s.name;
                }
                ++shaders;
            }
        }
    }
    EXPECT_GT(shaders, 100);
}

/// A change of values (thresholds, orientation, gain) configures the backend again without
/// compiling: the values are uniforms (a property changed while playing costs no compile).
TEST(Budgets, NewValuesOfTheSameStructureCompileNothing) {
    if (!hasGles()) GTEST_SKIP() << "no GLES context in this environment";
    const std::pair<const char*, const char*> changes[] = {
        {"edges low-threshold=0.02 high-threshold=0.05", "edges low-threshold=0.1 high-threshold=0.3"},
        {"gabor sigma=3 wavelength=8 orientation=0 gain=1", "gabor sigma=3 wavelength=8 orientation=30 gain=4"},
        // The DC plane's response is cut by its K, which the recursion moves with the orientation.
        {"gabor sigma=4 wavelength=6 orientation=0", "gabor sigma=4 wavelength=6 orientation=30"},
        {"edges method=gabor orientations=4", "edges method=gabor orientations=4 high-threshold=0.2"},
    };
    BackendChoice choice;
    ASSERT_TRUE(chooseBackend(BackendKind::GlesFragment, BackendOptions{0, "host"}, chainOf(changes[0].first),
                              FrameFormat{64, 48}, Placement::OwnContext, &choice));
    for (const auto& [before, after] : changes) {
        std::unique_ptr<gles::FragmentBackend> b;
        ASSERT_TRUE(gles::FragmentBackend::create(choice.limits, gles::FragmentOptions{}, &b));
        ASSERT_TRUE(b->configure(chainOf(before), FrameFormat{64, 48}));
        const std::size_t programs = b->programCount();
        ASSERT_TRUE(b->configure(chainOf(after), FrameFormat{64, 48}));
        EXPECT_EQ(b->programCount(), programs) << before << " -> " << after;
    }
}

TEST(Gles31Budgets, EveryComputeProgramCompiles) {
    if (!hasCompute()) GTEST_SKIP() << "no GLES 3.1 compute here";
    for (const char* board : {"host", "rpi4", "rpi5"})
        for (const std::string& text : everyStage()) {
            std::unique_ptr<Backend> b;
            std::string fallback;
            ASSERT_TRUE(startBackend(BackendKind::GlesCompute, BackendOptions{0, board}, chainOf(text), FrameFormat{64, 48},
                                     &b, &fallback));
            EXPECT_EQ(fallback, "") << board << ": " << text;
        }
}

TEST(Gles31Process8, MakesTheCodesOnTheGpuAsTheHostEncodesTheFloats) {
    // Where a plan ends with a buffer no pass needs (a bank's pair buffer), process8 encodes on the
    // GPU and reads a byte a pixel back: the codes encode8 gives process()'s floats, every one, at
    // odd widths (a row's last block part empty) and written `step` bytes apart. A plan without such
    // a buffer (a blur) encodes on the host, as before.
    if (!hasCompute()) GTEST_SKIP() << "no GLES 3.1 compute here";
    struct Case {
        const char* chain;
        bool onGpu;
    };
    for (const Case& c : {Case{"gabor sigma=4 wavelength=8 orientations=6", true},
                          Case{"gabor sigma=3 wavelength=8 orientation=30 method=recursive gain=6", true},
                          Case{"edges method=gabor sigma=4 wavelength=8 low-threshold=0.02", true},
                          Case{"gabor sigma=12 wavelength=20 orientations=4", true},
                          Case{"gabor sigma=3 wavelength=8 orientations=6 ! blur sigma=1", true},
                          Case{"blur sigma=2", false}}) {
        const Chain chain = chainOf(c.chain);
        const Encoding e = chain.encoding();
        for (test::Size s : {test::Size{1, 1}, test::Size{9, 1}, test::Size{1, 9}, test::Size{37, 29}, test::Size{203, 57}}) {
            std::unique_ptr<gles::ComputeBackend> b;
            ASSERT_TRUE(gles::ComputeBackend::create(findBoardProfile("rpi4")->limits, &b));
            ASSERT_TRUE(b->configure(chain, FrameFormat{s.w, s.h})) << c.chain;
            EXPECT_EQ(b->plan().codes >= 0, c.onGpu) << c.chain;
            const Image<std::uint8_t> in = test::inputFor(chain, s);
            test::expectProcess8EncodesProcess(*b, in.view(), e, std::string(c.chain) + " " + std::to_string(s.w) + "x" + std::to_string(s.h));
            // --explain's transfers are the last frame's: process8's codes, rows padded to blocks.
            const std::string said = b->explain();
            const std::size_t codes = static_cast<std::size_t>((s.w + gles::kEncodeBlock - 1) / gles::kEncodeBlock) * gles::kEncodeBlock * s.h;
            const std::size_t floats = sizeof(float) * s.w * s.h;
            EXPECT_NE(said.find("reads back " + std::to_string(c.onGpu ? codes : floats)), std::string::npos) << said;
        }
    }
}

TEST(Gles31Hysteresis, CountsItsPassesAndTileLoopsAsTheyRan) {
    // gles-compute's hysteresis runs every tile once, then the tiles a pass listed (neighbours of
    // a tile that grew on its border) until a pass lists none; each workgroup loops over its tile
    // until it settles: --explain counts the passes, tiles and iterations as the last frame ran
    // them (the Pi estimates, scripts/pi_passes.py), each frame afresh.
    if (!hasCompute()) GTEST_SKIP() << "no GLES 3.1 compute here";
    const test::Size size{64, 48};  // 4x3 tiles of 16x16
    std::unique_ptr<Backend> b;
    std::string fallback;
    ASSERT_TRUE(startBackend(BackendKind::GlesCompute, BackendOptions{0, "host"}, chainOf("edges"), FrameFormat{size.w, size.h},
                             &b, &fallback));
    ASSERT_EQ(fallback, "");
    const Image<std::uint8_t> in = test::scene(size);
    ChainOutput out;
    std::string said[2];
    for (std::string& text : said) {
        ASSERT_TRUE(b->process(in.view(), &out));
        text = b->explain();
    }
    EXPECT_EQ(said[0], said[1]) << "the counts are the last frame's, not a sum over frames";
    const std::size_t at = said[1].find("the last frame's hysteresis: ");
    ASSERT_NE(at, std::string::npos) << said[1];
    unsigned passes = 0, tiles = 0, all = 0, gx = 0, gy = 0, iterations = 0;
    ASSERT_EQ(std::sscanf(said[1].c_str() + at,
                          "the last frame's hysteresis: %u passes ran %u tiles (the first all %u of %ux%u), %u iterations of the "
                          "tile loop",
                          &passes, &tiles, &all, &gx, &gy, &iterations),
              6)
        << said[1];
    EXPECT_GE(passes, 1u);
    EXPECT_EQ(gx, 4u);
    EXPECT_EQ(gy, 3u);
    EXPECT_EQ(all, 12u);
    EXPECT_GE(tiles, all);
    EXPECT_LE(tiles, passes * all);
    EXPECT_GE(iterations, tiles);  // every tile a pass runs loops at least once
    EXPECT_LE(iterations, tiles * 256u);

    // Every dispatch as it ran: the first pass's workgroups of 16 invocations (a row of the tile
    // each), the listed passes' as the GPU counted them, and the gate (one invocation) once a
    // dispatch.
    unsigned dispatches = 0, indirect = 0;
    const std::size_t issued = said[1].find("the last frame issued ");
    ASSERT_NE(issued, std::string::npos) << said[1];
    ASSERT_EQ(std::sscanf(said[1].c_str() + issued, "the last frame issued %u dispatches, %u of them indirect", &dispatches, &indirect), 2);
    EXPECT_EQ(indirect % 16, 0u) << "the hysteresis runs in batches of 16 passes";
    EXPECT_GE(indirect + 1, passes);
    const auto invocations = [&](const std::string& program) {
        const std::size_t line = said[1].find("\n  " + program + ": ", said[1].find("the last frame's invocations per program"));
        return line == std::string::npos ? -1L : std::atol(said[1].c_str() + said[1].find(": ", line + 3) + 2);
    };
    EXPECT_EQ(invocations("gradient.comp TAN22_5=0.414213562 TAN67_5=2.41421356"), 64L * 48) << said[1];
    EXPECT_EQ(invocations("hysteresis.comp"), 12L * 16) << said[1];
    EXPECT_EQ(invocations("hysteresis.comp LISTED=1"), static_cast<long>(tiles - all) * 16) << said[1];
    EXPECT_EQ(invocations("hysteresis_gate.comp"), static_cast<long>(indirect)) << said[1];
    EXPECT_EQ(dispatches, 2 * indirect + 6) << "two blurs, gradient, suppression, the first pass, output, and a gate a pass";
}

/// A line wound as a square spiral through `size`, `gap` pixels between its turns, a little
/// brighter along its first pixels: at the thresholds below its edges are weak but there.
Image<std::uint8_t> spiral(test::Size size, int gap) {
    Image<std::uint8_t> img(size.w, size.h);
    for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) img.at(x, y) = 0;
    const auto line = [&](int x0, int y0, int x1, int y1) {
        for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y)
            for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) img.at(x, y) = 60;
    };
    int left = 4, top = 4, right = size.w - 5, bottom = size.h - 5;
    while (left + gap <= right && top + 2 * gap <= bottom) {
        line(left, top, right, top);
        line(right, top, right, bottom);
        line(right, bottom, left, bottom);
        line(left, bottom, left, top + gap);
        line(left, top + gap, left + gap, top + gap);
        left += gap;
        top += gap;
        right -= gap;
        bottom -= gap;
    }
    for (int x = 4; x < 10; ++x) img.at(x, 4) = 80;  // strong enough at a high threshold the rest is not
    return img;
}

TEST(Gles31Hysteresis, CarriesAWeakSpiralThroughItsTilesAsTheReferenceDoes) {
    // One strong seed and a weak line that leaves and re-enters tiles dozens of times (corners
    // included, where only a diagonal neighbour holds the next pixel): the passes after the
    // first run only the tiles the last one listed, and must reach the reference's edge map.
    // Then the same spiral's map through a second edge stage: the two stages' hysteresis steps
    // share the plan's work and grid buffers, each starting them afresh.
    if (!hasCompute()) GTEST_SKIP() << "no GLES 3.1 compute here";
    for (const char* text : {"edges low-threshold=0.008 high-threshold=0.026",
                             "edges low-threshold=0.008 high-threshold=0.026 ! blur sigma=1 ! edges"})
    for (const test::Size size : {test::Size{128, 96}, test::Size{75, 61}}) {
        const Chain chain = chainOf(text);
        const Image<std::uint8_t> in = spiral(size, 6);
        reference::ReferenceBackend ref;
        ASSERT_TRUE(ref.configure(chain, FrameFormat{size.w, size.h}));
        ChainOutput want, got;
        ASSERT_TRUE(ref.process(in.view(), &want));
        std::unique_ptr<Backend> b;
        std::string fallback;
        ASSERT_TRUE(startBackend(BackendKind::GlesCompute, BackendOptions{0, "host"}, chain, FrameFormat{size.w, size.h}, &b,
                                 &fallback));
        ASSERT_EQ(fallback, "");
        ASSERT_TRUE(b->process(in.view(), &got));
        int edges = 0, differ = 0;
        for (int y = 0; y < size.h; ++y)
            for (int x = 0; x < size.w; ++x) {
                edges += want.real.at(x, y) > 0.5f;
                differ += (want.real.at(x, y) > 0.5f) != (got.real.at(x, y) > 0.5f);
            }
        EXPECT_GT(edges, (size.w + size.h) * 6) << "the reference follows the spiral";
        EXPECT_EQ(differ, 0) << text << " " << size.w << "x" << size.h << " of " << edges << " edge pixels";
        // The first stage's line: its own passes (a second stage prints its own line after it).
        const std::string said = b->explain();
        unsigned passes = 0;
        ASSERT_EQ(std::sscanf(said.c_str() + said.find("the last frame's hysteresis: "), "the last frame's hysteresis: %u passes", &passes), 1);
        EXPECT_GE(passes, 10u) << "the spiral crosses a tile's border many times: " << said;
        std::size_t lines = 0;
        for (std::size_t at = said.find("the last frame's hysteresis: "); at != std::string::npos;
             at = said.find("the last frame's hysteresis: ", at + 1))
            ++lines;
        EXPECT_EQ(lines, chain.stages.size() == 1 ? 1u : 2u) << "a line an edge stage: " << said;
    }
}

TEST(GlesWithoutCompute, BoardsThatNeedMoreThanTheContextAreErrors) {
    if (hasCompute() || !hasGles()) GTEST_SKIP() << "this machine's context has compute, or there is none";
    std::unique_ptr<Backend> b;
    std::string fallback;
    const Status s = startBackend(BackendKind::Auto, BackendOptions{0, "rpi4"}, chainOf("blur"), FrameFormat{8, 8}, &b,
                                  &fallback);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("board 'rpi4' needs GLES 3.1"), std::string::npos) << s.message();
}

TEST(Auto, PicksFromTheContextTheBoardAndTheRenderer) {
    BackendKind kind;
    std::string reason;
    ASSERT_TRUE(autoBackend(BackendOptions{0, "host"}, &kind, &reason));
    const Probe probe = probeMachine();
    if (!hasGles()) {
        EXPECT_EQ(kind, BackendKind::Cpu) << reason;
        return;
    }
    // A software renderer (llvmpipe here) runs on the cores the cpu backend has: auto picks cpu.
    if (probe.softwareRenderer) {
        EXPECT_EQ(kind, BackendKind::Cpu) << reason;
        EXPECT_NE(reason.find("is a software renderer"), std::string::npos) << reason;
    }
    // The rule for a GPU of its own, from this context's facts under each board.
    Probe gpu = probe;
    gpu.softwareRenderer = false;
    BoardLimits limits;
    ASSERT_TRUE(resolveBoard("host", gpu, &limits));
    EXPECT_EQ(autoRule(gpu, limits, nullptr, &reason), hasCompute() ? BackendKind::GlesCompute : BackendKind::GlesFragment) << reason;
    ASSERT_TRUE(resolveBoard("tight", gpu, &limits));
    EXPECT_EQ(autoRule(gpu, limits, nullptr, &reason), BackendKind::GlesFragment) << reason;
    EXPECT_NE(reason.find("board 'tight' has GLES 2.0 without compute shaders"), std::string::npos) << reason;
}

/// Runs `text` on gles-fragment under `board` with each of two fragment options on the scene of
/// `size`, into `b`, and expects the two results to be the same to the bit.
void expectSameResults(const char* board, const char* text, test::Size size, const gles::FragmentOptions (&fragment)[2],
                       std::unique_ptr<Backend> (&b)[2]) {
    const Chain chain = chainOf(text);
    const Image<std::uint8_t> in = test::scene(size);
    ChainOutput out[2];
    for (int i = 0; i < 2; ++i) {
        const BackendOptions options{0, board};
        std::string fallback;
        ASSERT_TRUE(startBackendWithForms(BackendKind::GlesFragment, options, fragment[i], chain,
                                          FrameFormat{size.w, size.h}, &b[i], &fallback));
        ASSERT_EQ(fallback, "") << text;
        ASSERT_TRUE(b[i]->process(in.view(), &out[i]));
    }
    for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x)
            ASSERT_EQ(out[0].real.at(x, y), out[1].real.at(x, y))
                << board << " " << text << " " << size.w << "x" << size.h << " at " << x << "," << y;
}

/// The stencil (only weak pixels shaded) against full-frame draws, on float and packed planes
/// (and on GLES 2.0 and 3.0 contexts, in those environments), at each of `sizes`: the same edge
/// maps, to the bit.
void expectTheStencilGivesTheFullFrameResult(std::initializer_list<test::Size> sizes) {
    gles::FragmentOptions fragment[2];
    fragment[0].hysteresis = fragment[1].hysteresis = gles::HysteresisForm::Draws;
    fragment[0].hysteresisStencil = false;
    fragment[1].hysteresisStencil = true;
    for (const char* board : {"host", "rpi3"})
        for (const char* text : {"edges", "edges sigma=2.5 output=overlay", "edges method=gabor output=strength"})
            for (const test::Size size : sizes) {
                std::unique_ptr<Backend> b[2];
                expectSameResults(board, text, size, fragment, b);
                ASSERT_TRUE(b[1]) << text;
                const auto* withStencil = dynamic_cast<gles::FragmentBackend*>(b[1].get());
                bool used = false;
                for (const auto& p : withStencil->passes()) used = used || p.grid.find("(stencil)") != std::string::npos;
                EXPECT_TRUE(used) << "Mesa completes a stencil buffer on the class planes: " << text;
            }
}

TEST(Hysteresis, DrawingOnlyTheWeakPixelsGivesTheFullFrameResult) {
    expectTheStencilGivesTheFullFrameResult({test::Size{1, 1}, test::Size{33, 7}, test::Size{131, 67}});
}

TEST(Hysteresis, OverTheManyRoundsOfAQvgaFrameTheStencilGivesTheFullFrameResult) {
    // Growth over dozens of rounds, the stencil rebuilt between them (nine tenths of this test's
    // time: under qemu the smaller sizes above prove the ARM build, tests/CMakeLists.txt).
    expectTheStencilGivesTheFullFrameResult({test::Size{320, 240}});
}

TEST(Hysteresis, TheCpuFloodGivesTheDrawsResult) {
    // The class map read back once, flooded on the cpu and uploaded, against the draws repeated
    // until stable: the same edge maps, to the bit, on float and packed planes with four classes
    // to a texel (a byte a pixel read back) and on `tight`, whose budget keeps one class a texel
    // (the red of each), in every output, with no draw of its own. Where
    // the `edges` output ends the chain, a frame in system memory takes it from the flood: no
    // upload, no output draw, nothing read back but the classes.
    gles::FragmentOptions fragment[2];
    fragment[0].hysteresis = gles::HysteresisForm::Draws;
    fragment[1].hysteresis = gles::HysteresisForm::CpuFlood;
    for (const char* board : {"host", "rpi3", "tight"})
        for (const char* text : {"edges", "edges method=gabor", "edges sigma=2.5 output=overlay", "edges method=gabor output=strength",
                                 "edges ! blur sigma=1"})
            for (const test::Size size : {test::Size{1, 1}, test::Size{5, 3}, test::Size{33, 7}, test::Size{131, 67}}) {
                std::unique_ptr<Backend> b[2];
                expectSameResults(board, text, size, fragment, b);
                ASSERT_TRUE(b[1]) << text;
                const auto& passes = dynamic_cast<gles::FragmentBackend*>(b[1].get())->passes();
                EXPECT_TRUE(std::any_of(passes.begin(), passes.end(), [](const gles::PassInfo& p) { return p.name == "edges.hysteresis (cpu flood)"; }))
                    << board << " " << text;
                EXPECT_FALSE(std::any_of(passes.begin(), passes.end(), [](const gles::PassInfo& p) {
                    return p.name.rfind("edges.hysteresis", 0) == 0 && p.name != "edges.hysteresis (cpu flood)";
                })) << board << " " << text;
                const std::string explained = b[1]->explain();
                const bool fromFlood = std::string_view(text) == "edges" || std::string_view(text) == "edges method=gabor";
                EXPECT_EQ(explained.find(" and uploaded 0 between its draws") != std::string::npos, fromFlood) << board << " " << text;
                EXPECT_EQ(explained.find("reads back 0\n") != std::string::npos, fromFlood) << board << " " << text << explained;
            }
}

TEST(Tiles, ATiledBlurGivesTheFrameSizedPlanesResult) {
    // A tall frame's two-pass blur (on quads, or the direct Gaussian per pixel, packed too) runs
    // its horizontal pass a band of rows at a time into a tile (FragmentPlanner::banded), each
    // band's vertical pass reading its tile: the same result, to the bit, as one frame-sized
    // plane (whose accuracy test_gles_conformance checks), at heights that make the last band
    // short and the bands' tiles meet the frame's edges.
    gles::FragmentOptions fragment[2];
    fragment[0].tiles = gles::TileUse::Never;
    fragment[1].tiles = gles::TileUse::Always;
    int tiledCases = 0;
    for (const char* board : {"host", "rpi3"})
        for (const char* text : {"blur sigma=2", "blur sigma=4", "edges", "gabor sigma=4 wavelength=8"})
            for (const test::Size size : {test::Size{6, 1030}, test::Size{3, 1283}}) {
                std::unique_ptr<Backend> b[2];
                expectSameResults(board, text, size, fragment, b);
                ASSERT_TRUE(b[0] && b[1]) << text;
                // Tiles where the frame-sized plan has a quad blur or a direct Gaussian in one pass an
                // axis, a pixel a fragment (packed Canny's two a fragment runs in no tile: its
                // planes take the storage the per-pixel passes would).
                bool tileable = false, tiled = false;
                for (const auto& p : dynamic_cast<gles::FragmentBackend*>(b[0].get())->passes())
                    tileable = tileable || p.name.find("on quads") != std::string::npos ||
                               (p.name.rfind("blur.direct x sigma=", 0) == 0 && p.name.find("two pixels") == std::string::npos);
                for (const auto& p : dynamic_cast<gles::FragmentBackend*>(b[1].get())->passes())
                    tiled = tiled || p.name.find("a tile of rows") != std::string::npos;
                EXPECT_EQ(tiled, tileable) << board << " " << text << " " << size.w << "x" << size.h;
                tiledCases += tiled;
            }
    EXPECT_GT(tiledCases, 0) << "every context tiles the direct Gaussian (rpi3's packed planes)";
}

TEST(NoDisplay, GpuBackendsFallBackToCpuWithTheCause) {
    if (hasGles()) GTEST_SKIP() << "this machine has a GLES context";
    const Chain chain = chainOf("edges");
    const Image<std::uint8_t> in = test::scene({40, 30});
    for (BackendKind kind : {BackendKind::GlesCompute, BackendKind::GlesFragment}) {
        std::unique_ptr<Backend> b;
        std::string fallback;
        ASSERT_TRUE(startBackend(kind, BackendOptions{}, chain, FrameFormat{40, 30}, &b, &fallback));
        EXPECT_STREQ(b->name(), "cpu");
        EXPECT_NE(fallback.find("no GLES context: no EGL display"), std::string::npos) << fallback;
        ChainOutput out;
        EXPECT_TRUE(b->process(in.view(), &out));
    }
}

TEST(Gles31Faults, AShaderThatDoesNotCompileIsAnErrorNamingIt) {
    if (!hasCompute()) GTEST_SKIP() << "no GLES 3.1 compute here";
    // Limits that promise far more workgroup memory than the GPU has: the box shader's line no
    // longer fits, and the driver refuses it.
    std::unique_ptr<gles::ComputeBackend> b;
    ASSERT_TRUE(gles::ComputeBackend::create(
        gles::GpuLimits{.compute = true, .computeInvocations = 1024, .computeSharedBytes = 1 << 24, .maxTextureSize = 16384}, &b));
    const Status s = b->configure(chainOf("blur sigma=4 method=boxes"), FrameFormat{8000, 4});  // 64 KiB of line
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("box_blur.comp"), std::string::npos) << s.message();
}

TEST(Faults, AFrameBeyondTheTextureLimitRunsOnCpuAndTheFallbackNamesTheLimit) {
    std::unique_ptr<Backend> b;
    std::string fallback;
    ASSERT_TRUE(startBackend(BackendKind::GlesFragment, BackendOptions{0, "tight"}, chainOf("blur"), FrameFormat{2049, 8},
                             &b, &fallback));
    EXPECT_STREQ(b->name(), "cpu");
    EXPECT_NE(fallback.find("frame 2049x8 exceeds the board's maximum texture size 2048"), std::string::npos) << fallback;
    // The decision refuses it, before any backend is made, in GstGL's context too.
    for (const Placement placement : {Placement::OwnContext, Placement::CurrentContext}) {
        BackendChoice choice;
        ASSERT_TRUE(chooseBackend(BackendKind::GlesFragment, BackendOptions{0, "tight"}, chainOf("blur"), FrameFormat{2049, 8},
                                  placement, &choice));
        EXPECT_EQ(choice.kind, BackendKind::Cpu);
        EXPECT_EQ(choice.fallback, fallback);
    }
    if (!hasCompute()) return;
    ASSERT_TRUE(startBackend(BackendKind::GlesCompute, BackendOptions{0, "rpi4"}, chainOf("edges"), FrameFormat{16, 4097},
                             &b, &fallback));
    EXPECT_STREQ(b->name(), "cpu");
    EXPECT_NE(fallback.find("exceeds the GPU's maximum texture size 4096"), std::string::npos) << fallback;
}

/// Issue 16 finding 8: a GPU edge map of an 8192x8192 frame took minutes and gigabytes. Beyond
/// 3840x2160 pixels an edge map (either method, edges or overlay) runs on cpu, saying why; the
/// strength output (no hysteresis) and a blur stay on the GPU. The fallback is made at 4000x2200
/// (the cpu backend's planes fit a 32-bit process under qemu); the rest is validation only.
TEST(Faults, AnEdgeMapBeyond4kRunsOnCpuAndTheFallbackNamesTheLimit) {
    for (BackendKind kind : {BackendKind::GlesFragment, BackendKind::GlesCompute}) {
        if (kind == BackendKind::GlesCompute && !hasCompute()) continue;
        std::unique_ptr<Backend> b;
        std::string fallback;
        for (const char* chain : {"edges", "edges method=gabor output=overlay", "blur ! edges"}) {
            ASSERT_TRUE(startBackend(kind, BackendOptions{0, "host"}, chainOf(chain), FrameFormat{4000, 2200}, &b, &fallback));
            EXPECT_STREQ(b->name(), "cpu") << chain;
            EXPECT_NE(fallback.find("frame 4000x2200 is beyond the 8294400 pixels (3840x2160) whose edge map"), std::string::npos)
                << fallback;
        }
        // Just beyond, and at, the limit: the GPU backend's validate alone.
        std::unique_ptr<Backend> g;
        ASSERT_TRUE(startBackend(kind, BackendOptions{0, "host"}, chainOf("edges output=strength"), FrameFormat{64, 48}, &g, &fallback));
        ASSERT_EQ(std::string(g->name()), nickOf(kBackendKinds, kind));
        EXPECT_FALSE(g->validate(chainOf("edges"), FrameFormat{3841, 2160}));
        EXPECT_FALSE(g->validate(chainOf("edges"), FrameFormat{8192, 8192}));
        EXPECT_TRUE(g->validate(chainOf("edges"), FrameFormat{3840, 2160}));
        EXPECT_TRUE(g->validate(chainOf("edges output=strength"), FrameFormat{8192, 8192}));
        EXPECT_TRUE(g->validate(chainOf("blur sigma=2"), FrameFormat{8192, 8192}));
    }
}

/// A frame whose planes the process cannot allocate (a 32-bit board, a memory limit) is an error
/// naming the frame, not an exception that ends the process (an element's streaming thread).
TEST(Faults, OutOfMemoryWhileStartingIsAnErrorNamingTheFrame) {
#if defined(STRIATE_UNDER_ASAN) || defined(STRIATE_UNDER_TSAN)
    GTEST_SKIP() << "a sanitizer reserves terabytes of address space: no address-space limit can apply";
#else
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
        std::fclose(f);
    }
    ASSERT_GT(pages, 0);
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
    // 128 MB beyond what the process maps now; the cpu backend's Canny planes for 8192x8192 take
    // about 280 MB.
    const rlimit tight{static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (rlim_t(128) << 20), old.rlim_max};
    ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
    std::unique_ptr<char[]> probe(new (std::nothrow) char[std::size_t(512) << 20]);
    std::unique_ptr<Backend> b;
    std::string fallback;
    const Status s = probe ? Status{} : startBackend(BackendKind::Cpu, BackendOptions{1, ""}, chainOf("edges"),
                                                     FrameFormat{8192, 8192}, &b, &fallback);
    setrlimit(RLIMIT_AS, &old);
    if (probe) GTEST_SKIP() << "the address-space limit is not enforced here (qemu-user ignores RLIMIT_AS)";
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("not enough memory for 8192x8192 frames of 'edges"), std::string::npos) << s.message();
    EXPECT_EQ(b, nullptr);
#endif
}

} // namespace
} // namespace striate
