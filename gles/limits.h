#pragma once

#include <cstddef>

#include "core/spec.h"
#include "gles/fragment_options.h"

/// What the GLES backends may use, declared once: board profiles (board/profile.h) fill it, the
/// probe caps it, the fragment planner splits shaders to its budget, and both backends read it.
/// Plain data: no GL here, so board/ and the tools include it whether or not GLES is built.
/// gles-fragment's options (the forms it may choose among; tests and benchmarks force each) are
/// gles/fragment_options.h's.
namespace striate::gles {

/// Static cost of one generated fragment shader, counted by the generator as it emits the code
/// (docs/design.md, Boards and budgets): ALU instructions (one per vector operation, an estimate),
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

/// How fast a board's GPU runs what gles-fragment plans, for the planner's estimate of a plan
/// (gles/fragment/plan_cost.h; docs/boards.md, "The planner's choices per board"): an estimate from
/// published clocks and the real compilers' instruction counts, never a measurement. Zero QPUs
/// means not modelled (the host profile: llvmpipe keeps the forms its measurements chose).
struct GpuSpeed {
    int qpus = 0;                   ///< each runs a 16-wide instruction in 4 clocks
    double clockMHz = 0;
    int tmus = 0;                   ///< texture fetches a clock, the whole GPU
    double bandwidthGBs = 0;        ///< memory, GB/s, as the cpu's STREAM copy sees it
    double drawMicroseconds = 0;    ///< fixed cost of a draw: a submit and a bin/render job (assumed)
    /// The driver's instructions for a fragment shader of the generator's cost (ShaderCost):
    /// base + (perAlu + quadAlu on quads + rowsAlu on four rows) x alu + (perFetch + quadFetch
    /// + rowsFetch) x fetches, fitted to the real compiler's counts of the conformance matrix's
    /// shaders (scripts/fit_shader_counts.py): a fit, whose terms need not mean anything alone.
    double base = 0, perAlu = 0, perFetch = 0, quadAlu = 0, quadFetch = 0, rowsAlu = 0, rowsFetch = 0;
    bool operator==(const GpuSpeed&) const = default;
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
    GpuSpeed speed{};                  ///< for the planner's choice of forms (qpus 0: not modelled)
};

} // namespace striate::gles
