// The GLES backends allocate nothing per frame after the first (core/backend.h; issue 28): no heap
// allocation (a replaced operator new counts them, tests/support/allocation_counter.h), no GL
// object created or storage re-specified, no uniform looked up by name (the GL calls are counted
// by interposition, tests/support/gl_accounting.h), and no program-cache lookup, for every stage
// on each backend; and the GPU memory each plan says it holds is what the GL calls allocated.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "board/backend_choice.h"
#include "core/chain.h"
#include "core/image.h"
#include "gles/gles_backend.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/gl_accounting.h"

namespace striate {
namespace {

struct Case {
    BackendKind kind;
    const char* board;  // gles-fragment: float targets (host) or packed RGBA8 (rpi3)
    const char* chain;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << nickOf(kBackendKinds, c.kind) << " board=" << c.board << " \"" << c.chain << "\"";
}

std::string nameOf(const ::testing::TestParamInfo<Case>& info) {
    std::string n = std::string(nickOf(kBackendKinds, info.param.kind)) + "_" + info.param.board + "_" + info.param.chain;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n + "_" + std::to_string(info.index);
}

class GpuFrames : public ::testing::TestWithParam<Case> {};

TEST_P(GpuFrames, AllocateNothingAfterTheFirst) {
    const Case& c = GetParam();
    Chain chain;
    ASSERT_TRUE(parseChain(c.chain, &chain));
    const FrameFormat fmt{97, 61};
    std::unique_ptr<Backend> backend;
    std::string fallback;
    testing::resetGlPeak();
    const std::size_t bytesBefore = testing::glAccount().liveBytes;
    ASSERT_TRUE(startBackend(c.kind, BackendOptions{2, c.board}, chain, fmt, &backend, &fallback));
    if (!fallback.empty()) GTEST_SKIP() << "no " << nickOf(kBackendKinds, c.kind) << " here: " << fallback;
    ASSERT_TRUE(backend->runsOnGpu());
    ASSERT_TRUE(testing::glAccountingActive()) << "the GL calls do not reach the counting wrappers";
    Image<std::uint8_t> in(fmt.width, fmt.height);
    for (int y = 0; y < fmt.height; ++y)
        for (int x = 0; x < fmt.width; ++x) in.at(x, y) = static_cast<std::uint8_t>((x * 7 + y * 13) & 255);
    ChainOutput out;
    ASSERT_TRUE(backend->process(in.view(), &out));
    // What the backend says it holds on the GPU is what its GL calls allocated.
    const testing::GlAccount first = testing::glAccount();
    EXPECT_EQ(first.unknownFormats, 0);
    EXPECT_EQ(first.liveBytes - bytesBefore, backend->memory().gpu);
    // Five more frames by `run` ("frames" or "8-bit frames"): nothing allocated, created,
    // re-specified or looked up, and the GPU memory of the first frame.
    const auto fiveFrames = [&](const char* what, auto&& run) {
        const testing::GlAccount before = testing::glAccount();
        const long heap = testing::heapAllocations();
        for (int i = 0; i < 5; ++i) ASSERT_TRUE(run());
        const testing::GlAccount later = testing::glAccount();
        EXPECT_EQ(testing::heapAllocations() - heap, 0) << "heap allocations in 5 " << what;
        EXPECT_EQ(later.created - before.created, 0) << "GL objects created in 5 " << what;
        EXPECT_EQ(later.specified - before.specified, 0) << "GL storage re-specified in 5 " << what;
        EXPECT_EQ(later.uniformLookups - before.uniformLookups, 0) << "uniforms looked up by name in 5 " << what;
        EXPECT_EQ(later.peakBytes, first.peakBytes) << "GPU memory grew in 5 " << what;
    };
    const std::size_t lookups = dynamic_cast<gles::GlesBackend&>(*backend).programLookups();
    fiveFrames("frames", [&] { return backend->process(in.view(), &out); });
    EXPECT_EQ(dynamic_cast<gles::GlesBackend&>(*backend).programLookups(), lookups) << "program-cache lookups in 5 frames";

    // The elements' 8-bit path too (process8: gles-compute's codes made on the GPU where its plan
    // ends with a spare buffer), after its own first frame.
    if (chain.complexOutput()) return;
    Image<std::uint8_t> codes(fmt.width, fmt.height);
    const Output8 to8{codes.data(), static_cast<std::ptrdiff_t>(codes.stride()), 1, chain.encoding()};
    ASSERT_TRUE(backend->process8(in.view(), to8));
    fiveFrames("8-bit frames", [&] { return backend->process8(in.view(), to8); });
}

std::vector<Case> cases() {
    std::vector<Case> all;
    for (const char* chain : testing::kEveryKernel) {
        all.push_back({BackendKind::GlesCompute, "host", chain});
        all.push_back({BackendKind::GlesFragment, "host", chain});
        all.push_back({BackendKind::GlesFragment, "rpi3", chain});
    }
    return all;
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, GpuFrames, ::testing::ValuesIn(cases()), nameOf);

} // namespace
} // namespace striate
