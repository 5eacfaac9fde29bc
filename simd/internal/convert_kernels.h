// Declarations of the array conversion kernels (defined and instantiated per ISA in
// convert_kernels.cc). Dispatching code: <tessera/simd/convert_array.h>.
#ifndef TESSERA_SIMD_INTERNAL_CONVERT_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_CONVERT_KERNELS_H_

#include <cstdint>

#include "tessera/core/data_type.h"

namespace tessera::simd::internal {

// dst[i] = Dst(src[i]) for i < n, through f32; exactly the scalar reference's rules.
template <class Arch, Element Src, Element Dst>
void convert_kernel(const Src* src, Dst* dst, int64_t n);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_CONVERT_KERNELS_H_
