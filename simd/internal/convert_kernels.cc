// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/simd/internal/convert_kernels.h"

#include "tessera/simd/convert.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {

template <class Arch, Element Src, Element Dst>
void convert_kernel(const Src* src, Dst* dst, int64_t n) {
  constexpr int64_t kWidth = xsimd::batch<float, Arch>::size;
  int64_t i = 0;
  // Two batches per iteration keep both load/convert chains in flight.
  for (; i + 2 * kWidth <= n; i += 2 * kWidth) {
    const auto a = load_f32<Arch>(src + i);
    const auto b = load_f32<Arch>(src + i + kWidth);
    store_f32(dst + i, a);
    store_f32(dst + i + kWidth, b);
  }
  for (; i + kWidth <= n; i += kWidth) store_f32(dst + i, load_f32<Arch>(src + i));
  const int rest = static_cast<int>(n - i);
  if (rest > 0) store_f32(dst + i, load_f32<Arch>(src + i, rest), rest);
}

#define TESSERA_CONVERT_PAIR_(T)                                                         \
  template void convert_kernel<TESSERA_SIMD_ARCH, float, T>(const float*, T*, int64_t); \
  template void convert_kernel<TESSERA_SIMD_ARCH, T, float>(const T*, float*, int64_t)
TESSERA_CONVERT_PAIR_(bf16);
TESSERA_CONVERT_PAIR_(f16);
TESSERA_CONVERT_PAIR_(f8_e5m2);
TESSERA_CONVERT_PAIR_(f8_e4m3);
TESSERA_CONVERT_PAIR_(int32_t);
TESSERA_CONVERT_PAIR_(int8_t);
TESSERA_CONVERT_PAIR_(uint8_t);
#undef TESSERA_CONVERT_PAIR_

}  // namespace tessera::simd::internal
