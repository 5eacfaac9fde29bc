// exp of f64 batches, optionally times a constant, in two accuracies:
// - relaxed: about 2^-37 relative error, enough wherever the result is rounded to f32 afterwards,
//   even after a cancelling subtraction (softmax's logsoftmax backward,
//   `diff_dst - exp(dst) * sum`, which xsimd::exp made slow with its one division per vector);
// - full: within 1.5 ulp (f64 softmax forward; 1.01 measured on avx512bw, 1.24 on avx2), still
//   without a division.
//
//   const scaled_exp_f64<A> exp_times_sum(sum);                  // once per row
//   auto d = dy - exp_times_sum(y);                              // exp(y) * sum
//   const scaled_exp_f64<A, exp_f64_accuracy::full> exp(1.0);
//
// Any input: NaN -> NaN, -Inf -> 0, +Inf -> +Inf. On avx512bw: n = round(16 x / ln2),
// r = x - n ln2/16 (two-constant Cody-Waite, |r| <= ln2/32), 2^((n mod 16)/16) · scale from a
// 16-entry table in two registers (vpermt2pd), exp(r) = 1 + r q(r) with q the cubic Chebyshev
// fit of (e^r - 1)/r (relaxed: |error| below 2^-37.5 relative) or its Taylor polynomial of degree
// 6 (full: truncation below 2^-59), and 2^floor(n/16) by one vscalefpd: no division, denormal
// and overflowing results rounded once (exp(x) finite up to 709.78).
// On avx2 (with FMA; no vscalefpd, no f64 <-> int64 conversion, which xsimd::exp does lane by
// lane in C++, slowly): n = round(x / ln2), r = x - n ln2 (the same Cody-Waite
// pair, |r| <= ln2/2), exp(r) by its Taylor polynomial (relaxed: degree 11, truncation below
// 2^-47; full: degree 13 as 1 + r q(r), truncation below 2^-57),
// times scale's mantissa, then 2^(n + scale's exponent) as two powers of two built from the
// bits, the first keeping the product normal and exact, so the second rounds it once into the
// denormal or overflowing range.
// sse4_2 (both accuracies): xsimd::exp (full accuracy; Inf from x > 709.43, 0 below -708.39)
// times scale, x clamped to ±1500 first.
// Error measured by //primitives/softmax:scaled_exp_f64_test against long double.
//
// A template on Arch in tessera::softmax_internal (simd/per_isa.h); included by the per-ISA
// kernel sources only.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_EXP_F64_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_EXP_F64_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tessera/simd/math.h"
#include "tessera/simd/scalef.h"
#include "tessera/simd/select.h"
#include "tessera/simd/table_lookup.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {

enum class exp_f64_accuracy { relaxed, full };

template <class Arch, exp_f64_accuracy kAccuracy = exp_f64_accuracy::relaxed>
class scaled_exp_f64 {
 public:
  using batch = xsimd::batch<double, Arch>;

  // scale 0, ±Inf or NaN: computed as exp(x) * scale (so exp(+Inf) * 0 stays NaN).
  explicit scaled_exp_f64(double scale)
      : scale_(scale), finite_nonzero_(std::isfinite(scale) && scale != 0) {
    // scale = s · 2^e with s in [1, 2) (or 1 and 0 when scale is 0, ±Inf or NaN).
    int e = 0;
    const double s = finite_nonzero_ ? 2 * std::frexp(scale, &e) : 1.0;
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      // The table holds s times each entry (never overflowing or denormal); vscalefpd applies e.
      exponent_ = batch(finite_nonzero_ ? e - 1 : 0);
      // 2^(j/16), j = 0..15, each correctly rounded, times s.
      alignas(64) static constexpr double kTable[16] = {
          0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
          0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
          0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
          0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
      low_ = batch(s) * batch::load_aligned(kTable);
      high_ = batch(s) * batch::load_aligned(kTable + 8);
    } else if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      mantissa_ = batch(s);
      exponent_ = batch(finite_nonzero_ ? e - 1 : 0);
    }
  }

  [[gnu::always_inline]] batch operator()(batch x) const {
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      if (finite_nonzero_) return table_exp(x, low_, high_, exponent_);
      return batch(scale_) * table_exp(x, low_, high_, exponent_);  // the table holds 1 then
    } else if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      if (finite_nonzero_) return taylor_exp(x, mantissa_, exponent_);
      return taylor_exp(x, mantissa_, exponent_) * batch(scale_);  // s = 1, e = 0
    } else {
      // xsimd converts n to int64 lane by lane in C++ (UB for ±Inf and NaN): clamp, and put
      // NaN back after.
      const batch xc = xsimd::min(xsimd::max(x, batch(-1500.0)), batch(1500.0));
      const auto nan = xsimd::isnan(x);
      const batch e = xsimd::exp(simd::select(nan, batch(0.0), xc)) * batch(scale_);
      return simd::select(nan, x + x, e);
    }
  }

 private:
  // avx512bw: exp(x) · 2^exponent times the scale folded into the table (low: entries 0..7,
  // high: 8..15).
  [[gnu::always_inline]] static batch table_exp(batch x, batch low, batch high, batch exponent) {
    using I = xsimd::batch<int64_t, Arch>;
    // Clamped so 16 x / ln2 stays far inside the magic-number trick's 2^51; past ±1500 the
    // result is 0 / Inf for every finite scale (exp(x) · scale is finite and nonzero only for
    // |x| < 745 + 710). minpd returns its second operand when one is NaN, so a NaN x survives.
    const batch xc = xsimd::max(batch(-1500.0), xsimd::min(batch(1500.0), x));
    // Adding 1.5 * 2^52 rounds 16 x / ln2 to the nearest integer n and leaves n's low bits in
    // the low mantissa bits, which vpermt2pd reads as the table index (bits 0..3).
    const batch magic(0x1.8p52);
    const batch shifted = simd::fused_fma(xc, batch(0x1.71547652b82fep+4), magic);
    // n / 16, exactly (a power-of-two scaling and an exact difference, rounded once by the fma).
    const batch n16 = simd::fused_fma(shifted, batch(1.0 / 16), batch(-0x1.8p52 / 16));
    // r = x - n ln2/16 with ln2 = hi + lo, hi of 38 bits (n hi is exact; the fma rounds once).
    batch r = simd::fused_fnma(n16, batch(0x1.62e42fefa0000p-1), xc);
    r = simd::fused_fnma(n16, batch(0x1.cf79abc9e3b3ap-40), r);
    batch q;  // exp(r) = 1 + r q
    if constexpr (kAccuracy == exp_f64_accuracy::relaxed) {
      q = batch(0x1.5556b330ec55bp-5);
      q = simd::fused_fma(q, r, batch(0x1.5557621f0be17p-3));
      q = simd::fused_fma(q, r, batch(0x1.ffffffff57e8ep-2));
      q = simd::fused_fma(q, r, batch(0x1.fffffffe07ba3p-1));
    } else {
      // sum of r^k / (k + 1)!, k = 0..6: the first omitted term of exp is r^8 / 8! < 2^-59.
      q = batch(1.0 / 5040);
      for (double c : {1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1.0}) {
        q = simd::fused_fma(q, r, batch(c));
      }
    }
    const batch t = simd::table_lookup2(low, high, xsimd::bitwise_cast<I>(shifted));
    const batch mantissa = simd::fused_fma(t * r, q, t);  // t exp(r)
    // vscalefpd multiplies by 2^floor(n / 16 + exponent).
    return simd::scalef(mantissa, n16 + exponent);
  }

  // avx2: 2^v for integer-valued v in [-1022, 1023], built from the bits: v + 1.5 · 2^52 holds v
  // in its low mantissa bits, and the exponent field is the low 11 bits of v + 1023 (2^51 is
  // 0 mod 2^12).
  [[gnu::always_inline]] static batch power_of_two(batch v) {
    using I = xsimd::batch<int64_t, Arch>;
    const I bits = xsimd::bitwise_cast<I>(v + batch(0x1.8p52));
    return xsimd::bitwise_cast<batch>((bits + I(1023)) << 52);
  }

  // avx2: exp(r) for |r| <= 0.3466 by its Taylor polynomial, by Estrin's scheme: Horner's
  // chain of dependent FMAs made the loop latency-bound. c(k) = 1 / k!.
  [[gnu::always_inline]] static batch taylor_exp_of_reduced(batch r) {
    constexpr double kInverseFactorial[14] = {
        1.0,         1.0,          1.0 / 2,        1.0 / 6,         1.0 / 24,
        1.0 / 120,   1.0 / 720,    1.0 / 5040,     1.0 / 40320,     1.0 / 362880,
        1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800};
    auto c = [&](int k) { return batch(kInverseFactorial[k]); };
    auto pair = [&](int k) { return simd::fused_fma(c(k + 1), r, c(k)); };  // c_k + c_{k+1} r
    const batch r2 = r * r;
    const batch r4 = r2 * r2;
    const batch r8 = r4 * r4;
    if constexpr (kAccuracy == exp_f64_accuracy::relaxed) {
      // Terms 0..11 (the first omitted one is below 2^-47).
      const batch p0 = simd::fused_fma(r2, pair(2), pair(0));   // terms 0..3
      const batch p4 = simd::fused_fma(r2, pair(6), pair(4));   // terms 4..7, over r^4
      const batch p8 = simd::fused_fma(r2, pair(10), pair(8));  // terms 8..11, over r^8
      return simd::fused_fma(r8, p8, simd::fused_fma(r4, p4, p0));
    } else {
      // 1 + r q with q = the terms 1..13 over r (the first omitted one is below 2^-57): the
      // last FMA is the only rounding next to 1.
      auto shifted_pair = [&](int k) { return simd::fused_fma(c(k + 2), r, c(k + 1)); };
      const batch q0 = simd::fused_fma(r2, shifted_pair(2), shifted_pair(0));   // terms 1..4
      const batch q4 = simd::fused_fma(r2, shifted_pair(6), shifted_pair(4));   // 5..8, / r^4
      const batch q8 = simd::fused_fma(r2, shifted_pair(10), shifted_pair(8));  // 9..12, / r^8
      const batch q12 = simd::fused_fma(r4, c(13), q8);                         // 9..13
      const batch q = simd::fused_fma(r8, q12, simd::fused_fma(r4, q4, q0));
      return simd::fused_fma(r, q, batch(1.0));
    }
  }

  // avx2: exp(x) · s · 2^e, s in (-2, -1] or [1, 2).
  [[gnu::always_inline]] static batch taylor_exp(batch x, batch s, batch e) {
    // The clamp keeps n far inside the magic-number trick's 2^51; past ±1500 the result is 0 or
    // Inf for every finite scale. minpd returns its second operand when one is NaN, so a NaN x
    // survives (and makes every later step NaN).
    const batch xc = xsimd::max(batch(-1500.0), xsimd::min(batch(1500.0), x));
    const batch magic(0x1.8p52);
    const batch n = simd::fused_fma(xc, batch(0x1.71547652b82fep+0), magic) - magic;
    // r = x - n ln2 with ln2 = hi + lo, hi of 37 bits (n hi is exact for |n| <= 2^16).
    batch r = simd::fused_fnma(n, batch(0x1.62e42fefa0000p-1), xc);
    r = simd::fused_fnma(n, batch(0x1.cf79abc9e3b3ap-40), r);
    const batch m = taylor_exp_of_reduced(r) * s;  // |m| in [0.70, 2.83)
    // 2^(n + e) = 2^a · 2^b with a the part that keeps m · 2^a normal (exact), b the rest, so
    // the last product is the only rounding below DBL_MIN or above DBL_MAX. |n + e| is clamped
    // to 2000 (the result is 0 or Inf well before), so b stays within [-979, 978].
    const batch ne = xsimd::max(batch(-2000.0), xsimd::min(n + e, batch(2000.0)));
    const batch a = xsimd::max(batch(-1021.0), xsimd::min(ne, batch(1022.0)));
    const batch b = ne - a;
    return (m * power_of_two(a)) * power_of_two(b);
  }

  // avx512bw: the table times s, and e; avx2: s and e. Unused elsewhere.
  batch low_, high_, mantissa_, exponent_;
  double scale_;
  bool finite_nonzero_;
};

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_SCALED_EXP_F64_H_
