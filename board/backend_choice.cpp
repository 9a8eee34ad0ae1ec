#include "board/backend_choice.h"

#include <string>

#include "cpu/neon/cpu_backend.h"
#include "cpu/reference/reference.h"

namespace striate {

Status createBackend(BackendKind kind, const BackendOptions& options, std::unique_ptr<Backend>* out) {
    switch (kind) {
    case BackendKind::Reference: *out = std::make_unique<reference::ReferenceBackend>(); return {};
    case BackendKind::Auto:
    case BackendKind::Cpu: *out = std::make_unique<cpu::CpuBackend>(options.threads); return {};
    case BackendKind::GlesCompute:
    case BackendKind::GlesFragment: break;
    }
    return Status::error(std::string("backend '") + nickOf(kBackendKinds, kind) +
                         "' is not available: this build has no GLES support");
}

} // namespace striate
