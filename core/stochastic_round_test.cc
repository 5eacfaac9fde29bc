// Stochastic rounding (stochastic_round.h): Philox4x32-10 against the known-answer vectors of
// its authors' Random123 library, then the rounding's properties on every type it applies to.
#include "tessera/core/stochastic_round.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "tessera/core/convert.h"

namespace tessera {
namespace {

TEST(Philox4x32x10, KnownAnswers) {
  struct kat {
    philox_block ctr;
    uint32_t k0, k1;
    philox_block want;
  };
  const kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const kat& k : kats) {
    const philox_block got = philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got.w[i], k.want.w[i]) << "word " << i;
  }
  // philox_word: word counter % 4 of the block of counter & ~3, key {seed, seed}.
  const philox_block b = philox4x32_10({{8, 9, 10, 11}}, 123, 123);
  for (uint32_t c = 8; c < 12; ++c) EXPECT_EQ(philox_word(c, 123), b.w[c - 8]);
}

constexpr data_type kTypes[] = {data_type::bf16, data_type::f16, data_type::f8_e5m2,
                                data_type::f8_e4m3};

float to_type_and_back(float x, data_type dt) {
  switch (dt) {
    case data_type::bf16: return to_f32(from_f32<bf16>(x));
    case data_type::f16: return to_f32(from_f32<f16>(x));
    case data_type::f8_e5m2: return to_f32(from_f32<f8_e5m2>(x));
    default: return to_f32(from_f32<f8_e4m3>(x));
  }
}

// The neighbours of x among the type's values: x truncated toward zero (in magnitude), and the
// next value away from zero.
struct neighbours {
  float toward_zero, away;
};
neighbours neighbours_of(float x, data_type dt) {
  const int digits = dt == data_type::bf16 ? 8 : dt == data_type::f16 ? 11 : dt == data_type::f8_e5m2 ? 3 : 4;
  const uint32_t keep = ~uint32_t{0} << (24 - digits);
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  return {std::bit_cast<float>(bits & keep), std::bit_cast<float>((bits & keep) + ~keep + 1)};
}

TEST(StochasticRound, ValuesOfTheTypeStayThemselves) {
  for (data_type dt : kTypes) {
    for (float x : {1.f, -1.5f, 0.25f, 3.f, -96.f, 0.f}) {
      for (int64_t i = 0; i < 64; ++i) {
        EXPECT_EQ(stochastic_round(x, i, 7, dt), x) << name_of(dt) << " x=" << x << " i=" << i;
      }
    }
  }
}

TEST(StochasticRound, ResultIsANeighbourAndBothOccur) {
  for (data_type dt : kTypes) {
    // Between 1 and the next value, near the upper one: the bias has fewer random bits than the
    // truncation clears (two-byte types 8 of 13 or 16, one-byte types 16 of 20 or 21), so only a
    // value this close to the next one can round up.
    const neighbours one = neighbours_of(1.f, dt);
    const float step = one.away - 1.f;
    const float x = 1.f + step * (1.f - 0x1p-9f);
    const neighbours n = neighbours_of(x, dt);
    int up = 0, down = 0;
    for (int64_t i = 0; i < 4096; ++i) {
      const float r = stochastic_round(x, i, 123, dt);
      EXPECT_TRUE(r == n.toward_zero || r == n.away) << name_of(dt) << " r=" << r;
      EXPECT_EQ(to_type_and_back(r, dt), r) << name_of(dt);  // a value of the type
      up += r == n.away;
      down += r == n.toward_zero;
      EXPECT_EQ(stochastic_round(-x, i, 123, dt), -r) << name_of(dt);  // symmetric in sign
    }
    EXPECT_GT(up, 0) << name_of(dt);
    EXPECT_GT(down, 0) << name_of(dt);
  }
}

TEST(StochasticRound, SameSeedAndIndexSameResultOtherSeedsDiffer) {
  const float x = 1.25f - 0x1p-12f;  // just below an f8_e5m2 value, where both results occur
  int differ = 0;
  for (int64_t i = 0; i < 256; ++i) {
    const float a = stochastic_round(x, i, 1, data_type::f8_e5m2);
    EXPECT_EQ(a, stochastic_round(x, i, 1, data_type::f8_e5m2));
    differ += a != stochastic_round(x, i, 2, data_type::f8_e5m2);
  }
  EXPECT_GT(differ, 0);
  // Only the index's low 32 bits count.
  EXPECT_EQ(stochastic_round(x, int64_t{5} + (int64_t{1} << 32), 1, data_type::f8_e5m2),
            stochastic_round(x, 5, 1, data_type::f8_e5m2));
}

TEST(StochasticRound, SaturatesFlushesAndKeepsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  struct limits {
    data_type dt;
    float max, below_normal;
  };
  for (const limits& l : {limits{data_type::bf16, std::bit_cast<float>(0x7f7f0000u), 0x1p-127f},
                          limits{data_type::f16, 65504.f, 0x1p-15f},
                          limits{data_type::f8_e5m2, 57344.f, 0x1p-15f},
                          limits{data_type::f8_e4m3, 448.f, 0x1p-7f}}) {
    for (int64_t i = 0; i < 16; ++i) {
      EXPECT_EQ(stochastic_round(inf, i, 9, l.dt), l.max) << name_of(l.dt);
      EXPECT_EQ(stochastic_round(-inf, i, 9, l.dt), -l.max) << name_of(l.dt);
      EXPECT_EQ(stochastic_round(std::numeric_limits<float>::max(), i, 9, l.dt), l.max) << name_of(l.dt);
      EXPECT_EQ(stochastic_round(l.below_normal, i, 9, l.dt), 0.f) << name_of(l.dt);
      EXPECT_EQ(stochastic_round(-l.below_normal, i, 9, l.dt), 0.f) << name_of(l.dt);
      EXPECT_TRUE(std::isnan(stochastic_round(std::nanf(""), i, 9, l.dt))) << name_of(l.dt);
    }
  }
  EXPECT_FALSE(stochastic_rounding_applies(data_type::f32));
  EXPECT_FALSE(stochastic_rounding_applies(data_type::s8));
  EXPECT_FALSE(stochastic_rounding_applies(data_type::f4_e2m1));
}

}  // namespace
}  // namespace tessera
