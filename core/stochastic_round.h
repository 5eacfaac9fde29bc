// Stochastic rounding as oneDNN 3.x defines it (its rounding-mode attribute, mode stochastic):
// the f32 value's bits below the destination type's precision get a pseudo-random bias added,
// then are cleared (truncation), so that a value rounds up with a probability proportional to
// its distance from the lower neighbour. The bias comes from Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011) keyed by the seed and counted by the
// element's logical index, so a given (seed, index, value) always rounds the same way.
//
//   const float r = tessera::stochastic_round(x, /*index=*/i, /*seed=*/123, data_type::f8_e5m2);
//   dst[i] = tessera::from_f32<tessera::f8_e5m2>(r);   // exact: r is a value of the type
//
// Destination types: bf16, f16, f8_e5m2, f8_e4m3 (stochastic_rounding_applies). The result is
// saturated to the type's finite range (infinities included) and flushed to 0 below its smallest
// normal; NaN stays NaN.
#ifndef TESSERA_CORE_STOCHASTIC_ROUND_H_
#define TESSERA_CORE_STOCHASTIC_ROUND_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "tessera/core/data_type.h"

namespace tessera {

// Philox4x32-10: the block of four 32-bit words for counter `ctr` under the key {k0, k1}.
struct philox_block {
  uint32_t w[4];
};
constexpr philox_block philox4x32_10(philox_block ctr, uint32_t k0, uint32_t k1) {
  uint32_t* x = ctr.w;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;  // the golden ratio and sqrt(3) - 1 in 32 bits: Philox's key bumps
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    const uint32_t y[4] = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0, static_cast<uint32_t>(p1),
                           static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1, static_cast<uint32_t>(p0)};
    for (int i = 0; i < 4; ++i) x[i] = y[i];
  }
  return ctr;
}

// oneDNN's random word number `counter`: word counter % 4 of the block whose counter is
// {c, c + 1, c + 2, c + 3}, c = counter & ~3, under the key {seed, seed}.
constexpr uint32_t philox_word(uint32_t counter, uint32_t seed) {
  const uint32_t c = counter & ~uint32_t{3};
  return philox4x32_10({{c, c + 1, c + 2, c + 3}}, seed, seed).w[counter & 3];
}

constexpr bool stochastic_rounding_applies(data_type dt) {
  return dt == data_type::bf16 || dt == data_type::f16 || dt == data_type::f8_e5m2 ||
         dt == data_type::f8_e4m3;
}

namespace stochastic_internal {

struct float_format {
  int digits;          // significand bits, the implicit one included
  float max;           // largest finite value
  float min_normal;    // smallest positive normal value
};

constexpr float_format format_of(data_type dt) {
  switch (dt) {
    case data_type::bf16: return {8, std::bit_cast<float>(0x7f7f0000u), 0x1p-126f};
    case data_type::f16: return {11, 65504.f, 0x1p-14f};
    case data_type::f8_e5m2: return {3, 57344.f, 0x1p-14f};
    default: return {4, 448.f, 0x1p-6f};  // f8_e4m3
  }
}

}  // namespace stochastic_internal

// Precondition: stochastic_rounding_applies(dst). `index` is the element's logical index
// (row-major over the dims); only its low 32 bits count, as in oneDNN.
inline float stochastic_round(float x, int64_t index, uint32_t seed, data_type dst) {
  if (std::isnan(x)) return x;
  const stochastic_internal::float_format f = stochastic_internal::format_of(dst);
  const uint32_t i = static_cast<uint32_t>(index);
  // Two-byte types take 8 random bits per element (four per Philox word), one-byte types 16
  // (two per word); the bias keeps the low bits of those that fall below the type's precision.
  const uint32_t bits = f.digits > 4 ? (philox_word(i >> 2, seed) >> ((i & 3) * 8)) & 0xffu
                                     : (philox_word(i >> 1, seed) >> ((i & 1) * 16)) & 0xffffu;
  const uint32_t kept = ~uint32_t{0} << (24 - f.digits);
  float r = std::bit_cast<float>((std::bit_cast<uint32_t>(x) + (bits & ~kept)) & kept);
  r = std::min(std::max(r, -f.max), f.max);
  if (r > 0 && r < f.min_normal) r = 0;
  if (r < 0 && r > -f.min_normal) r = 0;
  return r;
}

}  // namespace tessera

#endif  // TESSERA_CORE_STOCHASTIC_ROUND_H_
