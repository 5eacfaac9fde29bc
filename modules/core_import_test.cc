// Uses core/ only through `import tessera.core;`.
#include <string>

#include "gtest/gtest.h"
import tessera.core;

static_assert(tessera::FloatingElement<tessera::bf16>);
static_assert(tessera::QuantizedElement<unsigned char>);
static_assert(tessera::bits_of(tessera::data_type::f8_e5m2) == 8);

TEST(CoreModule, ParsesDataTypeNames) {
  auto dt = tessera::parse_data_type("bf16");
  ASSERT_TRUE(dt.ok());
  EXPECT_EQ(*dt, tessera::data_type::bf16);
  EXPECT_EQ(std::string(tessera::name_of(tessera::data_type::u8)), "u8");
}
