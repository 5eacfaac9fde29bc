// fp_flags: clearing leaves neither flag set; a tiny product raises underflow; on x86 an
// arithmetic operation on a denormal raises denormal_operand.
#include "tessera/simd/fp_flags.h"

#include <limits>

#include "gtest/gtest.h"

namespace tessera::simd {
namespace {

// volatile: the operations happen at run time, not folded by the compiler.
float multiply(float a, float b) {
  volatile float x = a;
  volatile float y = b;
  return x * y;
}

TEST(FpFlags, ClearedFlagsReadFalse) {
  multiply(1e-30f, 1e-30f);
  clear_fp_flags();
  const fp_flags flags = read_fp_flags();
  EXPECT_FALSE(flags.underflow);
  EXPECT_FALSE(flags.denormal_operand);
}

TEST(FpFlags, NormalArithmeticRaisesNothing) {
  clear_fp_flags();
  EXPECT_EQ(multiply(3.f, 0.5f), 1.5f);
  const fp_flags flags = read_fp_flags();
  EXPECT_FALSE(flags.underflow);
  EXPECT_FALSE(flags.denormal_operand);
}

TEST(FpFlags, TinyProductRaisesUnderflow) {
  clear_fp_flags();
  EXPECT_EQ(multiply(1e-30f, 1e-30f), 0.f);
  EXPECT_TRUE(read_fp_flags().underflow);
}

#if defined(__SSE__)
TEST(FpFlags, DenormalOperandIsSeenOnX86) {
  clear_fp_flags();
  EXPECT_EQ(multiply(std::numeric_limits<float>::denorm_min(), 2.f),
            2 * std::numeric_limits<float>::denorm_min());
  EXPECT_TRUE(read_fp_flags().denormal_operand);
}
#endif

}  // namespace
}  // namespace tessera::simd
