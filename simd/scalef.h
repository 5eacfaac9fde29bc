// Scaling by a power of two given as a float or double: scalef(x, n) = x * 2^floor(n), rounded
// once (results in the denormal range included). xsimd 8.1 has no such op; avx512 does it in one
// instruction (vscalefps, vscalefpd), other ISAs lane by lane with std::ldexp.
//
//   auto y = tessera::simd::scalef(mantissa, n);   // mantissa * 2^floor(n)
//
// Contract (f32 and f64): NaN x or NaN n gives NaN, infinite x keeps its sign, a result above
// the type's largest finite value is infinite.
#ifndef TESSERA_SIMD_SCALEF_H_
#define TESSERA_SIMD_SCALEF_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "xsimd/xsimd.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tessera::simd {

// Exponents beyond these already saturate every finite x to 0 or infinity; clamping to them
// keeps floor(n) exact as an int.
template <class T>
inline constexpr T kScalefExponentBound = sizeof(T) == 4 ? T(300) : T(2200);

template <class Arch, class T>
inline xsimd::batch<T, Arch> scalef(xsimd::batch<T, Arch> x, xsimd::batch<T, Arch> n) {
  static_assert(std::is_floating_point_v<T>);
#if defined(__AVX512F__)
  if constexpr (sizeof(x) == 64 && sizeof(T) == 4) return _mm512_scalef_ps(x, n);
  if constexpr (sizeof(x) == 64 && sizeof(T) == 8) return _mm512_scalef_pd(x, n);
#endif
  using batch = xsimd::batch<T, Arch>;
  alignas(64) T xs[batch::size];
  alignas(64) T ns[batch::size];
  x.store_aligned(xs);
  n.store_aligned(ns);
  for (std::size_t i = 0; i < batch::size; ++i) {
    if (std::isnan(ns[i])) {
      xs[i] = ns[i] + xs[i];
      continue;
    }
    const T e = std::clamp(std::floor(ns[i]), -kScalefExponentBound<T>, kScalefExponentBound<T>);
    xs[i] = std::ldexp(xs[i], static_cast<int>(e));
  }
  return batch::load_aligned(xs);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_SCALEF_H_
