// Array conversions between f32 and every other f32-representable element type, dispatched to
// the best ISA: the vector conversions of <tessera/simd/convert.h> as ready-made kernels.
//
//   std::vector<float> x(1000, 1.f / 3);
//   std::vector<tessera::bf16> y(x.size());
//   tessera::simd::convert(x.data(), y.data(), x.size());   // y[i] == tessera::from_f32<bf16>(x[i])
//   auto k = tessera::simd::convert_table<float, tessera::bf16>().select();
//   k.impl_name();                                           // "xsimd:avx512bw:convert_f32_to_bf16"
//
// One side must be f32; the other is bf16, f16, f8_e5m2, f8_e4m3, s32, s8 or u8.
#ifndef TESSERA_SIMD_CONVERT_ARRAY_H_
#define TESSERA_SIMD_CONVERT_ARRAY_H_

#include <cstdint>
#include <type_traits>

#include "tessera/core/data_type.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::simd {

template <class T>
concept F32Convertible = Element<T> && !std::is_same_v<T, float> && !std::is_same_v<T, double>;

template <class Src, class Dst>
concept F32ConversionPair = (std::is_same_v<Src, float> && F32Convertible<Dst>) ||
                            (std::is_same_v<Dst, float> && F32Convertible<Src>);

template <class Src, class Dst>
using convert_fn = void(const Src* src, Dst* dst, int64_t n);

template <class Src, class Dst>
  requires F32ConversionPair<Src, Dst>
const kernel_table<convert_fn<Src, Dst>>& convert_table();

// dst[i] = from_f32<Dst>(to_f32(src[i])) for i in [0, n); n <= 0 does nothing.
template <class Src, class Dst>
  requires F32ConversionPair<Src, Dst>
void convert(const Src* src, Dst* dst, int64_t n) {
  if (n > 0) convert_table<Src, Dst>().select().fn(src, dst, n);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_CONVERT_ARRAY_H_
