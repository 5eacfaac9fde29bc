// The low-precision types s4, u4, f4_e2m1, f4_e3m0 and e8m0: their codes in memory and their
// conversions to and from f32/f64, as oneDNN 3.x defines them.
//
//   uint8_t code = tessera::low_precision_from_f32(tessera::data_type::s4, -3.5f);  // 0xC (-4)
//   float x = tessera::low_precision_to_f32(tessera::data_type::s4, code);           // -4
//   tessera::store_code(tessera::data_type::u4, buf, 5, 0xF);  // element 5: high nibble of buf[2]
//   uint8_t c = tessera::load_code(tessera::data_type::u4, buf, 5);                  // 0xF
//
// Storage: the 4-bit types hold two elements per byte, element 2i in the low nibble and 2i+1 in
// the high nibble of byte i (element offsets from memory_desc::offset, offset0 included); e8m0 is
// one byte per element.
//
// Rules (docs/core.md, one table per type):
//   * s4 / u4: round half to even, saturate to [-8, 7] / [0, 15]; NaN -> 7 (s4), 0 (u4), the rule
//     of s8 and u8. Code: two's complement nibble.
//   * f4_e2m1 (values 0, .5, 1, 1.5, 2, 3, 4, 6 and negatives) and f4_e3m0 (0, .25, .5, 1, 2, 4,
//     8, 16 and negatives): the nearest value, ties to the even code; beyond the largest
//     magnitude, the largest (saturation) until the distances, computed in the input's
//     precision as oneDNN does, round to a tie (|x| >= about 2^24 for f32: then the largest even
//     code, 4 or 8); the sign kept (so -0.1 -> -0). Neither has Inf or NaN: Inf and NaN become
//     +0 for f4_e2m1, +16 for f4_e3m0 (oneDNN's choice).
//   * e8m0: the unbiased exponent only, 2^(code - 127): conversion keeps f32's exponent field
//     (rounds toward zero in the log domain, drops the sign); zero and f32 denormals give code 0,
//     Inf and NaN give 0xFF. Code 0xFF reads as NaN (0xFFC00000) and code 0 as +0 (oneDNN's
//     decoding).
//   * from_f64 rounds once, directly from the double (f4 distances computed in double).
#ifndef TESSERA_CORE_LOW_PRECISION_H_
#define TESSERA_CORE_LOW_PRECISION_H_

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tessera/core/data_type.h"

namespace tessera {

namespace internal {

// The magnitudes of the 3-bit f4 codes 0..7 (the sign is bit 3).
inline constexpr float kF4E2M1Magnitudes[8] = {0.f, .5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};
inline constexpr float kF4E3M0Magnitudes[8] = {0.f, .25f, .5f, 1.f, 2.f, 4.f, 8.f, 16.f};

// The code whose magnitude is nearest to |v| (not NaN or Inf), distances computed in v's own
// precision (float or double), ties to the even code; the sign of v kept. This is oneDNN's
// definition, kept to its letter: where the distances round to equal values (|v| far beyond the
// largest magnitude, about 2^24 and up for f32) the tie goes to the largest even code, so 1e30
// gives 4 (f4_e2m1) and 8 (f4_e3m0) rather than the largest magnitude.
template <class Real>
constexpr uint8_t nearest_f4_code(const float (&magnitudes)[8], Real v) {
  using Bits = std::conditional_t<sizeof(Real) == 4, uint32_t, uint64_t>;
  const bool negative = std::bit_cast<Bits>(v) >> (sizeof(Real) * 8 - 1);
  const Real a = negative ? -v : v;
  auto distance = [&](int k) {
    const Real d = static_cast<Real>(magnitudes[k]) - a;
    return d < 0 ? -d : d;
  };
  uint8_t code = 0;
  Real best = distance(0);
  for (uint8_t k = 1; k < 8; ++k) {
    const Real d = distance(k);
    if (d < best || (d == best && k % 2 == 0)) {
      best = d;
      code = k;
    }
  }
  return static_cast<uint8_t>(code | (negative ? 0x8 : 0));
}

// v rounded half to even and saturated to [lo, hi]; NaN -> nan_code.
constexpr int round_saturate(double v, int lo, int hi, int nan_code) {
  if (v != v) return nan_code;
  if (v <= lo) return lo;
  if (v >= hi) return hi;
  int r = static_cast<int>(v);  // toward zero; |v| < 16 here
  if (r > v) --r;                 // floor
  const double frac = v - r;      // exact
  if (frac > 0.5 || (frac == 0.5 && (r & 1))) ++r;
  return r;
}

constexpr uint8_t e8m0_code(double v) {
  if (v != v) return 0xFF;
  const double a = v < 0 ? -v : v;
  if (a == 0) return 0;
  const uint64_t bits = std::bit_cast<uint64_t>(a);
  const int exponent = static_cast<int>(bits >> 52) - 1023;  // double denormals: far below 2^-126
  const int code = exponent + 127;
  if (code <= 0) return 0;
  if (code >= 255) return 0xFF;
  return static_cast<uint8_t>(code);
}

// low_precision_from_f32 / _f64.
template <class Real>
constexpr uint8_t low_precision_from(data_type dt, Real v) {
  switch (dt) {
    case data_type::s4:
      return static_cast<uint8_t>(round_saturate(v, -8, 7, 7) & 0xF);
    case data_type::u4:
      return static_cast<uint8_t>(round_saturate(v, 0, 15, 0));
    case data_type::f4_e2m1:
      if (v != v || v - v != 0) return 0x0;  // NaN or Inf
      return nearest_f4_code(kF4E2M1Magnitudes, v);
    case data_type::f4_e3m0:
      if (v != v || v - v != 0) return 0x7;
      return nearest_f4_code(kF4E3M0Magnitudes, v);
    case data_type::e8m0:
      return e8m0_code(static_cast<double>(v));
    default:
      return 0;
  }
}

}  // namespace internal

// The code of v in dt (a type of kLowPrecisionDataTypes), rounded once by the rules above.
constexpr uint8_t low_precision_from_f64(data_type dt, double v) {
  return internal::low_precision_from(dt, v);
}
constexpr uint8_t low_precision_from_f32(data_type dt, float v) {
  return internal::low_precision_from(dt, v);
}

// The value of `code` of dt; exact.
constexpr float low_precision_to_f32(data_type dt, uint8_t code) {
  const bool negative = code & 0x8;
  switch (dt) {
    case data_type::s4:
      return static_cast<float>(negative ? static_cast<int>(code & 0xF) - 16 : code & 0xF);
    case data_type::u4:
      return static_cast<float>(code & 0xF);
    case data_type::f4_e2m1:
    case data_type::f4_e3m0: {
      const float m = (dt == data_type::f4_e2m1 ? internal::kF4E2M1Magnitudes
                                                : internal::kF4E3M0Magnitudes)[code & 0x7];
      return negative ? -m : m;
    }
    case data_type::e8m0:
      if (code == 0xFF) return std::bit_cast<float>(0xFFC00000u);
      return std::bit_cast<float>(static_cast<uint32_t>(code) << 23);
    default:
      return 0.f;
  }
}

// Element `index` (an element offset) of a dt buffer at `base`.
inline uint8_t load_code(data_type dt, const void* base, int64_t index) {
  const auto* bytes = static_cast<const uint8_t*>(base);
  if (bits_of(dt) == 8) return bytes[index];
  const uint8_t b = bytes[index >> 1];
  return (index & 1) ? static_cast<uint8_t>(b >> 4) : static_cast<uint8_t>(b & 0xF);
}

// Writes element `index` of a dt buffer at `base`; a 4-bit store keeps the byte's other nibble.
inline void store_code(data_type dt, void* base, int64_t index, uint8_t code) {
  auto* bytes = static_cast<uint8_t*>(base);
  if (bits_of(dt) == 8) {
    bytes[index] = code;
    return;
  }
  uint8_t& b = bytes[index >> 1];
  b = (index & 1) ? static_cast<uint8_t>((b & 0x0F) | (code << 4))
                  : static_cast<uint8_t>((b & 0xF0) | (code & 0x0F));
}

}  // namespace tessera

#endif  // TESSERA_CORE_LOW_PRECISION_H_
