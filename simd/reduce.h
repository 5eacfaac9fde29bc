// Horizontal reductions of one batch to a float.
//
//   xsimd::batch<float, Arch> m = ...;              // a running per-lane maximum
//   float row_max = tessera::simd::reduce_max(m);   // then sum exp(x - row_max) ...
//   float row_sum = tessera::simd::reduce_sum(s);
//
// reduce_max gives the same result on every ISA for the same lanes: the largest lane; a quiet
// NaN (0x7FC00000) if any lane is NaN; +0 over -0 when the largest value is a zero.
// reduce_sum adds in an ISA-dependent order (pairwise halves; neon64: lanes 0 + 2 and 1 + 3, then
// those two, as sse4_2); its error is at most
// (log2(size)) * 2^-24 * sum|lanes| beyond the exact sum.
#ifndef TESSERA_SIMD_REDUCE_H_
#define TESSERA_SIMD_REDUCE_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <limits>

#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

template <class Arch>
float reduce_max(xsimd::batch<float, Arch> v) {
  if (xsimd::any(xsimd::isnan(v))) return std::numeric_limits<float>::quiet_NaN();
#if defined(__aarch64__)
  const float result = vmaxvq_f32(v);
#else
  __m128 m;
  if constexpr (internal::is_avx512<Arch>) {
    const __m512 r = v;
    const __m256 h = _mm256_max_ps(_mm512_castps512_ps256(r),
                                   _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    m = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  } else if constexpr (internal::is_avx2<Arch>) {
    const __m256 r = v;
    m = _mm_max_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
  } else {
    m = v;
  }
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, 1));
  const float result = _mm_cvtss_f32(m);
#endif
  if (result == 0.f) {
    // maxps keeps whichever zero came second: settle the sign by the lanes themselves.
    using ib = xsimd::batch<int32_t, Arch>;
    return xsimd::any(xsimd::bitwise_cast<ib>(v) == ib(0)) ? 0.f : -0.f;
  }
  return result;
}

template <class Arch>
float reduce_sum(xsimd::batch<float, Arch> v) {
#if defined(__aarch64__)
  const float32x4_t r = v;
  const float32x2_t halves = vadd_f32(vget_low_f32(r), vget_high_f32(r));
  return vget_lane_f32(halves, 0) + vget_lane_f32(halves, 1);
#else
  __m128 s;
  if constexpr (internal::is_avx512<Arch>) {
    const __m512 r = v;
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(r),
                                   _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1)));
    s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  } else if constexpr (internal::is_avx2<Arch>) {
    const __m256 r = v;
    s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
  } else {
    s = v;
  }
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
#endif
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_REDUCE_H_
