#pragma once

#include <memory>

#include "core/backend.h"
#include "core/status.h"

namespace striate {

struct BackendOptions {
    int threads = 0;  ///< cpu backend threads; <= 0: one per hardware thread
};

/// The one place that turns a requested backend into a running one (DESIGN.md). `auto` picks the
/// best backend this build and machine offer; a named backend that this build lacks is an error
/// that names it. GLES backends arrive with the GLES issue; until then `auto` means `cpu`.
Status createBackend(BackendKind kind, const BackendOptions& options, std::unique_ptr<Backend>* out);

} // namespace striate
