#pragma once

/// Heap allocations counted by replacing the global operator new (allocation_counter.cpp, linked
/// into a test binary of its own: AddressSanitizer owns operator new, so sanitizer builds disable
/// these tests).
namespace striate::testing {

/// operator new calls so far, every thread.
long heapAllocations();

/// Chains that run every stage, method and output kind once: the per-frame allocation tests'.
inline constexpr const char* kEveryKernel[] = {"blur method=direct", "blur method=boxes sigma=5",
                                               "blur method=recursive sigma=5", "gabor method=direct sigma=2",
                                               "gabor sigma=4 orientations=4", "gabor output=complex",
                                               "gabor output=phase", "edges", "edges method=gabor output=overlay",
                                               "threshold", "blur sigma=1 ! gabor ! edges"};

} // namespace striate::testing
