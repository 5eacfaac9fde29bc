// select: lane-wise choice between two batches, like xsimd::select, for every arch and type.
//
//   auto r = tessera::simd::select(v > limit, limit, v);   // min written as a select
//
// Why not xsimd::select directly: xsimd 8.1's AVX-512 select for integer lanes switches on
// sizeof(T) without `if constexpr`, so every branch is instantiated; g++ 12 rejects the 8- and
// 16-bit blend intrinsics it then sees for 32-bit lanes (clang accepts them). 32-bit integer lanes
// on AVX-512 are blended here directly; everything else goes to xsimd.
#ifndef TESSERA_SIMD_SELECT_H_
#define TESSERA_SIMD_SELECT_H_

#include <type_traits>

#include "xsimd/xsimd.hpp"

namespace tessera::simd {

template <class T, class Arch>
xsimd::batch<T, Arch> select(const xsimd::batch_bool<T, Arch>& cond, const xsimd::batch<T, Arch>& if_true,
                             const xsimd::batch<T, Arch>& if_false) {
#if defined(__AVX512F__)
  if constexpr (std::is_integral_v<T> && sizeof(T) == 4 && std::is_base_of_v<xsimd::avx512f, Arch>) {
    return _mm512_mask_blend_epi32(cond.data, if_false, if_true);
  } else
#endif
  {
    return xsimd::select(cond, if_true, if_false);
  }
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_SELECT_H_
