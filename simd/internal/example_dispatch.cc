// Compiled without -m flags: it only takes the addresses of the per-ISA instantiations.
#include "tessera/simd/internal/example_dispatch.h"

namespace tessera::simd::internal {

const kernel_table<scale_f32_fn>& scale_table() {
  // A function-local static: built on first use, after the CPU is detected, never during
  // another translation unit's static initialisation.
  static const auto table = make_kernel_table<scale_f32_fn>(
      "scale_f32", [](auto arch) { return &scale_f32<decltype(arch)>; });
  return table;
}

}  // namespace tessera::simd::internal
