// exp(x - s) for the x of a known range [lo, c], where s is the multiple of ln2/8 nearest c
// (|s - c| <= ln2/16, so results reach 1.045): avx2's counterpart of exp_minus_f32
// (exp_minus.h), for uses where any s near the max serves, as in softmax (exp(c - s) cancels
// between each exp and their sum). No error term and no rounded x - c: 13 vector operations
// where exp_nonpositive_f32 of a Fast2Sum with its correction takes 19.
//
//   if (auto e = exp_minus_nearby_f32<A>::make(row_max, row_min)) {
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
// most 1/8 ulp for results below about 2^-121, measured by //primitives/softmax:exp_test.
//
// exp_minus_nearby_lanes_f32 is the same with a range per lane. Templates on Arch in
// tessera::softmax_internal (simd/per_isa.h); included by the per-ISA kernel sources only.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NEARBY_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NEARBY_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/exp_nonpositive.h"
#include "tessera/simd/math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {

// exp_minus_nearby_f32's and exp_minus_nearby_lanes_f32's body (avx2): offset holds
// 1.5 * 2^23 + 1016 - M per lane.
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> exp_minus_nearby_table8(
    xsimd::batch<float, Arch> x, xsimd::batch<float, Arch> offset) {
  using F = xsimd::batch<float, Arch>;
  using I = xsimd::batch<int32_t, Arch>;
  const F shifted = simd::fused_fma(x, F(0x1.715476p+3f), offset);
  const F big_n = shifted - offset;  // N, exact
  F r = simd::fused_fnma(big_n, F(0.693359375f / 8), x);
  r = simd::fused_fnma(big_n, F(-2.12194440e-4f / 8), r);
  const I bits = xsimd::bitwise_cast<I>(shifted);  // low bits: n mod 8
  // (n + 1016) << 20 with bits 0..22 cleared: (floor(n/8) + 127) << 23, i.e. 2^floor(n/8).
  const F scale = xsimd::bitwise_cast<F>((bits << 20) & I(-(1 << 23)));
  return table8_times_exp<Arch, true>(r, bits, scale);
}

template <class Arch>
class exp_minus_nearby_f32 {
 public:
  using batch = xsimd::batch<float, Arch>;

  static std::optional<exp_minus_nearby_f32> make(float c, float lo) {
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
    } else {
      (void)c;
      (void)lo;
      return std::nullopt;
    }
  }

  // s: the multiple of ln2/8 that the results are exp(x - s) of.
  double shift() const { return s_; }
  // exp(s - c) in f64: a result times it is exp(x - c) (logsoftmax's sum needs that one).
  double to_c() const { return to_c_; }

  [[gnu::always_inline]] batch operator()(batch xb) const {
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      return exp_minus_nearby_table8<Arch>(xb, batch(offset_));
    } else {
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
//   if (auto e = exp_minus_nearby_lanes_f32<A>::make(lane_max, lane_min)) {
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

  [[gnu::always_inline]] batch operator()(batch xb) const {
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
      return exp_minus_nearby_table8<Arch>(xb, offset_);
    } else {
      return xb;  // unreachable: make() gives no object on other archs
    }
  }

 private:
  exp_minus_nearby_lanes_f32() = default;
  batch offset_;
  double s_[kLanes];
  double to_c_[kLanes];
};

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_NEARBY_H_
