#pragma once
// striate.Filter: a chain on one backend, configured on its first frame and again only when the
// frame's size changes (python/module.cpp binds it).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/chain.h"
#include "core/image.h"
#include "python/frames.h"

namespace striate::python {

/// Where one frame's output goes: 8-bit samples (the backend's 8-bit path, or the magnitude of a
/// complex output) or the float output copied out (H x W, or H x W x 2 for a complex one).
struct Destination {
    ArrayDesc array;      ///< the output array (data writable)
    bool raw = false;
};

class Filter {
public:
    /// Errors are the CLI's messages: the chain's, an unknown backend, an unknown board. `threads`:
    /// 0 for one per hardware thread (the binding checks a given number).
    static Status make(const std::string& chain, const std::string& backend, const std::string& board, int threads,
                       std::int64_t maxPixels, std::unique_ptr<Filter>* out);

    const Chain& chain() const { return chain_; }
    std::int64_t maxPixels() const { return maxPixels_; }
    const char* requestedBackend() const;
    /// The backend that ran the last frame; null before the first.
    const char* activeBackend() const { return backend_ ? backend_->name() : nullptr; }
    std::string explain() const;
    bool inputInPlace() const { return inPlace_; }
    MemoryUse memory() const { return backend_ ? backend_->memory() : MemoryUse{}; }

    /// Claims the Filter for one frame; false when another thread is filtering one (the binding
    /// raises). release() ends the claim.
    bool claim() { return !busy_.exchange(true); }
    void release() { busy_.store(false); }

    /// One frame (the caller holds the claim, not the GIL): configures the backend when the size
    /// changed, converts the frame where the backend cannot read it in place, runs it. A GPU backend
    /// that cannot start or fails on the frame leaves a warning in `warnings`, and the cpu runs it.
    Status run(const FrameSource& frame, const Destination& to, std::vector<std::string>* warnings);

private:
    Status configure(const FrameFormat& format, std::vector<std::string>* warnings);
    Status runOn(Backend& backend, ImageView<const std::uint8_t> luma, const Destination& to);

    Chain chain_;
    BackendKind kind_ = BackendKind::Auto;
    BackendOptions options_;
    std::int64_t maxPixels_ = 0;
    std::unique_ptr<Backend> backend_;
    FrameFormat format_;
    Image<std::uint8_t> luma_;  ///< frames the backend cannot read in place, converted
    Image<std::uint8_t> out8_;  ///< 8-bit output for arrays the backend cannot write in place
    bool inPlace_ = false;
    std::atomic<bool> busy_{false};
};

} // namespace striate::python
