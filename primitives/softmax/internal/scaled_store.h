// The forward kernels' store of a result vector: the int8 scaling and the conversion to dst's
// type, one call per store site. Part of the per-ISA kernels: include only from
// vector_kernels_impl.h (through kernel_math.h's users).
//
//   // y: f32 softmax results; k.out_scale: src_scale / dst_scale of an int8 problem
//   store_result<S>(q + i, y, k.out_scale);        // W elements
//   store_result<S>(q + i, y, k.out_scale, rest);  // the first `rest`
//
// A kernel whose src or dst is s8 or u8 multiplies y by the scale (one f32 rounding) and
// converts: s8/u8 round half to even and saturate (simd/convert.h, as core/convert.h and
// oneDNN do). Other kernels take no scale (plan.cc leaves scaled f32/bf16/f16 problems to the
// reference kernel), so their stores are simd::store_f32 unchanged.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_STORE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_STORE_H_

#include <cstdint>
#include <type_traits>

#include "tessera/simd/convert.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

template <class T>
inline constexpr bool kIsInt8 = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

// Whether a kernel from S to D applies kernel_args::out_scale to its results.
template <class S, class D>
inline constexpr bool kScalesResults = kIsInt8<S> || kIsInt8<D>;

template <class S, class D, class A>
[[gnu::always_inline]] inline void store_result(D* q, xsimd::batch<float, A> y, float scale) {
  if constexpr (kScalesResults<S, D>) y = y * xsimd::batch<float, A>(scale);
  simd::store_f32(q, y);
}

template <class S, class D, class A>
[[gnu::always_inline]] inline void store_result(D* q, xsimd::batch<float, A> y, float scale,
                                                int count) {
  if constexpr (kScalesResults<S, D>) y = y * xsimd::batch<float, A>(scale);
  simd::store_f32(q, y, count);
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_STORE_H_
