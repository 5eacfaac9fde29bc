// Compiles only when Tessera's targets reached this workspace's own Abseil (see BUILD.bazel).
#include <tessera/primitives/reorder/reorder.h>

#ifndef EXAMPLE_MONOREPO_ABSEIL
#error "Tessera was not built against the workspace's @com_google_absl (abseil/)"
#endif

namespace own_abseil_consumer {

// What the test links, so that this file's check is part of its build.
bool tessera_uses_monorepo_abseil() { return EXAMPLE_MONOREPO_ABSEIL == 1; }

}  // namespace own_abseil_consumer
