// Definitions of the scalar conversions declared in <tessera/core/convert.h>. Not for direct use.
//
// Every narrowing goes through one integer routine, round_to_format(), which sees the exact
// source value as sign * significand * 2^exponent and rounds it once, half to even. That is why
// from_f64 rounds directly from double (no double rounding through f32) and why the results do
// not depend on the floating-point environment (MXCSR) nor on the compiler.
#ifndef TESSERA_CORE_INTERNAL_CONVERT_IMPL_H_
#define TESSERA_CORE_INTERNAL_CONVERT_IMPL_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tessera/core/data_type.h"

namespace tessera {
namespace internal {

// A binary floating-point storage format narrower than f32.
struct float_format {
  int exp_bits;
  int mant_bits;
  // IEEE-like: all-ones exponent is Inf (mantissa 0) or NaN. Otherwise (E4M3 "fn") only the
  // all-ones pattern S.1111.111 is NaN, there is no Inf, and overflow becomes NaN (oneDNN 3.x).
  bool has_inf;

  constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
  constexpr int min_normal_exp() const { return 1 - bias(); }
  constexpr uint32_t sign_bit() const { return 1u << (exp_bits + mant_bits); }
  constexpr uint32_t exp_mask() const { return ((1u << exp_bits) - 1) << mant_bits; }
  constexpr uint32_t mant_mask() const { return (1u << mant_bits) - 1; }
  constexpr uint32_t quiet_bit() const { return 1u << (mant_bits - 1); }
  // Largest finite magnitude as a bit pattern.
  constexpr uint32_t max_finite() const {
    return has_inf ? exp_mask() - 1 : exp_mask() | (mant_mask() - 1);
  }
  constexpr uint32_t nan_pattern() const {
    return has_inf ? exp_mask() | quiet_bit() : exp_mask() | mant_mask();
  }
};

inline constexpr float_format kBf16Format{8, 7, true};
inline constexpr float_format kF16Format{5, 10, true};
inline constexpr float_format kF8E5M2Format{5, 2, true};
inline constexpr float_format kF8E4M3Format{4, 3, false};

// v / 2^shift rounded half to even; v < 2^63.
constexpr uint64_t shift_right_round_even(uint64_t v, int shift) {
  if (shift <= 0) return v << -shift;
  if (shift >= 64) return 0;  // v < 2^63 is below half of 2^64
  const uint64_t q = v >> shift;
  const uint64_t rem = v & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  return (rem > half || (rem == half && (q & 1))) ? q + 1 : q;
}

// A finite non-zero magnitude significand * 2^exponent (significand < 2^63) rounded to `f`;
// returns the magnitude bits, or nan_pattern()/Inf on overflow.
constexpr uint32_t round_magnitude(const float_format& f, uint64_t significand, int exponent) {
  const int lead = std::bit_width(significand) - 1;  // value in [2^(lead+exp), 2^(lead+exp+1))
  const int unbiased = lead + exponent;
  uint64_t bits;
  if (unbiased >= f.min_normal_exp()) {
    // Normal: keep mant_bits below the leading one. A carry out of the mantissa lands in the
    // exponent field, which is exactly the next binade.
    const uint64_t mant = shift_right_round_even(significand, lead - f.mant_bits);
    bits = (static_cast<uint64_t>(unbiased + f.bias() - 1) << f.mant_bits) + mant;
  } else {
    // Subnormal: units of 2^(min_normal_exp - mant_bits); may round up to the smallest normal.
    bits = shift_right_round_even(significand, f.min_normal_exp() - f.mant_bits - exponent);
  }
  if (bits > f.max_finite()) return f.has_inf ? f.exp_mask() : f.nan_pattern();
  return static_cast<uint32_t>(bits);
}

// Narrowing from a double. NaN: sign kept, the top payload bits kept, quiet bit set (what
// F16C's vcvtps2ph and AVX512-BF16's vcvtneps2bf16 do); E4M3 has a single NaN per sign.
// Inf: Inf, or NaN for E4M3.
constexpr uint32_t double_to_format(const float_format& f, double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const uint32_t sign = (bits >> 63) ? f.sign_bit() : 0;
  const uint64_t mag = bits & ~(uint64_t{1} << 63);
  constexpr uint64_t kExpMask = uint64_t{0x7FF} << 52;
  constexpr uint64_t kMantMask = (uint64_t{1} << 52) - 1;
  if (mag >= kExpMask) {
    const bool is_nan = mag > kExpMask;
    if (!f.has_inf) return sign | f.nan_pattern();
    if (!is_nan) return sign | f.exp_mask();
    const uint32_t payload = static_cast<uint32_t>((mag & kMantMask) >> (52 - f.mant_bits));
    return sign | f.exp_mask() | f.quiet_bit() | payload;
  }
  if (mag == 0) return sign;
  const int biased = static_cast<int>(mag >> 52);
  const uint64_t significand = biased ? (mag & kMantMask) | (uint64_t{1} << 52) : mag;
  const int exponent = (biased ? biased : 1) - 1023 - 52;
  return sign | round_magnitude(f, significand, exponent);
}

// Exact widening to float (every format here fits in f32). NaN: quiet bit set, payload kept.
constexpr float format_to_float(const float_format& f, uint32_t bits) {
  const bool negative = bits & f.sign_bit();
  const uint32_t e = (bits & f.exp_mask()) >> f.mant_bits;
  const uint32_t m = bits & f.mant_mask();
  const uint32_t sign32 = negative ? 0x80000000u : 0u;
  const uint32_t all_ones = (1u << f.exp_bits) - 1;
  if (f.has_inf ? e == all_ones : (e == all_ones && m == f.mant_mask())) {
    if (f.has_inf && m == 0) return std::bit_cast<float>(sign32 | 0x7F800000u);
    return std::bit_cast<float>(sign32 | 0x7FC00000u | (m << (23 - f.mant_bits)));
  }
  if (e == 0) {
    // Subnormal or zero: m * 2^(min_normal_exp - mant_bits), exact in f32 for every format here.
    float magnitude = static_cast<float>(m);
    for (int k = 0; k < f.mant_bits - f.min_normal_exp(); ++k) magnitude *= 0.5f;
    return negative ? -magnitude : magnitude;
  }
  const uint32_t e32 = e - f.bias() + 127;
  return std::bit_cast<float>(sign32 | (e32 << 23) | (m << (23 - f.mant_bits)));
}

// Round half to even, then saturate to Int's range. NaN -> max for signed types, 0 for unsigned
// (oneDNN 2.6.3 is not consistent here: its reference reorder gives s8 127 and u8 0, its JIT int8
// kernels 0 or -128; docs/reorder.md lists the cases. We keep one rule; see docs/core.md for s32).
template <class Int>
constexpr Int double_to_int(double v) {
  using limits = std::numeric_limits<Int>;
  if (v != v) return std::is_signed_v<Int> ? limits::max() : Int{0};
  // Far outside every Int's range: saturate before converting (the cast would be UB).
  if (v >= 0x1p40) return limits::max();
  if (v <= -0x1p40) return limits::lowest();
  int64_t t = static_cast<int64_t>(v);  // truncation toward zero, exact here
  const double frac = v - static_cast<double>(t);  // exact: |v| < 2^40
  // The rounding step without branches (& and |, not && and ||): on random data the fraction's
  // tests are unpredictable, and as branches they cost more than the rest of the conversion
  // (measured on the strided reorder f32 -> s32).
  const bool odd = (t & 1) != 0;
  const bool up = (frac > 0.5) | ((frac == 0.5) & odd);
  const bool down = (frac < -0.5) | ((frac == -0.5) & odd);
  t += static_cast<int64_t>(up) - static_cast<int64_t>(down);
  t = std::min<int64_t>(t, limits::max());
  t = std::max<int64_t>(t, limits::lowest());
  return static_cast<Int>(t);
}

template <class T>
constexpr float_format format_of() {
  if constexpr (std::is_same_v<T, bf16>) return kBf16Format;
  if constexpr (std::is_same_v<T, f16>) return kF16Format;
  if constexpr (std::is_same_v<T, f8_e5m2>) return kF8E5M2Format;
  if constexpr (std::is_same_v<T, f8_e4m3>) return kF8E4M3Format;
}

template <class T>
inline constexpr bool is_narrow_float_v =
    std::is_same_v<T, bf16> || std::is_same_v<T, f16> || std::is_same_v<T, f8_e5m2> ||
    std::is_same_v<T, f8_e4m3>;

}  // namespace internal

template <Element T>
constexpr float to_f32(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, bf16>) {
    return std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16);  // exact, payload kept
  } else if constexpr (internal::is_narrow_float_v<T>) {
    return internal::format_to_float(internal::format_of<T>(), v.bits);
  } else {
    return static_cast<float>(v);  // double and s32 round to nearest even; s8/u8 exact
  }
}

template <Element T>
constexpr double to_f64(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (internal::is_narrow_float_v<T>) {
    return static_cast<double>(to_f32(v));  // exact
  } else {
    return static_cast<double>(v);  // exact for f32, s32, s8, u8
  }
}

template <Element T>
constexpr T from_f64(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, float>) {
    // IEEE narrowing (round to nearest even, overflow to Inf, NaN kept quiet).
    return static_cast<float>(v);
  } else if constexpr (internal::is_narrow_float_v<T>) {
    using bits_t = decltype(T{}.bits);
    return T{static_cast<bits_t>(internal::double_to_format(internal::format_of<T>(), v))};
  } else {
    return internal::double_to_int<T>(v);
  }
}

template <Element T>
constexpr T from_f32(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, bf16>) {
    // bf16 is f32's top half, so rounding drops the low half, half to even, in one integer
    // addition: its carry moves into the exponent as round_magnitude's does (past the largest
    // finite value it gives Inf), and subnormals round alike. NaN keeps its sign and top payload
    // bits and is made quiet, as from_f64 does. The same bits as from_f64 (tested over every top
    // half with each kind of low half) without its double arithmetic, which would take most of the
    // strided reorder's time (f32 -> bf16 2x16x3x4 with per-dimension scales).
    const uint32_t b = std::bit_cast<uint32_t>(v);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return bf16{static_cast<uint16_t>((b >> 16) | 0x0040u)};
    return bf16{static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16)};
  } else {
    // float -> double is exact, so this is a single rounding from the f32 value.
    return from_f64<T>(static_cast<double>(v));
  }
}

}  // namespace tessera

#endif  // TESSERA_CORE_INTERNAL_CONVERT_IMPL_H_
