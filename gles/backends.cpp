// The GLES backends' factories (gles/texture_backend.h): the one place outside gles/ that needs a
// GLES backend asks here, by kind, and never names the class.
#include "gles/compute_backend.h"
#include "gles/fragment/fragment_backend.h"
#include "gles/texture_backend.h"

namespace striate::gles {

Status createTextureBackend(const GpuLimits& limits, const FragmentOptions& forms, std::unique_ptr<TextureBackend>* out,
                            std::shared_ptr<ProgramCache> programs) {
    std::unique_ptr<FragmentBackend> b;
    if (Status s = FragmentBackend::createInCurrentContext(limits, forms, &b, std::move(programs)); !s) return s;
    *out = std::move(b);
    return {};
}

Status createBackend(BackendKind kind, const GpuLimits& limits, const FragmentOptions& forms, std::unique_ptr<Backend>* out) {
    switch (kind) {
    case BackendKind::GlesFragment: {
        std::unique_ptr<FragmentBackend> f;
        if (Status s = FragmentBackend::create(limits, forms, &f); !s) return s;
        *out = std::move(f);
        return {};
    }
    case BackendKind::GlesCompute: {
        std::unique_ptr<ComputeBackend> c;
        if (Status s = ComputeBackend::create(limits, &c); !s) return s;
        *out = std::move(c);
        return {};
    }
    case BackendKind::Auto:
    case BackendKind::Reference:
    case BackendKind::Cpu: break;
    }
    return Status::error(std::string("backend '") + nickOf(kBackendKinds, kind) + "' is not a GLES backend");
}

Status validateFrameFor(BackendKind kind, const GpuLimits& limits, const Chain& chain, const FrameFormat& format) {
    switch (kind) {
    case BackendKind::GlesFragment:
        return validateGpuFrame(chain, format, limits.maxTextureSize, FragmentBackend::kLimitOwner, "gles-fragment");
    case BackendKind::GlesCompute:
        return validateGpuFrame(chain, format, limits.maxTextureSize, ComputeBackend::kLimitOwner, "gles-compute");
    case BackendKind::Auto:
    case BackendKind::Reference:
    case BackendKind::Cpu: break;
    }
    return Status::error(std::string("backend '") + nickOf(kBackendKinds, kind) + "' is not a GLES backend");
}

} // namespace striate::gles
