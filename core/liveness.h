#pragma once

#include <vector>

/// Storage shared by liveness, as a register allocator shares registers: the planes of a plan
/// (gles-compute's textures, gles-fragment's render targets) are values, each alive from the pass
/// that first uses it to the pass that last does; values whose lives do not overlap and whose
/// storage is interchangeable (the same kind: format and size) share one allocation.
namespace striate {

/// A value's life in a plan's passes, both ends inclusive; first < 0: never used.
struct Life {
    int first = -1;
    int last = -1;
    /// Extends the life to pass `pass`.
    void use(int pass) {
        if (first < 0 || pass < first) first = pass;
        if (pass > last) last = pass;
    }
};

/// The storage of each value (-1 for one never used), values of equal `kinds[i]` sharing where
/// their lives do not overlap (a linear scan in order of first use, which needs the fewest
/// storages for each kind); `storageKinds` receives the kind of each storage.
std::vector<int> shareStorage(const std::vector<int>& kinds, const std::vector<Life>& lives, std::vector<int>* storageKinds);

} // namespace striate
