// Compiled once per ISA by tessera_isa_kernels: TESSERA_SIMD_ARCH is xsimd::sse4_2, xsimd::avx2
// or xsimd::avx512bw, and this file is built with that ISA's -m flags.
#include "tessera/simd/internal/example_kernels.h"

#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {

template <class Arch>
void scale_f32(const float* src, float* dst, int64_t n, float factor) {
  using batch = xsimd::batch<float, Arch>;
  constexpr int64_t kWidth = batch::size;
  const batch f(factor);
  int64_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    (batch::load_unaligned(src + i) * f).store_unaligned(dst + i);
  }
  const int rest = static_cast<int>(n - i);
  if (rest > 0) store_partial(dst + i, load_partial<Arch>(src + i, rest) * f, rest);
}

template void scale_f32<TESSERA_SIMD_ARCH>(const float*, float*, int64_t, float);

}  // namespace tessera::simd::internal
