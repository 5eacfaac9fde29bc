// exp and log of f32 batches: range reduction and a polynomial (Cephes-style coefficients),
// written once with xsimd and the same on every ISA (xsimd::fma, which xsimd 8.1 computes as
// mul + add on all three archs used here).
//
//   auto e = tessera::simd::exp_f32(x - row_max);   // softmax numerators
//   auto l = tessera::simd::log_f32(sum);           // log-softmax
//
// Accuracy, measured by //simd:math_test against double precision (every 977th f32 for exp over
// |x| in [1e-30, 104], every 509th positive f32 for log), same on all three ISAs:
// exp 1.24 ulp max on normal results (0.74 ulp on denormal results), log 0.82 ulp max.
// exp_nonpositive_f32 (x in [-110, 0]): table versions on avx512bw (1.00 ulp max) and avx2
// (1.00 ulp max), exp_f32 on sse4_2. exp_minus_f32 (avx512bw only): exp(x - c) without
// rounding x - c, 1.03 ulp max (exp_minus_lanes_f32: the same per lane, bit for bit).
// exp: -Inf -> 0, +Inf and x > ln(FLT_MAX) -> +Inf, results below the smallest denormal -> 0,
// denormal results rounded once; NaN -> NaN (quiet).
// log: x < 0 or -Inf -> NaN, ±0 -> -Inf, +Inf -> +Inf, denormals exact-scaled first; NaN -> NaN.
#ifndef TESSERA_SIMD_MATH_H_
#define TESSERA_SIMD_MATH_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/simd/select.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

// a * b + c rounded once wherever the arch has FMA. xsimd 8.1's fma is the generic a * b + c
// (two instructions, two roundings) for its avx512 archs and for xsimd::avx2 alike: only its
// fma3<avx2> arch fuses. sse4_2: a * b + c, as xsimd::fma.
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

// c - a * b rounded once wherever the arch has FMA (vfnmadd); as fused_fma, sse4_2 computes
// c - a * b with two roundings (xsimd::fnma).
//
//   auto r = tessera::simd::fused_fnma(n, ln2_hi, x);   // x - n * ln2_hi
template <class T, class Arch>
xsimd::batch<T, Arch> fused_fnma(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b, xsimd::batch<T, Arch> c) {
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

// exp(x) for x in [-110, 0] or NaN, as softmax's exp(x - max) needs.
//
//   auto e = tessera::simd::exp_nonpositive_f32(x - row_max);
//
// On avx512bw, 10 vector operations instead of exp_f32's ~26, and more accurate (1.00 ulp at
// most over every f32 of [-110, 0] with a normal result, against 1.24): n = round(16 x / ln2)
// by the 1.5 * 2^23 trick, whose low mantissa bits index a 16-entry table of 2^(j/16) (each
// correctly rounded; one vpermps from a single register); r = x - n ln2/16 (two-constant
// Cody-Waite, the first step exact, |r| <= ln2/32); exp(r) = 1 + r (1 + r (c2 + c3 r)), a cubic
// fit minimising the largest error on that interval (1.6e-9, 0.03 ulp); the table entry times
// exp(r) in one fma, and 2^floor(n/16) by vscalefps (a single rounding, denormal results
// included). No clamps or NaN select: the range is known and NaN propagates through every step.
// The error is the table entry's rounding plus the last one.
// On avx2 (no vscalefps, 16 registers): n = round(8 x / ln2), an 8-entry table of 2^(j/8) in one
// vpermps, the same two-step reduction (|r| <= ln2/16), e^r = 1 + r (1 + r/2 + r^2/6 + r^3/24)
// (Taylor: 1.3e-9 at the ends, 0.01 ulp), and 2^floor(n/8) added to the exponent field as an
// integer. That add is exact only for a normal result: lanes with x < -86.5 (n >= -998 above it,
// so the exponent stays >= 1) or NaN take exp_f32, blended per lane, computed only when a vector
// has one. 15 vector operations instead of exp_f32's ~40 (without FMA fusion there).
// sse4_2: exp_f32.
template <class Arch>
xsimd::batch<float, Arch> exp_nonpositive_f32(xsimd::batch<float, Arch> x);

namespace internal {
#if defined(__AVX2__) && defined(__FMA__)
// 2^(j/8) e^r for |r| <= ln2/16 (a little more is fine) and j = bits mod 8: the 8-entry table
// (one vpermps reads the low 3 bits of each lane) times the Taylor quartic, in [0.95, 1.92).
// Shared by exp_nonpositive_table8 and exp_minus_nearby_f32. A template on Arch, as every
// function of this header compiled with ISA flags must be (one instantiation per ISA unit).
// kScaled: the table entry is first multiplied by scale (a power of two), off the polynomial's
// chain, and the result is scale * 2^(j/8) e^r. The exps of softmax are bound by the latency of
// their chains (how many fit in the scheduler) more than by their operation count: on AVX2
// Zen 3, in L1, exp_minus_nearby_f32 measured faster with the product by scale first than last.
// The same bits but where t * r * scale is subnormal (results below about 2^-121), whose
// rounding there adds at most 1/8 ulp (largest error 0.98 ulp over every 8th f32 of ranges of
// 86, against 0.90 with the product last).
template <class Arch, bool kScaled = false>
__m256 table8_times_exp(__m256 r, __m256i bits, __m256 scale = _mm256_setzero_ps()) {
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(0x1.555556p-5f), r, _mm256_set1_ps(0x1.555556p-3f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.5f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.f));  // (e^r - 1) / r
  const __m256 table = _mm256_setr_ps(0x1p+0f, 0x1.172b84p+0f, 0x1.306fep+0f, 0x1.4bfdaep+0f,
                                      0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f,
                                      0x1.d5818ep+0f);
  __m256 t = _mm256_permutevar8x32_ps(table, bits);
  if constexpr (kScaled) t = _mm256_mul_ps(t, scale);
  return _mm256_fmadd_ps(_mm256_mul_ps(t, r), q, t);
}

// exp_minus_nearby_f32's and exp_minus_nearby_lanes_f32's body (see there): offset holds
// 1.5 * 2^23 + 1016 - M per lane.
template <class Arch>
__m256 exp_minus_nearby_table8(__m256 x, __m256 offset) {
  const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+3f), offset);
  const __m256 big_n = _mm256_sub_ps(shifted, offset);  // N, exact
  __m256 r = _mm256_fnmadd_ps(big_n, _mm256_set1_ps(0.693359375f / 8), x);
  r = _mm256_fnmadd_ps(big_n, _mm256_set1_ps(-2.12194440e-4f / 8), r);
  const __m256i bits = _mm256_castps_si256(shifted);  // low bits: n mod 8
  // (n + 1016) << 20 with bits 0..22 cleared: (floor(n/8) + 127) << 23, i.e. 2^floor(n/8).
  const __m256 scale = _mm256_castsi256_ps(
      _mm256_and_si256(_mm256_slli_epi32(bits, 20), _mm256_set1_epi32(-(1 << 23))));
  return table8_times_exp<Arch, true>(r, bits, scale);
}

// exp_nonpositive_f32 on avx2 (see there).
template <class Arch>
xsimd::batch<float, Arch> exp_nonpositive_table8(xsimd::batch<float, Arch> xb) {
  const __m256 x = xb;
  const __m256 magic = _mm256_set1_ps(0x1.8p23f);
  // magic + n: n's low bits are the mantissa's (magic's own low 22 bits are 0).
  const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+3f), magic);
  const __m256 n = _mm256_sub_ps(shifted, magic);  // exact
  // r = x - n ln2/8: n ln2_hi/8 is exact (ln2_hi has 9 bits), and so is x minus it.
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f / 8), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f / 8), r);
  const __m256i bits = _mm256_castps_si256(shifted);  // low bits: n mod 8
  const __m256 mantissa = table8_times_exp<Arch>(r, bits);
  // (magic + n) << 20 = n << 20 (mod 2^32); clearing bits 0..22 leaves floor(n / 8) << 23.
  const __m256i scale =
      _mm256_and_si256(_mm256_slli_epi32(bits, 20), _mm256_set1_epi32(-(1 << 23)));
  const __m256 fast = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(mantissa), scale));
  const __m256 special = _mm256_cmp_ps(x, _mm256_set1_ps(-86.5f), _CMP_NGE_UQ);
  if (_mm256_movemask_ps(special) == 0) return fast;
  return _mm256_blendv_ps(fast, exp_f32<Arch>(xb), special);
}
#endif
}  // namespace internal

template <class Arch>
xsimd::batch<float, Arch> exp_nonpositive_f32(xsimd::batch<float, Arch> x) {
#if defined(__AVX512F__)
  if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
    const __m512 magic = _mm512_set1_ps(0x1.8p23f);
    // magic + n; n / 16 exactly (a difference of two floats near 1.5 * 2^19, rounded once).
    const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+4f), magic);
    const __m512 n16 = _mm512_fmadd_ps(shifted, _mm512_set1_ps(1.f / 16), _mm512_set1_ps(-0x1.8p23f / 16));
    __m512 r = _mm512_fnmadd_ps(n16, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n16, _mm512_set1_ps(-2.12194440e-4f), r);
    const __m512 table = _mm512_setr_ps(0x1p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f,
                                        0x1.306fep+0f, 0x1.3dea64p+0f, 0x1.4bfdaep+0f, 0x1.5ab07ep+0f,
                                        0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
                                        0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f);
    // vpermps reads the low 4 bits of each lane: n mod 16 (magic's own low bits are 0).
    const __m512 t = _mm512_permutexvar_ps(_mm512_castps_si512(shifted), table);
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(0x1.555762p-3f), r, _mm512_set1_ps(0x1.00022p-1f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.f));
    const __m512 mantissa = _mm512_fmadd_ps(_mm512_mul_ps(t, r), q, t);  // t exp(r)
    return _mm512_scalef_ps(mantissa, n16);
  } else
#endif
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
    return internal::exp_nonpositive_table8<Arch>(x);
  } else
#endif
  {
    return exp_f32<Arch>(x);
  }
}

namespace internal {
#if defined(__AVX512F__)
// exp_minus_f32's method (below) with its per-range constants per lane.
inline __m512 exp_minus_table32(__m512 x, __m512 c, __m512 shift, __m512 ln2_hi, __m512 ln2_lo) {
  // shifted = 1.5 * 2^23 + n: n's low five bits index the table.
  const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+5f), shift);
  const __m512 n32 =
      _mm512_fmadd_ps(shifted, _mm512_set1_ps(1.f / 32), _mm512_set1_ps(-0x1.8p23f / 32));
  const __m512 t1 = _mm512_fmadd_ps(n32, ln2_hi, c);  // exact
  const __m512 r = _mm512_fnmadd_ps(n32, ln2_lo, _mm512_sub_ps(x, t1));
  const __m512 low = _mm512_setr_ps(0x1p+0f, 0x1.059b0ep+0f, 0x1.0b5586p+0f, 0x1.11301ep+0f,
                                    0x1.172b84p+0f, 0x1.1d4874p+0f, 0x1.2387a6p+0f, 0x1.29e9ep+0f,
                                    0x1.306fep+0f, 0x1.371a74p+0f, 0x1.3dea64p+0f, 0x1.44e086p+0f,
                                    0x1.4bfdaep+0f, 0x1.5342b6p+0f, 0x1.5ab07ep+0f, 0x1.6247ecp+0f);
  const __m512 high = _mm512_setr_ps(0x1.6a09e6p+0f, 0x1.71f75ep+0f, 0x1.7a1148p+0f, 0x1.82589ap+0f,
                                     0x1.8ace54p+0f, 0x1.93737cp+0f, 0x1.9c4918p+0f, 0x1.a5503cp+0f,
                                     0x1.ae89fap+0f, 0x1.b7f77p+0f, 0x1.c199bep+0f, 0x1.cb720ep+0f,
                                     0x1.d5818ep+0f, 0x1.dfc974p+0f, 0x1.ea4afap+0f, 0x1.f50766p+0f);
  const __m512 t = _mm512_permutex2var_ps(low, _mm512_castps_si512(shifted), high);
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(0x1.555762p-3f), r, _mm512_set1_ps(0x1.00022p-1f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.f));
  return _mm512_scalef_ps(_mm512_fmadd_ps(_mm512_mul_ps(t, r), q, t), n32);
}
#endif
}  // namespace internal

// exp(x - c) for the x of a known range [lo, c], without rounding x - c first: softmax's
// exp(x - row max), where x - max loses up to 2^6 ulp of the small results to its own rounding
// unless an error term is carried (exp_nonpositive_f32 of a TwoSum, 14 vector operations and
// more). This one takes 11 on avx512bw and needs no error term.
//
//   if (auto e = tessera::simd::exp_minus_f32<Arch>::make(row_max, row_min)) {
//     y = (*e)(x);   // exp(x - row_max) for each x of the row
//   }
//
// make() declines (std::nullopt) unless the method below is exact for every x of [lo, c]: on
// other archs than avx512bw; when lo or c is not finite or lo > c; when max(|lo|, |c|) is
// 511.8 or more; when c is not a multiple of 2^(E-23), E the exponent of the range (below).
//
// Method. n = round(32 x / ln2 - M), M = round(32 c / ln2) an integer fixed per range (so n is
// within 1 of round(32 (x - c) / ln2) and |r| <= ln2/32 below); 2^((n mod 32)/32) from a 32-entry
// table (correctly rounded; one vpermt2ps from two registers); t1 = c + (n/32) ln2_hi in one
// fma, EXACT: ln2_hi is ln2 rounded to a multiple of 2^(E-18), so (n/32) ln2_hi and c are
// multiples of 2^(E-23), and |t1| = |x - r - (n/32) ln2_lo| < 2^(E+1) holds by the choice of E
// (the smallest with max(|lo|, |c|) + 0.022 + 2^(E-11) < 2^(E+1), at least -5) for every x whose
// result is not below 2^-149; r = (x - t1) - (n/32) ln2_lo, whose two roundings are at most
// 2^-27 absolute (|r| <= 0.022 + 2^(E-11.8)); exp(r) by exp_nonpositive_f32's cubic; 2^floor(n/32)
// by vscalefps. The error is the table entry's rounding, the last rounding and ~0.1 ulp: 1.1 ulp
// at most over //simd:math_test's ranges. x = NaN gives NaN; x outside [lo, c] is not allowed.
template <class Arch>
class exp_minus_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;

  static std::optional<exp_minus_f32> make(float c, float lo) {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      if (!std::isfinite(c) || !std::isfinite(lo) || lo > c) return std::nullopt;
      // Once per softmax row, on the path from the row's max to its exp sweep: bit operations,
      // two roundings and a table, no libm call or division.
      auto pow2 = [](int k) {
        return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52);
      };
      const float bound = std::max(std::fabs(lo), std::fabs(c));
      // bound's exponent (denormals and 0 read -127; E is at least -5 anyway).
      int e = std::max(-5, static_cast<int>((std::bit_cast<uint32_t>(bound) >> 23) & 0xffu) - 127);
      if (!(bound + 0.022 + pow2(e - 11) < pow2(e + 1))) ++e;
      if (e > 8) return std::nullopt;
      const double scaled_c = static_cast<double>(c) * pow2(23 - e);  // exact
      if (scaled_c != std::nearbyint(scaled_c)) return std::nullopt;
      constexpr double kLn2 = 0x1.62e42fefa39efp-1;
      const double m = std::nearbyint(static_cast<double>(c) * (32 / kLn2));
      // ln2 rounded to a multiple of 2^(E-18) (exact in f32: at most 24 bits from E = -5 on),
      // and the rest rounded to f32, for E = -5 .. 8.
      static constexpr float kLn2Hi[14] = {0x1.62e43p-1f, 0x1.62e43p-1f, 0x1.62e43p-1f,
                                           0x1.62e42p-1f, 0x1.62e44p-1f, 0x1.62e4p-1f, 0x1.62e4p-1f,
                                           0x1.62e4p-1f, 0x1.62e4p-1f, 0x1.62e8p-1f, 0x1.62ep-1f,
                                           0x1.62ep-1f, 0x1.63p-1f, 0x1.63p-1f};
      static constexpr float kLn2Lo[14] = {-0x1.05c61p-29f, -0x1.05c61p-29f, -0x1.05c61p-29f,
                                           0x1.fdf474p-22f, -0x1.0105c6p-21f, 0x1.7f7d1cp-20f,
                                           0x1.7f7d1cp-20f, 0x1.7f7d1cp-20f, 0x1.7f7d1cp-20f,
                                           -0x1.e8082ep-16f, 0x1.0bfbe8p-15f, 0x1.0bfbe8p-15f,
                                           -0x1.bd0106p-13f, -0x1.bd0106p-13f};
      return exp_minus_f32(c, static_cast<float>(0x1.8p23 - m), kLn2Hi[e + 5], kLn2Lo[e + 5]);
    }
#endif
    (void)c;
    (void)lo;
    return std::nullopt;
  }

  batch operator()(batch x) const {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      return internal::exp_minus_table32(x, _mm512_set1_ps(c_), _mm512_set1_ps(shift_),
                                         _mm512_set1_ps(ln2_hi_), _mm512_set1_ps(ln2_lo_));
    } else
#endif
    {
      return x;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  template <class>
  friend class exp_minus_lanes_f32;
  exp_minus_f32(float c, float shift, float ln2_hi, float ln2_lo)
      : c_(c), shift_(shift), ln2_hi_(ln2_hi), ln2_lo_(ln2_lo) {}
  float c_, shift_, ln2_hi_, ln2_lo_;
};

// exp_minus_f32 with a range per lane: lane i of a result is exactly what exp_minus_f32 made
// for [lo_i, c_i] gives for lane i of x. For kernels that vectorise across independent rows
// (softmax along a strided axis: each lane is a row). avx512bw only.
//
//   if (auto e = tessera::simd::exp_minus_lanes_f32<Arch>::make(lane_max, lane_min)) {
//     y = (*e)(x);   // lane i: exp(x_i - c_i)
//   }
//
// make() declines unless exp_minus_f32::make accepts every lane's range.
template <class Arch>
class exp_minus_lanes_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;
  static constexpr int kLanes = static_cast<int>(batch::size);

  static std::optional<exp_minus_lanes_f32> make(batch c, batch lo) {
    alignas(64) float cs[kLanes], los[kLanes], shifts[kLanes], hi[kLanes], low[kLanes];
    c.store_aligned(cs);
    lo.store_aligned(los);
    for (int i = 0; i < kLanes; ++i) {
      const auto one = exp_minus_f32<Arch>::make(cs[i], los[i]);
      if (!one) return std::nullopt;
      shifts[i] = one->shift_;
      hi[i] = one->ln2_hi_;
      low[i] = one->ln2_lo_;
    }
    return exp_minus_lanes_f32(c, batch::load_aligned(shifts), batch::load_aligned(hi),
                               batch::load_aligned(low));
  }

  // exp_minus_nearby_lanes_f32's factor from its results to exp(x - c): here they are that
  // already. Lets kernels written for either take both.
  double to_c(int) const { return 1.0; }

  batch operator()(batch x) const {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      return internal::exp_minus_table32(x, c_, shift_, ln2_hi_, ln2_lo_);
    } else
#endif
    {
      return x;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  exp_minus_lanes_f32(batch c, batch shift, batch ln2_hi, batch ln2_lo)
      : c_(c), shift_(shift), ln2_hi_(ln2_hi), ln2_lo_(ln2_lo) {}
  batch c_, shift_, ln2_hi_, ln2_lo_;
};

// exp(x - s) for the x of a known range [lo, c], where s is the multiple of ln2/8 nearest c
// (|s - c| <= ln2/16, so results reach 1.045): avx2's counterpart of exp_minus_f32, for uses
// where any s near the max serves, as in softmax (exp(c - s) cancels between each exp and their
// sum). No error term and no rounded x - c: 13 vector operations where exp_nonpositive_f32 of a
// Fast2Sum with its correction takes 19.
//
//   if (auto e = tessera::simd::exp_minus_nearby_f32<Arch>::make(row_max, row_min)) {
//     y = (*e)(x);   // exp(x - e->shift()) for each x of the row
//   }
//
// make() declines (std::nullopt) unless the arch is avx2, lo and c are finite, lo <= c,
// max(|lo|, |c|) <= 100 and lo >= c - 86 (every result normal).
//
// Method. With M = round(8 c / ln2), s = M ln2/8. shifted = 1.5 * 2^23 + 1016 - M + 8 x / ln2,
// rounded to an integer by the fma: its low bits are n + 1016 with n = N - M and N =
// round(8 x / ln2) (M is an integer, so rounding before or after subtracting it is the same).
// r = x - N ln2/8 in exp_nonpositive_f32's two steps (N as a float is exact; |r| <= ln2/16 and
// the first step is exact for |N| <= 1160, by the same argument as there), the same 8-entry
// table (index n mod 8) and polynomial, and 2^floor(n/8) built from the bits as a float
// (1016 = 8 * 127 is the exponent bias) multiplied into the table entry before the last fma
// (table8_times_exp<Arch, true>: exact, the entry times it being normal; a NaN x stays NaN
// through r). exp(x - s) = 2^(n/8) e^r: the error is exp_nonpositive_f32's on avx2 plus at
// most 1/8 ulp for results below about 2^-121, measured by //simd:math_test.
template <class Arch>
class exp_minus_nearby_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;

  static std::optional<exp_minus_nearby_f32> make(float c, float lo) {
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      if (!std::isfinite(c) || !std::isfinite(lo) || lo > c) return std::nullopt;
      if (std::max(std::fabs(c), std::fabs(lo)) > 100.f || lo < c - 86.f) return std::nullopt;
      constexpr double kLn2 = 0x1.62e42fefa39efp-1;
      const double m = std::nearbyint(static_cast<double>(c) * (8 / kLn2));
      const double s = m * (kLn2 / 8);
      // exp(s - c), |s - c| <= 0.0434: Taylor to degree 7 (truncation below 2^-52 relative).
      const double d = s - static_cast<double>(c);
      double to_c = 1;
      for (int k = 7; k >= 1; --k) to_c = 1 + d / k * to_c;
      return exp_minus_nearby_f32(static_cast<float>(0x1.8p23 + 1016 - m), s, to_c);
    }
#endif
    (void)c;
    (void)lo;
    return std::nullopt;
  }

  // s: the multiple of ln2/8 that the results are exp(x - s) of.
  double shift() const { return s_; }
  // exp(s - c) in f64: a result times it is exp(x - c) (logsoftmax's sum needs that one).
  double to_c() const { return to_c_; }

  batch operator()(batch xb) const {
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      return internal::exp_minus_nearby_table8<Arch>(xb, _mm256_set1_ps(offset_));
    } else
#endif
    {
      return xb;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  template <class>
  friend class exp_minus_nearby_lanes_f32;
  exp_minus_nearby_f32(float offset, double s, double to_c) : offset_(offset), s_(s), to_c_(to_c) {}
  float offset_;
  double s_;
  double to_c_;
};

// exp_minus_nearby_f32 with a range per lane: lane i of a result is exactly what
// exp_minus_nearby_f32 made for [lo_i, c_i] gives for lane i of x. For kernels that vectorise
// across independent rows (softmax along a strided axis: each lane is a row).
//
//   if (auto e = tessera::simd::exp_minus_nearby_lanes_f32<Arch>::make(lane_max, lane_min)) {
//     y = (*e)(x);   // lane i: exp(x_i - s_i)
//   }
//
// make() declines unless exp_minus_nearby_f32::make accepts every lane's range.
template <class Arch>
class exp_minus_nearby_lanes_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;
  static constexpr int kLanes = static_cast<int>(batch::size);

  static std::optional<exp_minus_nearby_lanes_f32> make(batch c, batch lo) {
    alignas(64) float cs[kLanes], los[kLanes], offsets[kLanes];
    c.store_aligned(cs);
    lo.store_aligned(los);
    exp_minus_nearby_lanes_f32 lanes;
    for (int i = 0; i < kLanes; ++i) {
      const auto one = exp_minus_nearby_f32<Arch>::make(cs[i], los[i]);
      if (!one) return std::nullopt;
      offsets[i] = one->offset_;
      lanes.s_[i] = one->s_;
      lanes.to_c_[i] = one->to_c_;
    }
    lanes.offset_ = batch::load_aligned(offsets);
    return lanes;
  }

  // Lane i's s and exp(s - c), as exp_minus_nearby_f32's shift() and to_c().
  double shift(int lane) const { return s_[lane]; }
  double to_c(int lane) const { return to_c_[lane]; }

  batch operator()(batch xb) const {
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      return internal::exp_minus_nearby_table8<Arch>(xb, offset_);
    } else
#endif
    {
      return xb;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  exp_minus_nearby_lanes_f32() = default;
  batch offset_;
  double s_[kLanes];
  double to_c_[kLanes];
};

// exp of f64 batches to about 2^-37 relative error (not the full f64 accuracy of xsimd::exp),
// optionally times a constant: enough wherever the result is rounded to f32 afterwards, even
// after a cancelling subtraction (softmax's logsoftmax backward, `diff_dst - exp(dst) * sum`,
// which xsimd::exp made slow with its one division per vector).
//
//   const tessera::simd::scaled_exp_f64<Arch> exp_times_sum(sum);   // once per row
//   auto d = dy - exp_times_sum(y);                                  // exp(y) * sum
//
// Any input: NaN -> NaN, -Inf -> 0, +Inf -> +Inf. On avx512bw: n = round(16 x / ln2),
// r = x - n ln2/16 (two-constant Cody-Waite, |r| <= ln2/32), 2^((n mod 16)/16) · scale from a
// 16-entry table in two registers (vpermt2pd), exp(r) = 1 + r q(r) with q the cubic Chebyshev
// fit of (e^r - 1)/r (|error| below 2^-37.5 relative), and 2^floor(n/16) by one vscalefpd: no
// division, denormal and overflowing results rounded once (exp(x) finite up to 709.78).
// On avx2 (with FMA; no vscalefpd, no f64 <-> int64 conversion, which xsimd::exp does lane by
// lane in C++, slowly): n = round(x / ln2), r = x - n ln2 (the same Cody-Waite
// pair, |r| <= ln2/2), exp(r) by its Taylor polynomial of degree 11 (truncation below 2^-47),
// times scale's mantissa, then 2^(n + scale's exponent) as two powers of two built from the
// bits, the first keeping the product normal and exact, so the second rounds it once into the
// denormal or overflowing range.
// sse4_2: xsimd::exp (full accuracy; Inf from x > 709.43, 0 below -708.39) times scale,
// x clamped to ±1500 first.
// Error measured by //simd:scaled_exp_f64_test against long double.
template <class Arch>
class scaled_exp_f64 {
 public:
  using batch = xsimd::batch<double, Arch>;
  // scale 0, ±Inf or NaN: computed as exp(x) * scale (so exp(+Inf) * 0 stays NaN).
  explicit scaled_exp_f64(double scale) : scale_(scale), finite_nonzero_(std::isfinite(scale) && scale != 0) {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      // scale = s · 2^e with s in [1, 2): the table holds s (never overflowing or denormal) and
      // vscalefpd applies e.
      int e = 0;
      const double s = finite_nonzero_ ? 2 * std::frexp(scale, &e) : 1.0;
      exponent_ = _mm512_set1_pd(finite_nonzero_ ? e - 1 : 0);
      // 2^(j/16), j = 0..15, each correctly rounded, times s.
      low_ = _mm512_mul_pd(_mm512_set1_pd(s), _mm512_setr_pd(0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0,
                                                            0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
                                                            0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0,
                                                            0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0));
      high_ = _mm512_mul_pd(_mm512_set1_pd(s), _mm512_setr_pd(0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0,
                                                             0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
                                                             0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0,
                                                             0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0));
    }
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      // scale = s · 2^e with s in [1, 2) (or 1 and 0 when scale is 0, ±Inf or NaN).
      int e = 0;
      const double s = finite_nonzero_ ? 2 * std::frexp(scale, &e) : 1.0;
      avx2_mantissa_ = _mm256_set1_pd(s);
      avx2_exponent_ = _mm256_set1_pd(finite_nonzero_ ? e - 1 : 0);
    }
#endif
  }

  batch operator()(batch x) const {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      if (finite_nonzero_) return table_exp(x, low_, high_, exponent_);
      return batch(scale_) * batch(table_exp(x, low_, high_, exponent_));  // the table holds 1 then
    } else
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      if (finite_nonzero_) return taylor_exp(x, avx2_mantissa_, avx2_exponent_);
      return batch(scale_) * batch(taylor_exp(x, avx2_mantissa_, avx2_exponent_));  // s = 1, e = 0
    } else
#endif
    {
      // xsimd converts n to int64 lane by lane in C++ (UB for ±Inf and NaN): clamp, and put
      // NaN back after.
      const batch xc = xsimd::min(xsimd::max(x, batch(-1500.0)), batch(1500.0));
      const auto nan = xsimd::isnan(x);
      const batch e = xsimd::exp(::tessera::simd::select(nan, batch(0.0), xc)) * batch(scale_);
      return ::tessera::simd::select(nan, x + x, e);
    }
  }

 private:
#if defined(__AVX512F__)
  // exp(x) · 2^exponent times the scale folded into the table (low: entries 0..7, high: 8..15).
  static __m512d table_exp(__m512d x, __m512d low, __m512d high, __m512d exponent) {
    // Clamped so 16 x / ln2 stays far inside the magic-number trick's 2^51; past ±1500 the
    // result is 0 / Inf for every finite scale (exp(x) · scale is finite and nonzero only for
    // |x| < 745 + 710). minpd returns its second operand when one is NaN, so a NaN x survives.
    const __m512d xc = _mm512_max_pd(_mm512_set1_pd(-1500.0), _mm512_min_pd(_mm512_set1_pd(1500.0), x));
    // Adding 1.5 * 2^52 rounds 16 x / ln2 to the nearest integer n and leaves n's low bits in
    // the low mantissa bits, which vpermt2pd reads as the table index (bits 0..3).
    const __m512d magic = _mm512_set1_pd(0x1.8p52);
    const __m512d shifted = _mm512_fmadd_pd(xc, _mm512_set1_pd(0x1.71547652b82fep+4), magic);
    // n / 16, exactly (a power-of-two scaling and an exact difference, rounded once by the fma).
    const __m512d n16 = _mm512_fmadd_pd(shifted, _mm512_set1_pd(1.0 / 16), _mm512_set1_pd(-0x1.8p52 / 16));
    // r = x - n ln2/16 with ln2 = hi + lo, hi of 38 bits (n hi is exact; the fma rounds once).
    __m512d r = _mm512_fnmadd_pd(n16, _mm512_set1_pd(0x1.62e42fefa0000p-1), xc);
    r = _mm512_fnmadd_pd(n16, _mm512_set1_pd(0x1.cf79abc9e3b3ap-40), r);
    __m512d q = _mm512_set1_pd(0x1.5556b330ec55bp-5);
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(0x1.5557621f0be17p-3));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(0x1.ffffffff57e8ep-2));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(0x1.fffffffe07ba3p-1));  // exp(r) = 1 + r q
    const __m512d t = _mm512_permutex2var_pd(low, _mm512_castpd_si512(shifted), high);
    const __m512d mantissa = _mm512_fmadd_pd(_mm512_mul_pd(t, r), q, t);  // t exp(r)
    // vscalefpd multiplies by 2^floor(n / 16 + exponent).
    return _mm512_scalef_pd(mantissa, _mm512_add_pd(n16, exponent));
  }
  __m512d low_, high_, exponent_;
#endif
#if defined(__AVX2__) && defined(__FMA__)
  // 2^v for integer-valued v in [-1022, 1023], built from the bits: v + 1.5 · 2^52 holds v in its
  // low mantissa bits, and the exponent field is the low 11 bits of v + 1023 (2^51 is 0 mod 2^12).
  static __m256d power_of_two(__m256d v) {
    const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(v, _mm256_set1_pd(0x1.8p52)));
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(bits, _mm256_set1_epi64x(1023)), 52));
  }

  // exp(x) · s · 2^e, s in (-2, -1] or [1, 2).
  static __m256d taylor_exp(__m256d x, __m256d s, __m256d e) {
    // The clamp keeps n far inside the magic-number trick's 2^51; past ±1500 the result is 0 or
    // Inf for every finite scale. minpd returns its second operand when one is NaN, so a NaN x
    // survives (and makes every later step NaN).
    const __m256d xc = _mm256_max_pd(_mm256_set1_pd(-1500.0), _mm256_min_pd(_mm256_set1_pd(1500.0), x));
    const __m256d magic = _mm256_set1_pd(0x1.8p52);
    const __m256d n = _mm256_sub_pd(_mm256_fmadd_pd(xc, _mm256_set1_pd(0x1.71547652b82fep+0), magic), magic);
    // r = x - n ln2 with ln2 = hi + lo, hi of 37 bits (n hi is exact for |n| <= 2^16).
    __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(0x1.62e42fefa0000p-1), xc);
    r = _mm256_fnmadd_pd(n, _mm256_set1_pd(0x1.cf79abc9e3b3ap-40), r);
    // sum of r^k / k!, k = 0..11 (|r| <= 0.3466: the first omitted term is below 2^-47), by
    // Estrin's scheme: Horner's chain of 11 dependent FMAs made this loop latency-bound.
    constexpr double kInverseFactorial[12] = {
        1.0,       1.0,        1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,
        1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800};
    auto pair = [&](int k) {  // c_k + c_{k+1} r
      return _mm256_fmadd_pd(_mm256_set1_pd(kInverseFactorial[k + 1]), r, _mm256_set1_pd(kInverseFactorial[k]));
    };
    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d r4 = _mm256_mul_pd(r2, r2);
    const __m256d r8 = _mm256_mul_pd(r4, r4);
    const __m256d p0 = _mm256_fmadd_pd(r2, pair(2), pair(0));     // terms 0..3
    const __m256d p4 = _mm256_fmadd_pd(r2, pair(6), pair(4));     // terms 4..7, over r^4
    const __m256d p8 = _mm256_fmadd_pd(r2, pair(10), pair(8));    // terms 8..11, over r^8
    const __m256d p = _mm256_fmadd_pd(r8, p8, _mm256_fmadd_pd(r4, p4, p0));
    const __m256d m = _mm256_mul_pd(p, s);  // |m| in [0.70, 2.83)
    // 2^(n + e) = 2^a · 2^b with a the part that keeps m · 2^a normal (exact), b the rest, so
    // the last product is the only rounding below DBL_MIN or above DBL_MAX. |n + e| is clamped
    // to 2000 (the result is 0 or Inf well before), so b stays within [-979, 978].
    const __m256d ne = _mm256_max_pd(_mm256_set1_pd(-2000.0),
                                     _mm256_min_pd(_mm256_add_pd(n, e), _mm256_set1_pd(2000.0)));
    const __m256d a = _mm256_max_pd(_mm256_set1_pd(-1021.0), _mm256_min_pd(ne, _mm256_set1_pd(1022.0)));
    const __m256d b = _mm256_sub_pd(ne, a);
    return _mm256_mul_pd(_mm256_mul_pd(m, power_of_two(a)), power_of_two(b));
  }
  __m256d avx2_mantissa_, avx2_exponent_;
#endif
  double scale_;
  bool finite_nonzero_;
};

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
