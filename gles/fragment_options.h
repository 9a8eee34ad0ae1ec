#pragma once

#include "core/spec.h"

/// The forms gles-fragment may choose among for one plan, which a caller may force (the tests
/// and benchmarks force each, through board/backend_choice.h's startBackend): plain data with no
/// GL, so board/ and the tools include it whether or not GLES is built. Not public: the installed
/// headers (core/) name no backend.
namespace striate::gles {

/// How the gles-fragment backend runs recursive filters (docs/algorithms.md, "The GLES backends"):
/// as an FIR of the recursion's own two-sided response cut where its tail is negligible (exact
/// replicate borders make the two the same filter), in strips of first-order sections
/// (docs/algorithms.md 6), or in the strips' block form. Auto: the response where it is short, else
/// strips.
enum class RecursiveForm { Auto, Response, Strips, Block };
inline constexpr EnumName<RecursiveForm> kRecursiveForms[] = {{RecursiveForm::Auto, "auto"},
                                                             {RecursiveForm::Response, "response"},
                                                             {RecursiveForm::Strips, "strips"},
                                                             {RecursiveForm::Block, "block"}};

/// Whether gles-fragment's boxes come from the sum pyramid (docs/algorithms.md 2.4, float planes
/// only) where it needs fewer fetches than the taps, always, or never.
enum class PyramidUse { WhereCheaper, Always, Never };

/// Whether gles-fragment's two-pass blurs run in bands with a tile of rows between the passes.
enum class TileUse { Never, WhereSmaller, Always };

/// How gles-fragment runs Canny's hysteresis (docs/algorithms.md, "The GLES backends"): pairs of
/// draws repeated until the classes stop changing, each growing the edges one pixel (the stencil
/// below limiting them to weak pixels), or the class map read back once, flooded on the cpu
/// (core/hysteresis.h, as the cpu backend floods) and uploaded again. The same edges either way.
enum class HysteresisForm { Draws, CpuFlood };
inline constexpr EnumName<HysteresisForm> kHysteresisForms[] = {{HysteresisForm::Draws, "draws"},
                                                               {HysteresisForm::CpuFlood, "cpu-flood"}};

/// gles-fragment's choices among equivalent forms of a plan.
struct FragmentOptions {
    RecursiveForm recursiveForm = RecursiveForm::Auto;
    PyramidUse boxPyramid = PyramidUse::WhereCheaper;
    HysteresisForm hysteresis = HysteresisForm::CpuFlood;
    /// HysteresisForm::Draws shade only the weak pixels, through a stencil buffer, where one
    /// completes the class planes' framebuffers; false: full-frame draws (the tests compare both).
    bool hysteresisStencil = true;
    /// A tall frame's two-pass blur runs its horizontal pass a band at a time into a tile of
    /// rows (FragmentPlanner::banded) where that makes the plan smaller; Never and Always for the
    /// tests, which compare both.
    TileUse tiles = TileUse::WhereSmaller;
};

} // namespace striate::gles
