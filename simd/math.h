// exp and log of f32 batches: range reduction and a polynomial (Cephes-style coefficients),
// written once with xsimd and the same on every ISA (xsimd::fma, which xsimd 8.1 computes as
// mul + add on all three archs used here); and fused_fma / fused_fnma, one rounding wherever the
// arch has FMA. The softmax's own exps (tables of 2^(j/N), ranges known in advance) live beside
// it, in primitives/softmax/internal/exp_*.h.
//
//   auto e = tessera::simd::exp_f32(x - row_max);   // softmax numerators
//   auto l = tessera::simd::log_f32(sum);           // log-softmax
//
// Accuracy, measured by //simd:math_test against double precision (every 977th f32 for exp over
// |x| in [1e-30, 104], every 509th positive f32 for log), same on all three ISAs:
// exp 1.24 ulp max on normal results (0.74 ulp on denormal results), log 0.82 ulp max.
// exp: -Inf -> 0, +Inf and x > ln(FLT_MAX) -> +Inf, results below the smallest denormal -> 0,
// denormal results rounded once; NaN -> NaN (quiet).
// log: x < 0 or -Inf -> NaN, ±0 -> -Inf, +Inf -> +Inf, denormals exact-scaled first; NaN -> NaN.
#ifndef TESSERA_SIMD_MATH_H_
#define TESSERA_SIMD_MATH_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tessera/simd/select.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

// a * b + c rounded once wherever the arch has FMA. xsimd 8.1's fma is the generic a * b + c
// (two instructions, two roundings) for its avx512 archs and for xsimd::avx2 alike: only its
// fma3<avx2> arch fuses. sse4_2: a * b + c, as xsimd::fma. neon64: fused (FMLA), as xsimd::fma.
//
//   auto y = tessera::simd::fused_fma(p, r, c);
template <class T, class Arch>
xsimd::batch<T, Arch> fused_fma(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b, xsimd::batch<T, Arch> c) {
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch> && std::is_same_v<T, float>) {
    return _mm512_fmadd_ps(a, b, c);
  } else if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch> && std::is_same_v<T, double>) {
    return _mm512_fmadd_pd(a, b, c);
  }
#endif
#if defined(__FMA__)
  if constexpr (std::is_same_v<Arch, xsimd::avx2> && std::is_same_v<T, float>) {
    return _mm256_fmadd_ps(a, b, c);
  } else if constexpr (std::is_same_v<Arch, xsimd::avx2> && std::is_same_v<T, double>) {
    return _mm256_fmadd_pd(a, b, c);
  }
#endif
  return xsimd::fma(a, b, c);
}

// a / b correctly rounded on every arch, as the scalar division. xsimd 8.1's f32 division on
// neon64 is NEON's reciprocal estimate refined by two Newton steps (off by an ulp at times);
// neon64 divides with FDIV here. Elsewhere xsimd's division (divps).
//
//   auto q = tessera::simd::divide(x, dst_scale);
template <class T, class Arch>
xsimd::batch<T, Arch> divide(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b) {
#if defined(__aarch64__)
  if constexpr (std::is_base_of_v<xsimd::neon64, Arch> && std::is_same_v<T, float>) {
    return vdivq_f32(a, b);
  }
#endif
  return a / b;
}

// c - a * b rounded once wherever the arch has FMA (vfnmadd; neon64: FMLS); as fused_fma,
// sse4_2 computes c - a * b with two roundings (xsimd::fnma).
//
//   auto r = tessera::simd::fused_fnma(n, ln2_hi, x);   // x - n * ln2_hi
template <class T, class Arch>
xsimd::batch<T, Arch> fused_fnma(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b, xsimd::batch<T, Arch> c) {
#if defined(__aarch64__)
  if constexpr (std::is_base_of_v<xsimd::neon64, Arch> && std::is_same_v<T, float>) {
    return vfmsq_f32(c, a, b);
  } else if constexpr (std::is_base_of_v<xsimd::neon64, Arch> && std::is_same_v<T, double>) {
    return vfmsq_f64(c, a, b);
  }
#endif
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch> && std::is_same_v<T, float>) {
    return _mm512_fnmadd_ps(a, b, c);
  } else if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch> && std::is_same_v<T, double>) {
    return _mm512_fnmadd_pd(a, b, c);
  }
#endif
#if defined(__FMA__)
  if constexpr (std::is_same_v<Arch, xsimd::avx2> && std::is_same_v<T, float>) {
    return _mm256_fnmadd_ps(a, b, c);
  } else if constexpr (std::is_same_v<Arch, xsimd::avx2> && std::is_same_v<T, double>) {
    return _mm256_fnmadd_pd(a, b, c);
  }
#endif
  return xsimd::fnma(a, b, c);
}

namespace internal {
// e^(x - n*ln2), for n = round(x / ln2): the reduction (in two steps, ln2 split so n*ln2_hi is
// exact) and the polynomial; the caller scales by 2^n.
template <class Arch>
xsimd::batch<float, Arch> exp_reduced(xsimd::batch<float, Arch> x, xsimd::batch<float, Arch> n) {
  using fb = xsimd::batch<float, Arch>;
  using xsimd::fma;
  fb r = fma(n, fb(-0.693359375f), x);
  r = fma(n, fb(2.12194440e-4f), r);
  fb p(1.9875691500e-4f);
  p = fma(p, r, fb(1.3981999507e-3f));
  p = fma(p, r, fb(8.3334519073e-3f));
  p = fma(p, r, fb(4.1665795894e-2f));
  p = fma(p, r, fb(1.6666665459e-1f));
  p = fma(p, r, fb(5.0000001201e-1f));
  return fma(p, r * r, r + fb(1.f));
}
}  // namespace internal

template <class Arch>
xsimd::batch<float, Arch> exp_f32(xsimd::batch<float, Arch> x) {
  using fb = xsimd::batch<float, Arch>;
  using ib = xsimd::batch<int32_t, Arch>;
  // Past these the result is 0 or Inf anyway; clamping keeps 2^n within two normal factors.
  const fb xc = xsimd::min(xsimd::max(x, fb(-104.f)), fb(89.f));
  const fb n = xsimd::nearbyint(xc * fb(1.44269504088896341f));
  const fb p = internal::exp_reduced(xc, n);
  // 2^n as two normal powers of two (n in [-150, 128]); only the last product can round.
  const ib ni = xsimd::nearbyint_as_int(n);
  const ib n1 = ni >> 1;
  const ib n2 = ni - n1;
  const fb s1 = xsimd::bitwise_cast<fb>((n1 + ib(127)) << 23);
  const fb s2 = xsimd::bitwise_cast<fb>((n2 + ib(127)) << 23);
  const fb result = (p * s1) * s2;
  return ::tessera::simd::select(xsimd::isnan(x), x + x, result);
}

template <class Arch>
xsimd::batch<float, Arch> log_f32(xsimd::batch<float, Arch> x) {
  using fb = xsimd::batch<float, Arch>;
  using ib = xsimd::batch<int32_t, Arch>;
  // Denormals: scale by 2^23 (exact) so the exponent field is meaningful.
  const auto denormal = x < fb(std::numeric_limits<float>::min());
  const fb xs = ::tessera::simd::select(denormal, x * fb(8388608.f), x);
  const ib bits = xsimd::bitwise_cast<ib>(xs);
  const ib e = (bits >> 23) - ib(126);  // xs = m * 2^e with m in [0.5, 1)
  fb m = xsimd::bitwise_cast<fb>((bits & ib(0x007FFFFF)) | ib(0x3F000000));
  // m in [sqrt(1/2), sqrt(2)) - 1, so the polynomial sees |m| < 0.42.
  const auto small = m < fb(0.707106781186547524f);
  m = ::tessera::simd::select(small, m + m, m) - fb(1.f);
  const fb ef = xsimd::to_float(e) - ::tessera::simd::select(denormal, fb(23.f), fb(0.f)) -
                ::tessera::simd::select(small, fb(1.f), fb(0.f));
  const fb z = m * m;
  fb y(7.0376836292e-2f);
  y = xsimd::fma(y, m, fb(-1.1514610310e-1f));
  y = xsimd::fma(y, m, fb(1.1676998740e-1f));
  y = xsimd::fma(y, m, fb(-1.2420140846e-1f));
  y = xsimd::fma(y, m, fb(1.4249322787e-1f));
  y = xsimd::fma(y, m, fb(-1.6668057665e-1f));
  y = xsimd::fma(y, m, fb(2.0000714765e-1f));
  y = xsimd::fma(y, m, fb(-2.4999993993e-1f));
  y = xsimd::fma(y, m, fb(3.3333331174e-1f));
  y = y * m * z;
  y = xsimd::fma(ef, fb(-2.12194440e-4f), y);
  y = xsimd::fma(z, fb(-0.5f), y);
  fb result = m + y;
  result = xsimd::fma(ef, fb(0.693359375f), result);
  const fb inf(std::numeric_limits<float>::infinity());
  result = ::tessera::simd::select(x == fb(0.f), -inf, result);
  result = ::tessera::simd::select(x == inf, inf, result);
  result = ::tessera::simd::select(x < fb(0.f), fb(std::numeric_limits<float>::quiet_NaN()), result);
  return ::tessera::simd::select(xsimd::isnan(x), x + x, result);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_MATH_H_
