// A test-only build of `striate selftest` whose cpu backend is deliberately wrong (every output
// sample 0.01 off), so the test can show that selftest fails and names the cases. The product has
// no hook for this: the program gives selftest's command line its own backend maker.
#include <memory>

#include "tools/selftest/selftest.h"

namespace {

using namespace striate;

class WrongBackend final : public Backend {
public:
    explicit WrongBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    const char* name() const override { return inner_->name(); }
    Status validate(const Chain& chain, const FrameFormat& format) const override { return inner_->validate(chain, format); }
    Status configure(const Chain& chain, const FrameFormat& format) override { return inner_->configure(chain, format); }
    Status process(ImageView<const std::uint8_t> luma, ChainOutput* out) override {
        if (Status s = inner_->process(luma, out); !s) return s;
        real_.reset(out->real.width, out->real.height);
        for (int y = 0; y < real_.height(); ++y)
            for (int x = 0; x < real_.width(); ++x) real_.at(x, y) = out->real.at(x, y) + 0.01f;
        out->real = real_.view();
        return {};
    }

private:
    std::unique_ptr<Backend> inner_;
    Image<float> real_;
};

} // namespace

int main(int argc, char** argv) {
    return selftest::command(argc - 1, argv + 1,
                             [](BackendKind kind, const BackendOptions& options, const Chain& chain, const FrameFormat& format,
                                std::unique_ptr<Backend>* out, std::string* fallback) {
                                 Status s = startBackend(kind, options, chain, format, out, fallback);
                                 if (s && kind == BackendKind::Cpu) *out = std::make_unique<WrongBackend>(std::move(*out));
                                 return s;
                             });
}
