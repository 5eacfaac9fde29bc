// The low-precision conversions, exhaustively over every code, against independent oracles:
// std::nearbyint for s4/u4, a brute-force nearest-value search over the decoded codes for the f4
// types (the definition oneDNN gives), and f32's exponent field for e8m0.
#include "tessera/core/low_precision.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

static_assert(low_precision_from_f32(data_type::s4, -3.5f) == 0xC);
static_assert(low_precision_to_f32(data_type::s4, 0x8) == -8.f);
static_assert(low_precision_from_f32(data_type::f4_e2m1, 5.f) == 0x6);  // tie to even: 4
static_assert(low_precision_to_f32(data_type::e8m0, 127) == 1.f);

TEST(LowPrecision, NamesAndBits) {
  for (data_type dt : kLowPrecisionDataTypes) {
    auto parsed = parse_data_type(name_of(dt));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, dt);
    EXPECT_TRUE(is_low_precision(dt));
    EXPECT_EQ(bits_of(dt), dt == data_type::e8m0 ? 8 : 4) << name_of(dt);
  }
  for (data_type dt : kAllDataTypes) EXPECT_FALSE(is_low_precision(dt)) << name_of(dt);
  EXPECT_TRUE(is_integral(data_type::s4) && is_integral(data_type::u4));
  EXPECT_TRUE(is_floating(data_type::f4_e2m1) && is_floating(data_type::e8m0));
}

int code_count(data_type dt) { return dt == data_type::e8m0 ? 256 : 16; }

// Every code decodes to a value that encodes back to the same code (f4: +-0 both kept; e8m0:
// code 0 decodes to 0, which encodes to 0).
TEST(LowPrecision, EveryCodeRoundTrips) {
  for (data_type dt : kLowPrecisionDataTypes) {
    for (int c = 0; c < code_count(dt); ++c) {
      const float v = low_precision_to_f32(dt, static_cast<uint8_t>(c));
      EXPECT_EQ(low_precision_from_f32(dt, v), c) << name_of(dt) << " code " << c << " value " << v;
      EXPECT_EQ(low_precision_from_f64(dt, v), c) << name_of(dt) << " code " << c;
    }
  }
}

TEST(LowPrecision, IntegerValues) {
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(low_precision_to_f32(data_type::u4, c), static_cast<float>(c));
    EXPECT_EQ(low_precision_to_f32(data_type::s4, c), static_cast<float>(c < 8 ? c : c - 16));
  }
}

// Inputs that hit every rounding decision of a type whose values are `values`: each value, the
// midpoints of neighbours and one f32 ulp either side of both, beyond the range, and random f32s.
std::vector<float> probe_inputs(const std::vector<float>& values) {
  std::vector<float> in = {0.f, -0.f, kInf, -kInf, kNaN, -kNaN, 1e30f, -1e30f, 1e-40f, -1e-40f};
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      for (float x : {values[i], (values[i] + values[j]) / 2}) {
        in.push_back(x);
        in.push_back(std::nextafter(x, kInf));
        in.push_back(std::nextafter(x, -kInf));
      }
    }
  }
  std::mt19937 rng(51);
  for (int i = 0; i < 200000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    in.push_back(f);
    in.push_back(std::ldexp(static_cast<float>(rng() % 4096) / 256.f, 0) - 8.f);  // [-8, 8)
  }
  return in;
}

std::vector<float> decoded(data_type dt) {
  std::vector<float> v;
  for (int c = 0; c < code_count(dt); ++c) v.push_back(low_precision_to_f32(dt, c));
  return v;
}

TEST(LowPrecision, IntegersRoundHalfEvenAndSaturate) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (float x : probe_inputs(decoded(data_type::s4))) {
    for (data_type dt : {data_type::s4, data_type::u4}) {
      const float lo = dt == data_type::s4 ? -8.f : 0.f, hi = dt == data_type::s4 ? 7.f : 15.f;
      float want = std::isnan(x) ? (dt == data_type::s4 ? 7.f : 0.f)
                                 : std::fmin(std::fmax(std::nearbyint(x), lo), hi);
      EXPECT_EQ(low_precision_to_f32(dt, low_precision_from_f32(dt, x)), want)
          << name_of(dt) << " x=" << x;
    }
  }
}

// The nearest code by brute force over the decoded codes: smallest f32 |value - x| (oneDNN's
// definition), ties to the even code, the sign of x; Inf and NaN as the type defines them.
uint8_t nearest_by_search(data_type dt, float x) {
  if (std::isnan(x) || std::isinf(x)) return dt == data_type::f4_e2m1 ? 0x0 : 0x7;
  const float a = std::fabs(x);
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    const float d = std::fabs(low_precision_to_f32(dt, c) - a);
    const float best_d = std::fabs(low_precision_to_f32(dt, best) - a);
    if (d < best_d || (d == best_d && c % 2 == 0)) best = c;
  }
  return static_cast<uint8_t>(best | (std::signbit(x) ? 0x8 : 0));
}

TEST(LowPrecision, F4RoundsToNearestEvenAndSaturates) {
  for (data_type dt : {data_type::f4_e2m1, data_type::f4_e3m0}) {
    for (float x : probe_inputs(decoded(dt))) {
      EXPECT_EQ(low_precision_from_f32(dt, x), nearest_by_search(dt, x)) << name_of(dt) << " x=" << x;
    }
  }
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e2m1, 100.f), 0x7);    // 6: saturation
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e2m1, -0.1f), 0x8);   // -0
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e2m1, 0.25f), 0x0);   // tie to even: 0
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e2m1, 0.75f), 0x2);   // tie to even: 1
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e3m0, 3.f), 0x4);     // tie to even: 2
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e3m0, -kInf), 0x7);   // +16
  // Far beyond the range the f32 distances tie and the largest even code wins (oneDNN).
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e2m1, 1e30f), 0x6);   // 4
  EXPECT_EQ(low_precision_from_f32(data_type::f4_e3m0, -1e30f), 0xE);  // -8
}

TEST(LowPrecision, F64RoundsOnce) {
  // Just above a midpoint: f32 would round to the midpoint and tie to even.
  EXPECT_EQ(low_precision_from_f64(data_type::s4, 0.5 + 0x1p-40), 1);
  EXPECT_EQ(low_precision_from_f32(data_type::s4, static_cast<float>(0.5 + 0x1p-40)), 0);
  EXPECT_EQ(low_precision_from_f64(data_type::f4_e2m1, 5.0 + 0x1p-40), 0x7);
}

TEST(LowPrecision, E8m0KeepsTheExponentField) {
  for (float x : probe_inputs(decoded(data_type::s4))) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    EXPECT_EQ(low_precision_from_f32(data_type::e8m0, x), (bits >> 23) & 0xFF) << "x=" << x;
  }
  for (int c = 0; c < 255; ++c) {
    EXPECT_EQ(std::bit_cast<uint32_t>(low_precision_to_f32(data_type::e8m0, c)),
              static_cast<uint32_t>(c) << 23);
  }
  EXPECT_EQ(std::bit_cast<uint32_t>(low_precision_to_f32(data_type::e8m0, 0xFF)), 0xFFC00000u);
}

TEST(LowPrecision, NibbleOrder) {
  uint8_t buf[3] = {0xAA, 0xAA, 0xAA};
  store_code(data_type::u4, buf, 0, 0x1);
  store_code(data_type::u4, buf, 3, 0x2);
  store_code(data_type::s4, buf, 4, 0xF);
  EXPECT_EQ(buf[0], 0xA1);  // element 0: low nibble
  EXPECT_EQ(buf[1], 0x2A);  // element 3: high nibble of byte 1
  EXPECT_EQ(buf[2], 0xAF);
  EXPECT_EQ(load_code(data_type::u4, buf, 0), 0x1);
  EXPECT_EQ(load_code(data_type::u4, buf, 1), 0xA);
  EXPECT_EQ(load_code(data_type::u4, buf, 3), 0x2);
  EXPECT_EQ(low_precision_to_f32(data_type::s4, load_code(data_type::s4, buf, 4)), -1.f);
  store_code(data_type::e8m0, buf, 1, 0x7F);
  EXPECT_EQ(load_code(data_type::e8m0, buf, 1), 0x7F);
}

}  // namespace
}  // namespace tessera
