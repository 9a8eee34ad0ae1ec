#include "core/liveness.h"

#include <algorithm>
#include <numeric>

namespace striate {

std::vector<int> shareStorage(const std::vector<int>& kinds, const std::vector<Life>& lives, std::vector<int>* storageKinds) {
    std::vector<int> order(kinds.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lives[a].first < lives[b].first; });
    std::vector<int> storage(kinds.size(), -1);
    std::vector<int> busyUntil;  // per storage: the last pass of its current value
    storageKinds->clear();
    for (int v : order) {
        if (lives[v].first < 0) continue;
        int chosen = -1;
        for (std::size_t s = 0; s < busyUntil.size() && chosen < 0; ++s)
            if ((*storageKinds)[s] == kinds[v] && busyUntil[s] < lives[v].first) chosen = static_cast<int>(s);
        if (chosen < 0) {
            chosen = static_cast<int>(busyUntil.size());
            busyUntil.push_back(0);
            storageKinds->push_back(kinds[v]);
        }
        busyUntil[chosen] = lives[v].last;
        storage[v] = chosen;
    }
    return storage;
}

} // namespace striate
