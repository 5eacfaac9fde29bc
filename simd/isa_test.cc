#include "tessera/simd/isa.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/internal/example_dispatch.h"
#include "tessera/simd/internal/isa_env.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::simd {
namespace {

TEST(Isa, NamesRoundTripAndOrder) {
  for (isa i : kAllIsas) {
    absl::StatusOr<isa> parsed = parse_isa(name_of(i));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, i);
  }
  EXPECT_EQ(name_of(isa::sse4_2), "sse4_2");
  EXPECT_EQ(name_of(isa::avx2), "avx2");
  EXPECT_EQ(name_of(isa::avx512bw), "avx512bw");
  EXPECT_LT(isa::sse4_2, isa::avx2);
  EXPECT_LT(isa::avx2, isa::avx512bw);
  EXPECT_EQ(*parse_isa("AVX512BW"), isa::avx512bw);
}

TEST(Isa, ParseRejectsUnknownNamesNamingThem) {
  absl::StatusOr<isa> bad = parse_isa("avx512_core");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("avx512_core"), std::string::npos);
  EXPECT_FALSE(parse_isa("").ok());
}

// The machine this project targets has AVX-512 BW (and BF16): the dispatcher must pick it.
TEST(Isa, DetectsAvx512bwOnThisMachine) {
  EXPECT_EQ(detected_isa(), isa::avx512bw);
  EXPECT_EQ(max_isa(), isa::avx512bw);
  EXPECT_EQ(cpu_isas(), (std::vector<isa>{isa::sse4_2, isa::avx2, isa::avx512bw}));
  EXPECT_TRUE(cpu_has_avx512_bf16());
}

void plain_sse() {}
void plain_avx2() {}
void plain_avx512() {}
void native_bf16() {}

TEST(Isa, KernelTablesTakeTheNativeBf16InstantiationOnThisMachine) {
  // TESSERA_NATIVE_BF16 unset: an AVX512-BF16 CPU gets the avx512bw_bf16 instantiation
  // (native_bf16_env_test checks the other setting).
  ASSERT_TRUE(use_native_bf16());
  const kernel_table<void()> table("probe", {&plain_sse, &plain_avx2, &plain_avx512},
                                   &native_bf16);
  EXPECT_EQ(table.select(isa::avx512bw).fn, &native_bf16);
  EXPECT_EQ(table.select(isa::avx2).fn, &plain_avx2);
}

TEST(Isa, ApiCapAndScopedOverride) {
  ASSERT_EQ(max_isa(), isa::avx512bw);
  {
    scoped_max_isa cap(isa::sse4_2);
    EXPECT_EQ(max_isa(), isa::sse4_2);
    {
      scoped_max_isa inner(isa::avx2);
      EXPECT_EQ(max_isa(), isa::avx2);
    }
    EXPECT_EQ(max_isa(), isa::sse4_2);
  }
  EXPECT_EQ(max_isa(), isa::avx512bw);
  ASSERT_TRUE(set_max_isa(isa::avx2).ok());
  EXPECT_EQ(max_isa(), isa::avx2);
  ASSERT_TRUE(set_max_isa(isa::avx512bw).ok());
  EXPECT_EQ(max_isa(), isa::avx512bw);
}

TEST(Isa, SetMaxIsaRejectsValuesOutsideTheEnum) {
  absl::Status s = set_max_isa(static_cast<isa>(7));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("7"), std::string::npos);
  EXPECT_EQ(max_isa(), isa::avx512bw);
}

TEST(IsaEnv, ParsesNamesCaseInsensitively) {
  std::string warning;
  EXPECT_EQ(internal::isa_cap_from_env_value("sse4_2", &warning), isa::sse4_2);
  EXPECT_EQ(internal::isa_cap_from_env_value("AVX2", &warning), isa::avx2);
  EXPECT_EQ(internal::isa_cap_from_env_value("Avx512BW", &warning), isa::avx512bw);
  EXPECT_EQ(warning, "");
}

TEST(IsaEnv, EmptyAndAllMeanNoCap) {
  std::string warning;
  EXPECT_EQ(internal::isa_cap_from_env_value("", &warning), absl::nullopt);
  EXPECT_EQ(internal::isa_cap_from_env_value("ALL", &warning), absl::nullopt);
  EXPECT_EQ(warning, "");
}

TEST(IsaEnv, BadValueIsIgnoredWithAWarningNamingIt) {
  std::string warning;
  EXPECT_EQ(internal::isa_cap_from_env_value("avx512_core_amx", &warning), absl::nullopt);
  EXPECT_NE(warning.find("avx512_core_amx"), std::string::npos);
  EXPECT_NE(warning.find("TESSERA_MAX_ISA"), std::string::npos);
}

// The example kernel under every ISA the CPU has, every length 0..2*16+1 (tails included), with
// guard elements after the end that must stay untouched.
TEST(KernelTable, ExampleKernelUnderEachIsa) {
  constexpr int kGuard = 8;
  for (isa target : cpu_isas()) {
    scoped_max_isa force(target);
    auto k = internal::scale_table().select();
    EXPECT_EQ(k.chosen, target);
    EXPECT_EQ(k.impl_name(), "xsimd:" + std::string(name_of(target)) + ":scale_f32");
    for (int n = 0; n <= 33; ++n) {
      std::vector<float> src(n + kGuard), dst(n + kGuard, -7.f);
      for (int i = 0; i < n + kGuard; ++i) src[i] = 0.25f * i - 3.f;
      k.fn(src.data(), dst.data(), n, 3.f);
      for (int i = 0; i < n; ++i) EXPECT_EQ(dst[i], src[i] * 3.f) << name_of(target) << " n=" << n;
      for (int i = n; i < n + kGuard; ++i) EXPECT_EQ(dst[i], -7.f) << "wrote past the end";
    }
  }
}

TEST(KernelTable, SelectCapsAtTheCpu) {
  auto k = internal::scale_table().select(isa::avx512bw);
  EXPECT_EQ(k.chosen, detected_isa());
  EXPECT_EQ(internal::scale_table().name(), "scale_f32");
}

}  // namespace
}  // namespace tessera::simd
