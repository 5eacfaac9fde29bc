#include "tessera/simd/isa.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <set>
#include <sstream>
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
#if defined(__aarch64__)
  EXPECT_EQ(name_of(isa::neon64), "neon64");
  EXPECT_EQ(*parse_isa("NEON64"), isa::neon64);
  // The x86 ISAs are named in the enum but are not this architecture's.
  EXPECT_EQ(name_of(isa::avx2), "invalid");
  absl::StatusOr<isa> x86 = parse_isa("avx2");
  ASSERT_FALSE(x86.ok());
  EXPECT_NE(std::string(x86.status().message()).find("neon64"), std::string::npos);
#else
  EXPECT_EQ(name_of(isa::sse4_2), "sse4_2");
  EXPECT_EQ(name_of(isa::avx2), "avx2");
  EXPECT_EQ(name_of(isa::avx512bw), "avx512bw");
  EXPECT_LT(isa::sse4_2, isa::avx2);
  EXPECT_LT(isa::avx2, isa::avx512bw);
  EXPECT_EQ(*parse_isa("AVX512BW"), isa::avx512bw);
#endif
}

TEST(Isa, ParseRejectsUnknownNamesNamingThem) {
  absl::StatusOr<isa> bad = parse_isa("avx512_core");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("avx512_core"), std::string::npos);
  EXPECT_FALSE(parse_isa("").ok());
}

#if defined(__aarch64__)
// Advanced SIMD is part of every aarch64 CPU: neon64 is the floor and the only ISA.
TEST(Isa, Aarch64HasNeon64Only) {
  EXPECT_EQ(detected_isa(), isa::neon64);
  EXPECT_EQ(max_isa(), isa::neon64);
  EXPECT_EQ(cpu_isas(), std::vector<isa>{isa::neon64});
  EXPECT_FALSE(cpu_has_avx512_bf16());
  EXPECT_FALSE(use_native_bf16());
}

void plain_neon() {}
void native_bf16() {}

TEST(Isa, KernelTablesHaveOneInstantiation) {
  const kernel_table<void()> table("probe", {&plain_neon}, &native_bf16);
  EXPECT_EQ(table.select(isa::neon64).fn, &plain_neon);
  EXPECT_EQ(table.select(isa::avx512bw).fn, &plain_neon);
  EXPECT_EQ(table.select(isa::avx512bw).chosen, isa::neon64);
}

TEST(Isa, ApiCapAcceptsNeon64AndRejectsX86Isas) {
  ASSERT_TRUE(set_max_isa(isa::neon64).ok());
  EXPECT_EQ(max_isa(), isa::neon64);
  absl::Status s = set_max_isa(isa::avx2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("neon64"), std::string::npos);
  EXPECT_EQ(max_isa(), isa::neon64);
  {
    scoped_max_isa cap(isa::neon64);
    EXPECT_EQ(max_isa(), isa::neon64);
  }
  EXPECT_EQ(max_isa(), isa::neon64);
}

TEST(IsaEnv, ParsesNeon64AndWarnsOnX86Names) {
  std::string warning;
  EXPECT_EQ(internal::isa_cap_from_env_value("Neon64", &warning), isa::neon64);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(internal::isa_cap_from_env_value("avx2", &warning), absl::nullopt);
  EXPECT_NE(warning.find("avx2"), std::string::npos);
  EXPECT_NE(warning.find("neon64"), std::string::npos);
}
#else
// An oracle independent of __builtin_cpu_supports: the CPU flags the Linux kernel reports (it
// drops a flag whose register state the OS does not save, as XGETBV would tell).
std::set<std::string> cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
  }
  return {};
}

bool has_all(const std::set<std::string>& flags, std::initializer_list<const char*> wanted) {
  for (const char* f : wanted) {
    if (!flags.count(f)) return false;
  }
  return true;
}

isa isa_from_cpuinfo() {
  const std::set<std::string> flags = cpuinfo_flags();
  const bool avx2 = has_all(flags, {"avx2", "fma", "f16c", "bmi2"});
  const bool avx512bw =
      has_all(flags, {"avx512f", "avx512cd", "avx512dq", "avx512bw", "avx512vl"});
  if (avx2 && avx512bw) return isa::avx512bw;
  return avx2 ? isa::avx2 : isa::sse4_2;
}

// Whatever the machine (the project's reference machine has AVX-512 with BF16; others have less),
// the dispatcher must pick the best ISA the CPU reports, and nothing above it.
TEST(Isa, DetectsWhatTheCpuReports) {
  if (cpuinfo_flags().empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line to compare with";
  const isa expected = isa_from_cpuinfo();
  std::printf("this CPU: %s%s\n", std::string(name_of(expected)).c_str(),
              cpuinfo_flags().count("avx512_bf16") ? " with AVX512-BF16" : "");
  EXPECT_EQ(detected_isa(), expected);
  EXPECT_EQ(max_isa(), expected);
  std::vector<isa> weaker_or_equal;
  for (isa i : kAllIsas) {
    if (i <= expected) weaker_or_equal.push_back(i);
  }
  EXPECT_EQ(cpu_isas(), weaker_or_equal);
  EXPECT_EQ(cpu_has_avx512_bf16(),
            expected == isa::avx512bw && cpuinfo_flags().count("avx512_bf16") == 1);
}

void plain_sse() {}
void plain_avx2() {}
void plain_avx512() {}
void native_bf16() {}

TEST(Isa, KernelTablesTakeTheNativeBf16InstantiationWhenTheCpuHasIt) {
  // TESSERA_NATIVE_BF16 unset: an AVX512-BF16 CPU gets the avx512bw_bf16 instantiation
  // (native_bf16_env_test checks the other setting); any other CPU its best plain one.
  EXPECT_EQ(use_native_bf16(), cpu_has_avx512_bf16());
  const kernel_table<void()> table("probe", {&plain_sse, &plain_avx2, &plain_avx512},
                                   &native_bf16);
  void (*const best_plain[])() = {&plain_sse, &plain_avx2, &plain_avx512};
  EXPECT_EQ(table.select(isa::avx512bw).fn,
            cpu_has_avx512_bf16() ? &native_bf16 : best_plain[index_of(detected_isa())]);
  EXPECT_EQ(table.select(isa::sse4_2).fn, &plain_sse);
}

TEST(Isa, ApiCapAndScopedOverride) {
  const isa best = detected_isa();
  ASSERT_EQ(max_isa(), best);
  {
    scoped_max_isa cap(isa::sse4_2);
    EXPECT_EQ(max_isa(), isa::sse4_2);
    {
      scoped_max_isa inner(isa::avx2);
      EXPECT_EQ(max_isa(), std::min(isa::avx2, best));
    }
    EXPECT_EQ(max_isa(), isa::sse4_2);
  }
  EXPECT_EQ(max_isa(), best);
  ASSERT_TRUE(set_max_isa(isa::sse4_2).ok());
  EXPECT_EQ(max_isa(), isa::sse4_2);
  // A cap above the CPU is accepted and has no effect beyond it.
  ASSERT_TRUE(set_max_isa(isa::avx512bw).ok());
  EXPECT_EQ(max_isa(), best);
}

#endif

TEST(Isa, SetMaxIsaRejectsValuesOutsideTheEnum) {
  absl::Status s = set_max_isa(static_cast<isa>(7));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("7"), std::string::npos);
  EXPECT_EQ(max_isa(), detected_isa());
}

#if !defined(__aarch64__)

TEST(IsaEnv, ParsesNamesCaseInsensitively) {
  std::string warning;
  EXPECT_EQ(internal::isa_cap_from_env_value("sse4_2", &warning), isa::sse4_2);
  EXPECT_EQ(internal::isa_cap_from_env_value("AVX2", &warning), isa::avx2);
  EXPECT_EQ(internal::isa_cap_from_env_value("Avx512BW", &warning), isa::avx512bw);
  EXPECT_EQ(warning, "");
}

#endif

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

#if !defined(__aarch64__)
TEST(KernelTable, SelectCapsAtTheCpu) {
  auto k = internal::scale_table().select(isa::avx512bw);
  EXPECT_EQ(k.chosen, detected_isa());
  EXPECT_EQ(internal::scale_table().name(), "scale_f32");
}
#endif

}  // namespace
}  // namespace tessera::simd
