// exp(x - c) for the x of a known range [lo, c], without rounding x - c first (avx512bw):
// softmax's exp(x - row max), where x - max loses up to 2^6 ulp of the small results to its own
// rounding unless an error term is carried (exp_nonpositive_f32 of a TwoSum, 14 vector
// operations and more). This one takes 11 and needs no error term.
//
//   if (auto e = exp_minus_f32<A>::make(row_max, row_min)) {
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
// at most over //primitives/softmax:exp_test's ranges. x = NaN gives NaN; x outside [lo, c] is
// not allowed.
//
// exp_minus_lanes_f32 is the same with a range per lane. Templates on Arch in
// tessera::softmax_internal (simd/per_isa.h); included by the per-ISA kernel sources only.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_MINUS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_MINUS_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "tessera/simd/math.h"
#include "tessera/simd/scalef.h"
#include "tessera/simd/table_lookup.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {

// exp_minus_f32's method with its per-range constants per lane (avx512bw).
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> exp_minus_table32(
    xsimd::batch<float, Arch> x, xsimd::batch<float, Arch> c, xsimd::batch<float, Arch> shift,
    xsimd::batch<float, Arch> ln2_hi, xsimd::batch<float, Arch> ln2_lo) {
  using F = xsimd::batch<float, Arch>;
  using I = xsimd::batch<int32_t, Arch>;
  // shifted = 1.5 * 2^23 + n: n's low five bits index the table.
  const F shifted = simd::fused_fma(x, F(0x1.715476p+5f), shift);
  const F n32 = simd::fused_fma(shifted, F(1.f / 32), F(-0x1.8p23f / 32));
  const F t1 = simd::fused_fma(n32, ln2_hi, c);  // exact
  const F r = simd::fused_fnma(n32, ln2_lo, x - t1);
  // 2^(j/32), j = 0..31, each correctly rounded: entries 0..15 in low, 16..31 in high.
  alignas(64) static constexpr float kTable[32] = {
      0x1p+0f,        0x1.059b0ep+0f, 0x1.0b5586p+0f, 0x1.11301ep+0f, 0x1.172b84p+0f, 0x1.1d4874p+0f,
      0x1.2387a6p+0f, 0x1.29e9ep+0f,  0x1.306fep+0f,  0x1.371a74p+0f, 0x1.3dea64p+0f, 0x1.44e086p+0f,
      0x1.4bfdaep+0f, 0x1.5342b6p+0f, 0x1.5ab07ep+0f, 0x1.6247ecp+0f, 0x1.6a09e6p+0f, 0x1.71f75ep+0f,
      0x1.7a1148p+0f, 0x1.82589ap+0f, 0x1.8ace54p+0f, 0x1.93737cp+0f, 0x1.9c4918p+0f, 0x1.a5503cp+0f,
      0x1.ae89fap+0f, 0x1.b7f77p+0f,  0x1.c199bep+0f, 0x1.cb720ep+0f, 0x1.d5818ep+0f, 0x1.dfc974p+0f,
      0x1.ea4afap+0f, 0x1.f50766p+0f};
  const F low = F::load_aligned(kTable);
  const F high = F::load_aligned(kTable + 16);
  const F t = simd::table_lookup2(low, high, xsimd::bitwise_cast<I>(shifted));
  F q = simd::fused_fma(F(0x1.555762p-3f), r, F(0x1.00022p-1f));
  q = simd::fused_fma(q, r, F(1.f));
  return simd::scalef(simd::fused_fma(t * r, q, t), n32);
}

template <class Arch>
class exp_minus_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;

  static std::optional<exp_minus_f32> make(float c, float lo) {
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
    } else {
      (void)c;
      (void)lo;
      return std::nullopt;
    }
  }

  [[gnu::always_inline]] batch operator()(batch x) const {
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      return exp_minus_table32<Arch>(x, batch(c_), batch(shift_), batch(ln2_hi_), batch(ln2_lo_));
    } else {
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
//   if (auto e = exp_minus_lanes_f32<A>::make(lane_max, lane_min)) {
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

  [[gnu::always_inline]] batch operator()(batch x) const {
    if constexpr (std::is_base_of_v<xsimd::avx512bw, Arch>) {
      return exp_minus_table32<Arch>(x, c_, shift_, ln2_hi_, ln2_lo_);
    } else {
      return x;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  exp_minus_lanes_f32(batch c, batch shift, batch ln2_hi, batch ln2_lo)
      : c_(c), shift_(shift), ln2_hi_(ln2_hi), ln2_lo_(ln2_lo) {}
  batch c_, shift_, ln2_hi_, ln2_lo_;
};

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_MINUS_H_
