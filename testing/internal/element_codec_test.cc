#include "tessera/testing/internal/element_codec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace tessera::testing::internal {
namespace {

// The compiler's own half type is an independent reference for f16 (and, through the top byte,
// for f8_e5m2, which is f16 without its low 8 bits).
double half_value(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<double>(h);
}

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

TEST(ElementCodec, EveryF16AndBf16ValueDecodesLikeTheHardware) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    ASSERT_TRUE(same_value(read_element(data_type::f16, &bits), half_value(bits))) << b;
    const float f = std::bit_cast<float>(b << 16);
    ASSERT_TRUE(same_value(read_element(data_type::bf16, &bits), f)) << b;
  }
}

TEST(ElementCodec, EveryF8E5m2ValueIsTheTopByteOfAnF16) {
  for (uint32_t b = 0; b < 256; ++b) {
    const auto bits = static_cast<uint8_t>(b);
    ASSERT_TRUE(same_value(read_element(data_type::f8_e5m2, &bits),
                           half_value(static_cast<uint16_t>(b << 8))))
        << b;
  }
}

TEST(ElementCodec, F8E4m3KnownValues) {
  auto v = [](uint8_t bits) { return read_element(data_type::f8_e4m3, &bits); };
  EXPECT_EQ(v(0x38), 1.0);
  EXPECT_EQ(v(0x7e), 448.0);
  EXPECT_EQ(v(0xfe), -448.0);
  EXPECT_EQ(v(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(v(0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(v(0x78), 256.0);  // all-ones exponent still holds finite values
  EXPECT_TRUE(std::isnan(v(0x7f)));
  EXPECT_TRUE(std::isnan(v(0xff)));
  // Positive codes increase strictly up to the NaN.
  for (int b = 1; b < 0x7f; ++b) EXPECT_LT(v(b - 1), v(b)) << b;
}

TEST(ElementCodec, FloatsAndIntegersDecodeExactly) {
  for (float f : {0.f, -0.f, 1.f, -2.5f, 3.4028235e38f, 1e-45f, std::numeric_limits<float>::infinity()}) {
    EXPECT_EQ(read_element(data_type::f32, &f), f);
  }
  const double d = 0.1;
  EXPECT_EQ(read_element(data_type::f64, &d), 0.1);
  const int32_t i = -2147483647 - 1;
  EXPECT_EQ(read_element(data_type::s32, &i), -2147483648.0);
  const int8_t s = -128;
  EXPECT_EQ(read_element(data_type::s8, &s), -128);
  const uint8_t u = 255;
  EXPECT_EQ(read_element(data_type::u8, &u), 255);
}

TEST(ElementCodec, WritingADecodedValueGivesBackItsBits) {
  for (data_type dt : {data_type::f16, data_type::bf16}) {
    for (uint32_t b = 0; b < 65536; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const double x = read_element(dt, &bits);
      if (std::isnan(x)) continue;
      uint16_t out = 0;
      write_element(dt, &out, x);
      ASSERT_EQ(out, bits) << name_of(dt) << " " << b;
      ASSERT_TRUE(representable(dt, x));
    }
  }
  for (data_type dt : {data_type::f8_e5m2, data_type::f8_e4m3}) {
    for (uint32_t b = 0; b < 256; ++b) {
      const auto bits = static_cast<uint8_t>(b);
      const double x = read_element(dt, &bits);
      if (std::isnan(x)) continue;
      uint8_t out = 0;
      write_element(dt, &out, x);
      ASSERT_EQ(out, bits) << name_of(dt) << " " << b;
    }
  }
}

TEST(ElementCodec, WriteRoundsTowardZeroAndClamps) {
  uint16_t h = 0;
  write_element(data_type::f16, &h, 1.0 + std::ldexp(1.0, -10) * 0.99);
  EXPECT_EQ(read_element(data_type::f16, &h), 1.0);
  write_element(data_type::f16, &h, -1e9);
  EXPECT_EQ(read_element(data_type::f16, &h), -65504.0);
  uint8_t e4 = 0;
  write_element(data_type::f8_e4m3, &e4, std::numeric_limits<double>::infinity());
  EXPECT_EQ(read_element(data_type::f8_e4m3, &e4), 448.0);
  write_element(data_type::f8_e4m3, &e4, NAN);
  EXPECT_TRUE(std::isnan(read_element(data_type::f8_e4m3, &e4)));
  int8_t s = 0;
  write_element(data_type::s8, &s, 300);
  EXPECT_EQ(s, 127);
  write_element(data_type::s8, &s, -1.7);
  EXPECT_EQ(s, -1);
  write_element(data_type::s8, &s, NAN);
  EXPECT_EQ(s, 0);
  uint8_t u = 7;
  write_element(data_type::u8, &u, -5);
  EXPECT_EQ(u, 0);
}

TEST(ElementCodec, Representable) {
  EXPECT_TRUE(representable(data_type::f32, 0.5));
  EXPECT_FALSE(representable(data_type::f32, 0.1));
  EXPECT_TRUE(representable(data_type::f16, 65504));
  EXPECT_FALSE(representable(data_type::f16, 65505));
  EXPECT_TRUE(representable(data_type::f16, -std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(representable(data_type::f8_e4m3, std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(representable(data_type::s8, -128));
  EXPECT_FALSE(representable(data_type::s8, 128));
  EXPECT_FALSE(representable(data_type::u8, 0.5));
  EXPECT_FALSE(representable(data_type::s32, NAN));
}

TEST(ElementCodec, RangesAndNeighbours) {
  EXPECT_EQ(max_of(data_type::f16), 65504);
  EXPECT_EQ(max_of(data_type::f8_e5m2), 57344);
  EXPECT_EQ(max_of(data_type::f8_e4m3), 448);
  EXPECT_EQ(max_of(data_type::bf16), static_cast<double>(std::bit_cast<float>(0x7f7f0000u)));
  EXPECT_EQ(max_of(data_type::f32), std::numeric_limits<float>::max());
  EXPECT_EQ(lowest_of(data_type::s8), -128);
  EXPECT_EQ(min_denormal_of(data_type::f32), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(min_normal_of(data_type::f16), std::ldexp(1.0, -14));
  EXPECT_EQ(next_up(data_type::f16, 1.0), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(next_down(data_type::f16, 1.0), 1.0 - std::ldexp(1.0, -11));
  EXPECT_EQ(next_up(data_type::f32, 127.0), std::nextafter(127.f, 200.f));
  EXPECT_EQ(next_up(data_type::f16, 65504), std::numeric_limits<double>::infinity());
  EXPECT_EQ(next_up(data_type::f8_e4m3, 448), 448);
  EXPECT_EQ(next_up(data_type::f16, -std::ldexp(1.0, -24)), 0.0);
  EXPECT_EQ(next_up(data_type::s8, 127), 127);
  EXPECT_EQ(next_down(data_type::s8, 0), -1);
}

TEST(ElementCodec, UlpDistance) {
  const float one = 1.f, next = std::nextafter(1.f, 2.f), zero = 0.f, neg_zero = -0.f;
  const float tiny = std::numeric_limits<float>::denorm_min(), neg_tiny = -tiny;
  const float nan = NAN;
  EXPECT_EQ(ulp_distance(data_type::f32, &one, &next), 1);
  EXPECT_EQ(ulp_distance(data_type::f32, &zero, &neg_zero), 0);
  EXPECT_EQ(ulp_distance(data_type::f32, &tiny, &neg_tiny), 2);
  EXPECT_EQ(ulp_distance(data_type::f32, &nan, &one), -1);
}

}  // namespace
}  // namespace tessera::testing::internal
