#pragma once
// selftest's element checks: each filter element of the installed plugin through a real in-process
// pipeline (appsrc ! element ! appsink), every input format at an odd size with odd strides,
// against the same backend's direct result on the same samples.

#include <functional>
#include <string>
#include <vector>

#include "tools/selftest/selftest.h"

namespace striate::selftest {

/// The plugin selftest checks: on the first call, a build tree's own plugin (the tool at
/// build/bin, the plugin at build/lib) goes first on GST_PLUGIN_PATH; installed tools use the one
/// GStreamer finds. Initialises GStreamer. Returns "FILE VERSION", or an error when there is none.
Status findPlugin(std::string* description);

/// Runs the element cases on `backends` (GLES ones under each of `profiles`) and calls `add` with
/// a row each (check "element"): the largest difference in 8- or 16-bit codes, budget 0. A case
/// whose backend cannot run here is a row that did not run, as in the battery.
void checkElements(const Options& options, const std::vector<BackendKind>& backends,
                   const std::vector<std::string>& profiles, const std::function<void(Row)>& add);

} // namespace striate::selftest
