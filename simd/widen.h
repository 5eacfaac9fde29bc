// f32 lanes to f64 and back: a batch of W floats as two batches of W/2 doubles (lanes 0..W/2-1
// and W/2..W-1, in lane order), and two such batches back into one of floats, each lane rounded
// once (round to nearest). xsimd 8.1 converts between batches of one lane count only.
//
//   xsimd::batch<double, Arch> lo, hi;
//   simd::widen_to_f64<Arch>(v, lo, hi);        // exact
//   auto w = simd::narrow_to_f32<Arch>(lo, hi);  // w == v
//
// One conversion instruction per half on sse4_2, avx2 and avx512 (plus a lane move); a portable
// version lane by lane elsewhere.
#ifndef TESSERA_SIMD_WIDEN_H_
#define TESSERA_SIMD_WIDEN_H_

#include <cstddef>
#include <type_traits>

#include "xsimd/xsimd.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tessera::simd {

template <class Arch>
inline void widen_to_f64(xsimd::batch<float, Arch> v, xsimd::batch<double, Arch>& lo,
                         xsimd::batch<double, Arch>& hi) {
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
    const __m512 r = v;
    lo = _mm512_cvtps_pd(_mm512_castps512_ps256(r));
    hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(v) == 32) {
    const __m256 r = v;
    lo = _mm256_cvtps_pd(_mm256_castps256_ps128(r));
    hi = _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1));
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(v) == 16) {
    const __m128 r = v;
    lo = _mm_cvtps_pd(r);
    hi = _mm_cvtps_pd(_mm_movehl_ps(r, r));
    return;
  }
#endif
  constexpr std::size_t kHalf = xsimd::batch<double, Arch>::size;
  alignas(64) float f[2 * kHalf];
  alignas(64) double d[2 * kHalf];
  v.store_aligned(f);
  for (std::size_t i = 0; i < 2 * kHalf; ++i) d[i] = f[i];
  lo = xsimd::batch<double, Arch>::load_aligned(d);
  hi = xsimd::batch<double, Arch>::load_aligned(d + kHalf);
}

template <class Arch>
inline xsimd::batch<float, Arch> narrow_to_f32(xsimd::batch<double, Arch> lo,
                                               xsimd::batch<double, Arch> hi) {
#if defined(__AVX512DQ__)
  if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(lo) == 32) {
    return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  }
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(lo) == 16) {
    return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
  }
#endif
  constexpr std::size_t kHalf = xsimd::batch<double, Arch>::size;
  alignas(64) double d[2 * kHalf];
  alignas(64) float f[2 * kHalf];
  lo.store_aligned(d);
  hi.store_aligned(d + kHalf);
  for (std::size_t i = 0; i < 2 * kHalf; ++i) f[i] = static_cast<float>(d[i]);
  return xsimd::batch<float, Arch>::load_aligned(f);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_WIDEN_H_
