// The worked example of docs/architecture.md, part 1 of 2: the kernel's declaration. Included by
// the per-ISA source (which defines and instantiates it) and by the dispatching code (which only
// takes addresses). Never build a kernel_table here: a table names every ISA's instantiation, and
// in a per-ISA translation unit, where the definition is visible, that would instantiate the
// other ISAs' code with this ISA's flags.
//
//   template <class Arch> void scale_f32(const float* src, float* dst, int64_t n, float factor);
#ifndef TESSERA_SIMD_INTERNAL_EXAMPLE_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_EXAMPLE_KERNELS_H_

#include <cstdint>

namespace tessera::simd::internal {

// dst[i] = src[i] * factor for i < n. Defined in example_kernels.cc, instantiated once per ISA.
template <class Arch>
void scale_f32(const float* src, float* dst, int64_t n, float factor);

using scale_f32_fn = void(const float* src, float* dst, int64_t n, float factor);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_EXAMPLE_KERNELS_H_
