// exp(x) for x in [-110, 0] or NaN, as softmax's exp(x - max) needs: a table of 2^(j/N) and a
// short polynomial, written against xsimd and simd/'s ops (table_lookup, scalef, fused_fma).
//
//   auto e = exp_nonpositive_f32<A>(x - row_max);
//
// On avx512bw, 10 vector operations instead of simd::exp_f32's ~26, and more accurate (1.00 ulp
// at most over every f32 of [-110, 0] with a normal result, against 1.24): n = round(16 x / ln2)
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
// so the exponent stays >= 1) or NaN take simd::exp_f32, blended per lane, computed only when a
// vector has one. 15 vector operations instead of exp_f32's ~40 (without FMA fusion there).
// sse4_2: simd::exp_f32. Accuracy measured by //primitives/softmax:exp_test.
//
// Templates on Arch in tessera::softmax_internal: each ISA's instantiation is its own symbol
// (simd/per_isa.h). Included by the per-ISA kernel sources only.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NONPOSITIVE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NONPOSITIVE_H_

#include <cstdint>
#include <type_traits>

#include "tessera/simd/compare.h"
#include "tessera/simd/math.h"
#include "tessera/simd/scalef.h"
#include "tessera/simd/select.h"
#include "tessera/simd/table_lookup.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {

// avx2's 2^(j/8) e^r for |r| <= ln2/16 (a little more is fine) and j = bits mod 8: the 8-entry
// table (one vpermps reads the low 3 bits of each lane) times the Taylor quartic, in
// [0.95, 1.92). Shared by exp_nonpositive_table8 and exp_minus_nearby_f32 (exp_nearby.h).
// kScaled: the table entry is first multiplied by scale (a power of two), off the polynomial's
// chain, and the result is scale * 2^(j/8) e^r. The exps of softmax are bound by the latency of
// their chains (how many fit in the scheduler) more than by their operation count: on AVX2
// Zen 3, in L1, exp_minus_nearby_f32 measured faster with the product by scale first than last.
// The same bits but where t * r * scale is subnormal (results below about 2^-121), whose
// rounding there adds at most 1/8 ulp (largest error 0.98 ulp over every 8th f32 of ranges of
// 86, against 0.90 with the product last).
template <class Arch, bool kScaled = false>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> table8_times_exp(
    xsimd::batch<float, Arch> r, xsimd::batch<int32_t, Arch> bits,
    xsimd::batch<float, Arch> scale = xsimd::batch<float, Arch>(0.f)) {
  using F = xsimd::batch<float, Arch>;
  F q = simd::fused_fma(F(0x1.555556p-5f), r, F(0x1.555556p-3f));
  q = simd::fused_fma(q, r, F(0.5f));
  q = simd::fused_fma(q, r, F(1.f));  // (e^r - 1) / r
  alignas(32) static constexpr float kTable[8] = {0x1p+0f,        0x1.172b84p+0f, 0x1.306fep+0f,
                                                  0x1.4bfdaep+0f, 0x1.6a09e6p+0f, 0x1.8ace54p+0f,
                                                  0x1.ae89fap+0f, 0x1.d5818ep+0f};
  F t = simd::table_lookup(F::load_aligned(kTable), bits);
  if constexpr (kScaled) t = t * scale;
  return simd::fused_fma(t * r, q, t);
}

// exp_nonpositive_f32 on avx512bw (see there).
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> exp_nonpositive_table16(
    xsimd::batch<float, Arch> x) {
  using F = xsimd::batch<float, Arch>;
  using I = xsimd::batch<int32_t, Arch>;
  const F magic(0x1.8p23f);
  // magic + n; n / 16 exactly (a difference of two floats near 1.5 * 2^19, rounded once).
  const F shifted = simd::fused_fma(x, F(0x1.715476p+4f), magic);
  const F n16 = simd::fused_fma(shifted, F(1.f / 16), F(-0x1.8p23f / 16));
  F r = simd::fused_fnma(n16, F(0.693359375f), x);
  r = simd::fused_fnma(n16, F(-2.12194440e-4f), r);
  alignas(64) static constexpr float kTable[16] = {
      0x1p+0f,        0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f, 0x1.306fep+0f,  0x1.3dea64p+0f,
      0x1.4bfdaep+0f, 0x1.5ab07ep+0f, 0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
      0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f};
  // vpermps reads the low 4 bits of each lane: n mod 16 (magic's own low bits are 0).
  const F t = simd::table_lookup(F::load_aligned(kTable), xsimd::bitwise_cast<I>(shifted));
  F q = simd::fused_fma(F(0x1.555762p-3f), r, F(0x1.00022p-1f));
  q = simd::fused_fma(q, r, F(1.f));
  const F mantissa = simd::fused_fma(t * r, q, t);  // t exp(r)
  return simd::scalef(mantissa, n16);
}

// exp_nonpositive_f32 on avx2 (see there).
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> exp_nonpositive_table8(
    xsimd::batch<float, Arch> x) {
  using F = xsimd::batch<float, Arch>;
  using I = xsimd::batch<int32_t, Arch>;
  const F magic(0x1.8p23f);
  // magic + n: n's low bits are the mantissa's (magic's own low 22 bits are 0).
  const F shifted = simd::fused_fma(x, F(0x1.715476p+3f), magic);
  const F n = shifted - magic;  // exact
  // r = x - n ln2/8: n ln2_hi/8 is exact (ln2_hi has 9 bits), and so is x minus it.
  F r = simd::fused_fnma(n, F(0.693359375f / 8), x);
  r = simd::fused_fnma(n, F(-2.12194440e-4f / 8), r);
  const I bits = xsimd::bitwise_cast<I>(shifted);  // low bits: n mod 8
  const F mantissa = table8_times_exp<Arch>(r, bits);
  // (magic + n) << 20 = n << 20 (mod 2^32); clearing bits 0..22 leaves floor(n / 8) << 23.
  const I scale = (bits << 20) & I(-(1 << 23));
  const F fast = xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(mantissa) + scale);
  const auto special = simd::not_greater_equal(x, F(-86.5f));  // below -86.5, or NaN
  if (!xsimd::any(special)) return fast;
  return simd::select(special, simd::exp_f32<Arch>(x), fast);
}

template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> exp_nonpositive_f32(
    xsimd::batch<float, Arch> x) {
  if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
    return exp_nonpositive_table16<Arch>(x);
  } else if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
    return exp_nonpositive_table8<Arch>(x);
  } else {
    return simd::exp_f32<Arch>(x);
  }
}

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NONPOSITIVE_H_
