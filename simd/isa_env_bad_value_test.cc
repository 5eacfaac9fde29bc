// Run with TESSERA_MAX_ISA=avx9000 in the environment (see BUILD.bazel): ignored, warned once.
#include "gtest/gtest.h"
#include "tessera/simd/isa.h"

namespace tessera::simd {
namespace {

TEST(IsaEnvBadValue, IsIgnoredWithOneWarning) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(max_isa(), detected_isa());
  EXPECT_EQ(environment_isa_cap(), detected_isa());
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("avx9000"), std::string::npos) << err;
  testing::internal::CaptureStderr();
  EXPECT_EQ(max_isa(), detected_isa());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace tessera::simd
