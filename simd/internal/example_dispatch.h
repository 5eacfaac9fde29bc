// The worked example of docs/architecture.md, part 2 of 2: the dispatcher of scale_f32.
//
//   auto k = tessera::simd::internal::scale_table().select();   // xsimd:avx512bw:scale_f32 here
//   k.fn(src, dst, n, 0.5f);                                    // dst[i] = src[i] * 0.5f
#ifndef TESSERA_SIMD_INTERNAL_EXAMPLE_DISPATCH_H_
#define TESSERA_SIMD_INTERNAL_EXAMPLE_DISPATCH_H_

#include "tessera/simd/internal/example_kernels.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::simd::internal {

const kernel_table<scale_f32_fn>& scale_table();

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_EXAMPLE_DISPATCH_H_
