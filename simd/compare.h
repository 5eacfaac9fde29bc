// not_greater_equal: the lanes where a >= b is false (a < b, or either lane is NaN), as one
// unordered compare on every x86 ISA.
//
//   if (xsimd::any(tessera::simd::not_greater_equal(x, F(-86.5f)))) ...   // below, or NaN
//
// Why not !(a >= b): xsimd 8.1 builds batch_bool's operator! as a comparison of the mask with
// false, which avx2 lowers to eight instructions; inside a long exp that extra length kept clang
// from unrolling the caller's loop.
#ifndef TESSERA_SIMD_COMPARE_H_
#define TESSERA_SIMD_COMPARE_H_

#include <type_traits>

#include "xsimd/xsimd.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tessera::simd {

template <class T, class Arch>
xsimd::batch_bool<T, Arch> not_greater_equal(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b) {
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512f, Arch> && std::is_same_v<T, float>) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NGE_UQ);
  } else if constexpr (std::is_base_of_v<xsimd::avx512f, Arch> && std::is_same_v<T, double>) {
    return _mm512_cmp_pd_mask(a, b, _CMP_NGE_UQ);
  } else
#endif
#if defined(__AVX__)
  if constexpr (std::is_base_of_v<xsimd::avx, Arch> && std::is_same_v<T, float>) {
    return _mm256_cmp_ps(a, b, _CMP_NGE_UQ);
  } else if constexpr (std::is_base_of_v<xsimd::avx, Arch> && std::is_same_v<T, double>) {
    return _mm256_cmp_pd(a, b, _CMP_NGE_UQ);
  } else
#endif
#if defined(__SSE2__)
  if constexpr (std::is_base_of_v<xsimd::sse2, Arch> && std::is_same_v<T, float>) {
    return _mm_cmpnge_ps(a, b);
  } else if constexpr (std::is_base_of_v<xsimd::sse2, Arch> && std::is_same_v<T, double>) {
    return _mm_cmpnge_pd(a, b);
  } else
#endif
  {
    return ~(a >= b);
  }
}

// not_equal: the lanes where a != b in C++'s sense: true when either lane is NaN (unordered).
//
//   const auto is_nan = tessera::simd::not_equal(x, x);
//
// Why not a != b: xsimd 8.1's avx and avx512 builds use an ordered compare (_CMP_NEQ_OQ), false
// for NaN, while its sse and neon builds are unordered.
template <class T, class Arch>
xsimd::batch_bool<T, Arch> not_equal(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b) {
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512f, Arch> && std::is_same_v<T, float>) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ);
  } else if constexpr (std::is_base_of_v<xsimd::avx512f, Arch> && std::is_same_v<T, double>) {
    return _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ);
  } else
#endif
#if defined(__AVX__)
  if constexpr (std::is_base_of_v<xsimd::avx, Arch> && std::is_same_v<T, float>) {
    return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
  } else if constexpr (std::is_base_of_v<xsimd::avx, Arch> && std::is_same_v<T, double>) {
    return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ);
  } else
#endif
  {
    return ~(a == b);
  }
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_COMPARE_H_
