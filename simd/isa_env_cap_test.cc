// Run with TESSERA_MAX_ISA=Avx2 in the environment (see BUILD.bazel).
#include <string>

#include "gtest/gtest.h"
#include "tessera/simd/internal/example_dispatch.h"
#include "tessera/simd/isa.h"

namespace tessera::simd {
namespace {

TEST(IsaEnvCap, EnvironmentCapsTheDispatch) {
  EXPECT_EQ(environment_isa_cap(), isa::avx2);
  EXPECT_EQ(max_isa(), isa::avx2);
  EXPECT_EQ(internal::scale_table().select().impl_name(), "xsimd:avx2:scale_f32");
}

TEST(IsaEnvCap, ApiCanLowerButNotRaiseAboveTheEnvironment) {
  {
    scoped_max_isa lower(isa::sse4_2);
    EXPECT_EQ(max_isa(), isa::sse4_2);
  }
  {
    scoped_max_isa higher(isa::avx512bw);
    EXPECT_EQ(max_isa(), isa::avx2);
  }
  EXPECT_EQ(max_isa(), isa::avx2);
}

}  // namespace
}  // namespace tessera::simd
