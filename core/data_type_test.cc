#include "tessera/core/data_type.h"

#include "gtest/gtest.h"

namespace tessera {
namespace {

static_assert(FloatingElement<bf16> && FloatingElement<f8_e4m3> && FloatingElement<double>);
static_assert(IntegralElement<int32_t> && !QuantizedElement<int32_t>);
static_assert(QuantizedElement<int8_t> && QuantizedElement<uint8_t>);
static_assert(!Element<int16_t> && !Element<long double>);
static_assert(std::is_same_v<element_t<data_type::f16>, f16>);

TEST(DataType, NamesRoundTrip) {
  for (data_type dt : kAllDataTypes) {
    auto parsed = parse_data_type(name_of(dt));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, dt);
  }
}

TEST(DataType, UnknownNameIsNamedInError) {
  auto parsed = parse_data_type("f12");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(std::string(parsed.status().message()).find("'f12'"), std::string::npos);
}

TEST(DataType, BitsMatchElementTypes) {
  for (data_type dt : kAllDataTypes) {
    int bits = visit_data_type(dt, [](auto v) { return element_traits<decltype(v)>::bits; });
    EXPECT_EQ(bits, bits_of(dt)) << name_of(dt);
    data_type back = visit_data_type(dt, [](auto v) { return element_traits<decltype(v)>::type; });
    EXPECT_EQ(back, dt);
  }
}

}  // namespace
}  // namespace tessera
