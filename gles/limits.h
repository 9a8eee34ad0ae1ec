#pragma once

#include <cstddef>

#include "core/gpu_forms.h"
#include "core/spec.h"

/// What the GLES backends may use, declared once: board profiles (board/profile.h) fill it, the
/// probe caps it, the fragment planner splits shaders to its budget, and both backends read it.
/// Plain data: no GL here, so board/ and the tools include it whether or not GLES is built.
/// gles-fragment's options (the forms it may choose among; tests and benchmarks force each) are
/// core/gpu_forms.h's, which BackendOptions carries to the backend.
namespace striate::gles {

/// Static cost of one generated fragment shader, counted by the generator as it emits the code
/// (DESIGN.md, Boards and budgets): ALU instructions (one per vector operation, an estimate),
/// texture fetches, levels of dependent reads (1: coordinates never depend on a fetch), vec4
/// uniforms, and wide fetches: those whose texel stays whole in registers until it is used (a
/// complex value's two components; a QuadRows texel, four pixels of which one is picked). v3d
/// issues texture fetches ahead of their use and holds their results, and wide ones are what made
/// it spill (27 per-pixel fetches of a QuadRows plane spilled 18 registers, 17 complex fetches
/// compile at 4 threads; docs/boards.md). A board's budget is the most one shader may cost; a
/// budget of 0 wide fetches means unbounded (vc4 holds few: 255 complex fetches took 11 registers).
struct ShaderCost {
    int alu = 0;
    int fetches = 0;
    int dependentDepth = 1;
    int uniforms = 0;
    int wideFetches = 0;
};

/// What a board offers the GLES backends. A profile caps what the probe found; in the `host`
/// profile 0 (and GLES 0.0) means "as probed".
struct GpuLimits {
    int glesMajor = 0, glesMinor = 0;  ///< the GLES version the board's driver gives
    bool compute = false;              ///< GLES 3.1 compute shaders
    int computeInvocations = 0;        ///< per workgroup
    int computeSharedBytes = 0;        ///< per workgroup
    bool floatTargets = false;         ///< float render targets (else packed RGBA8 intermediates)
    int maxTextureSize = 0;            ///< largest width or height of a texture
    /// GPU memory one backend's plan may hold (0: unbounded): the GLES backends refuse a chain and
    /// frame size whose planes need more (at caps time), and the element runs it on the cpu.
    std::size_t memoryBytes = 0;
    ShaderCost budget{};               ///< per fragment shader
    int unrollLimit = 0;               ///< iterations a generated loop may unroll to (strip width)
};

} // namespace striate::gles
