// Scaling by a power of two given as a float or double: scalef(x, n) = x * 2^floor(n), rounded
// once (results in the denormal range included). xsimd 8.1 has no such op; avx512 does it in one
// instruction (vscalefps, vscalefpd), other ISAs lane by lane with std::ldexp.
//
//   auto y = tessera::simd::scalef(mantissa, n);   // mantissa * 2^floor(n)
//
// Contract (f32): n is finite; x and n are any floats otherwise (NaN x gives NaN, infinite x
// keeps its sign, a result above FLT_MAX is infinite). f64: the same, and a NaN n gives NaN.
#ifndef TESSERA_SIMD_SCALEF_H_
#define TESSERA_SIMD_SCALEF_H_

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "xsimd/xsimd.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tessera::simd {

template <class Arch>
inline xsimd::batch<float, Arch> scalef(xsimd::batch<float, Arch> x, xsimd::batch<float, Arch> n) {
#if defined(__AVX512F__)
  if constexpr (sizeof(x) == 64) return _mm512_scalef_ps(x, n);
#endif
  using batch = xsimd::batch<float, Arch>;
  alignas(64) float xs[batch::size];
  alignas(64) float ns[batch::size];
  x.store_aligned(xs);
  n.store_aligned(ns);
  for (std::size_t i = 0; i < batch::size; ++i) {
    // Exponents beyond +-300 already saturate to 0 or infinity; the clamp keeps the int exact.
    const float e = std::clamp(std::floor(ns[i]), -300.f, 300.f);
    xs[i] = std::ldexp(xs[i], static_cast<int>(e));
  }
  return batch::load_aligned(xs);
}

template <class Arch>
inline xsimd::batch<double, Arch> scalef(xsimd::batch<double, Arch> x, xsimd::batch<double, Arch> n) {
#if defined(__AVX512F__)
  if constexpr (sizeof(x) == 64) return _mm512_scalef_pd(x, n);
#endif
  using batch = xsimd::batch<double, Arch>;
  alignas(64) double xs[batch::size];
  alignas(64) double ns[batch::size];
  x.store_aligned(xs);
  n.store_aligned(ns);
  for (std::size_t i = 0; i < batch::size; ++i) {
    if (std::isnan(ns[i])) {
      xs[i] = ns[i] + xs[i];
      continue;
    }
    // Exponents beyond +-2200 already saturate to 0 or infinity; the clamp keeps the int exact.
    const double e = std::clamp(std::floor(ns[i]), -2200.0, 2200.0);
    xs[i] = std::ldexp(xs[i], static_cast<int>(e));
  }
  return batch::load_aligned(xs);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_SCALEF_H_
