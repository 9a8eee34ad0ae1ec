#include "python/filter.h"

#include <cstring>

#include "board/backend_choice.h"
#ifdef STRIATE_HAVE_GLES
#include "board/profile.h"
#endif

namespace striate::python {
namespace {

/// True where the backend's 8-bit path can write the array itself: samples after one another
/// (any positive step) and rows after one another (no row overlapping the next).
bool writableInPlace(const ArrayDesc& a) {
    return a.strides[1] >= 1 && a.strides[0] >= a.shape[1] * a.strides[1];
}

} // namespace

Status Filter::make(const std::string& chain, const std::string& backend, const std::string& board, int threads,
                    std::int64_t maxPixels, std::unique_ptr<Filter>* out) {
    auto f = std::make_unique<Filter>();
    if (Status s = parseChain(chain, &f->chain_); !s) return s;
    if (Status s = parseBackendKind(backend, &f->kind_); !s) return s;
#ifdef STRIATE_HAVE_GLES
    if (Status s = checkBoardName(board); !s) return s;
#endif
    if (maxPixels < 1) return Status::error("max_pixels=" + std::to_string(maxPixels) + " is not a positive integer");
    f->options_ = BackendOptions{threads, board};
    f->maxPixels_ = maxPixels;
    *out = std::move(f);
    return {};
}

const char* Filter::requestedBackend() const { return nickOf(kBackendKinds, kind_); }

std::string Filter::explain() const {
    std::string text = "chain: " + formatChain(chain_) + "\nbackend: ";
    if (!backend_) return text + "none yet (the first frame configures it; backend='" + requestedBackend() + "')\n";
    return text + backend_->name() + "\n" + backend_->explain();
}

Status Filter::configure(const FrameFormat& format, std::vector<std::string>* warnings) {
    if (backend_ && format.width == format_.width && format.height == format_.height) return {};
    backend_.reset();  // the old plan's memory goes before the new one is made
    std::string fallback;
    if (Status s = startBackend(kind_, options_, chain_, format, &backend_, &fallback); !s) return s;
    if (!fallback.empty()) warnings->push_back(fallback + "; using the cpu backend");
    format_ = format;
    return {};
}

Status Filter::run(const FrameSource& frame, const Destination& to, std::vector<std::string>* warnings) {
    if (Status s = configure(FrameFormat{frame.width, frame.height}, warnings); !s) return s;
    ImageView<const std::uint8_t> luma = frame.view;
    inPlace_ = frame.inPlace;
    if (!frame.inPlace) {
        convert(frame, &luma_);
        luma = luma_.view();
    }
    std::string warning;
    const Status s = runWithCpuFallback(
        &backend_, options_, chain_, format_, [&](Backend& b) { return runOn(b, luma, to); }, &warning);
    if (!warning.empty()) warnings->push_back(warning);
    return s;
}

Status Filter::runOn(Backend& backend, ImageView<const std::uint8_t> luma, const Destination& to) {
    const ArrayDesc& a = to.array;
    std::uint8_t* data = const_cast<std::uint8_t*>(a.data);
    const Encoding encoding = chain_.encoding();
    if (!to.raw && !chain_.complexOutput()) {
        if (writableInPlace(a)) return backend.process8(luma, Output8{data, a.strides[0], static_cast<int>(a.strides[1]), encoding});
        out8_.reset(luma.width, luma.height);
        if (Status s = backend.process8(luma, Output8{out8_.data(), out8_.stride(), 1, encoding}); !s) return s;
        for (int y = 0; y < luma.height; ++y)
            for (int x = 0; x < luma.width; ++x) data[y * a.strides[0] + x * a.strides[1]] = out8_.at(x, y);
        return {};
    }
    ChainOutput result;
    if (Status s = backend.process(luma, &result); !s) return s;
    for (int y = 0; y < luma.height; ++y) {
        std::uint8_t* row = data + y * a.strides[0];
        for (int x = 0; x < luma.width; ++x) {
            std::uint8_t* at = row + x * a.strides[1];
            if (!to.raw) {
                *at = encode8(result.real.at(x, y), encoding);
            } else if (result.complex) {
                const Complex32 z = result.complexPlane.at(x, y);
                const float re = z.real(), im = z.imag();
                std::memcpy(at, &re, sizeof re);
                std::memcpy(at + a.strides[2], &im, sizeof im);
            } else {
                const float v = result.real.at(x, y);
                std::memcpy(at, &v, sizeof v);
            }
        }
    }
    return {};
}

} // namespace striate::python
