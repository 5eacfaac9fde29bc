// TESSERA_NATIVE_BF16=0 as read from a real environment (the BUILD target sets it): kernel
// tables keep their plain avx512bw instantiations even on a CPU with AVX512-BF16, which is how
// the softmax tests run those kernels here.
#include "gtest/gtest.h"
#include "tessera/simd/isa.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::simd {
namespace {

void plain_sse() {}
void plain_avx2() {}
void plain_avx512() {}
void native_bf16() {}

TEST(NativeBf16Env, ZeroKeepsThePlainAvx512bwInstantiation) {
  EXPECT_FALSE(use_native_bf16());
  const kernel_table<void()> table("probe", {&plain_sse, &plain_avx2, &plain_avx512},
                                   &native_bf16);
  EXPECT_EQ(table.select(isa::avx512bw).fn,
            detected_isa() == isa::avx512bw ? &plain_avx512 : &plain_avx2);
}

}  // namespace
}  // namespace tessera::simd
