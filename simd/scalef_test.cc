// scalef on the build's default architecture and on sse2 (the portable loop) against x * 2^floor(n) computed in double and
// rounded once, over normal, denormal and overflowing results.
#include "tessera/simd/scalef.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/internal/op_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

// The default arch (vscalefps where the build has avx512) and the portable lane loop.
template <class Arch>
class ScalefTest : public ::testing::Test {};
#if defined(__SSE2__)
using Archs = ::testing::Types<xsimd::default_arch, xsimd::sse2>;
#else
using Archs = ::testing::Types<xsimd::default_arch>;
#endif
TYPED_TEST_SUITE(ScalefTest, Archs);

float expected(float x, float n) {
  return static_cast<float>(std::ldexp(static_cast<double>(x), static_cast<int>(std::floor(n))));
}

TYPED_TEST(ScalefTest, MatchesOneRoundingOfTheExactProduct) {
  using arch = TypeParam;
  using batch = xsimd::batch<float, arch>;
  const float xs[] = {1.f, -1.f, 0x1.fffffep0f, 0x1.800002p0f, 3.f, 0.f, -0.f, 0x1p-149f, 1e30f};
  const float ns[] = {0.f, 0.5f, -0.5f, 3.7f, -3.2f, -126.f, -127.f, -149.f, -150.f, -149.5f,
                      127.f, 128.f, 200.f, -200.f, 24.f, -24.9f};
  for (float xv : xs) {
    for (float nv : ns) {
      alignas(64) float out[batch::size];
      scalef<arch>(batch(xv), batch(nv)).store_aligned(out);
      for (std::size_t i = 0; i < batch::size; ++i) {
        const float want = expected(xv, nv);
        ASSERT_EQ(std::signbit(out[i]), std::signbit(want)) << xv << " " << nv;
        ASSERT_EQ(out[i], want) << xv << " " << nv;
      }
    }
  }
}

TYPED_TEST(ScalefTest, EachLaneUsesItsOwnExponent) {
  using arch = TypeParam;
  using batch = xsimd::batch<float, arch>;
  alignas(64) float x[batch::size];
  alignas(64) float n[batch::size];
  for (std::size_t i = 0; i < batch::size; ++i) {
    x[i] = 1.25f + static_cast<float>(i);
    n[i] = static_cast<float>(i) - 4.5f;
  }
  alignas(64) float out[batch::size];
  scalef<arch>(batch::load_aligned(x), batch::load_aligned(n)).store_aligned(out);
  for (std::size_t i = 0; i < batch::size; ++i) EXPECT_EQ(out[i], expected(x[i], n[i])) << i;
}

using scalef_fn = void (*)(const float*, const float*, float*, int64_t);

std::vector<scalef_fn> every_arch() {
#if defined(__aarch64__)
  std::vector<scalef_fn> result = {&internal::scalef_kernel<xsimd::neon64>};
#else
  std::vector<scalef_fn> result = {&internal::scalef_kernel<xsimd::sse4_2>};
  if (detected_isa() >= isa::avx2) result.push_back(&internal::scalef_kernel<xsimd::avx2>);
  if (detected_isa() >= isa::avx512bw) result.push_back(&internal::scalef_kernel<xsimd::avx512bw>);
#endif
  return result;
}

TEST(ScalefEveryIsa, MatchesOneRoundingOfTheExactProduct) {
  std::vector<float> x, e;
  for (int i = 0; i < 64 * 64; ++i) {
    x.push_back((i % 2 ? -1.f : 1.f) * (1.f + static_cast<float>(i % 97) * 0x1.3p-7f));
    e.push_back(static_cast<float>(i % 331) * 0.97f - 170.f);
  }
  for (scalef_fn f : every_arch()) {
    std::vector<float> out(x.size());
    f(x.data(), e.data(), out.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], expected(x[i], e[i])) << i;
  }
}

TEST(ScalefEveryIsa, NanExponentGivesNan) {
  std::vector<float> x(16, 1.5f), e(16, std::nanf(""));
  for (scalef_fn f : every_arch()) {
    std::vector<float> out(x.size());
    f(x.data(), e.data(), out.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(std::isnan(out[i])) << i;
  }
}

using scalef_f64_fn = void (*)(const double*, const double*, double*, int64_t);

std::vector<scalef_f64_fn> every_arch_f64() {
#if defined(__aarch64__)
  std::vector<scalef_f64_fn> result = {&internal::scalef_f64_kernel<xsimd::neon64>};
#else
  std::vector<scalef_f64_fn> result = {&internal::scalef_f64_kernel<xsimd::sse4_2>};
  if (detected_isa() >= isa::avx2) result.push_back(&internal::scalef_f64_kernel<xsimd::avx2>);
  if (detected_isa() >= isa::avx512bw) result.push_back(&internal::scalef_f64_kernel<xsimd::avx512bw>);
#endif
  return result;
}

// f64: normal, denormal (one rounding: x has bits below the denormal ulp), overflowing and zero
// results, and a NaN exponent.
TEST(ScalefEveryIsa, F64MatchesOneRoundingOfTheExactProduct) {
  std::vector<double> x, e;
  for (int i = 0; i < 64 * 64; ++i) {
    x.push_back((i % 2 ? -1.0 : 1.0) * (1.0 + static_cast<double>(i % 97) * 0x1.3000000001p-7));
    e.push_back(static_cast<double>(i % 331) * 6.71 - 1100.0);
  }
  x.push_back(1.5);
  e.push_back(std::nan(""));
  while (x.size() % 8 != 0) x.push_back(1.0), e.push_back(-1074.5);
  for (scalef_f64_fn f : every_arch_f64()) {
    std::vector<double> out(x.size());
    f(x.data(), e.data(), out.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(e[i])) {
        ASSERT_TRUE(std::isnan(out[i])) << i;
        continue;
      }
      ASSERT_EQ(out[i], std::ldexp(x[i], static_cast<int>(std::floor(e[i])))) << i;
    }
  }
}

}  // namespace
}  // namespace tessera::simd
