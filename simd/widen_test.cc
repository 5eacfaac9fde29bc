// widen_to_f64 and narrow_to_f32 under every ISA the machine has: widening is exact and keeps
// lane order; narrowing rounds each lane once to nearest (as static_cast<float>), specials kept.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/internal/op_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

using widen_fn = void (*)(const float*, double*, const double*, float*, int64_t);

std::vector<widen_fn> every_arch() {
#if defined(__aarch64__)
  std::vector<widen_fn> result = {&internal::widen_narrow_kernel<xsimd::neon64>};
#else
  std::vector<widen_fn> result = {&internal::widen_narrow_kernel<xsimd::sse4_2>};
  if (detected_isa() >= isa::avx2) result.push_back(&internal::widen_narrow_kernel<xsimd::avx2>);
  if (detected_isa() >= isa::avx512bw) {
    result.push_back(&internal::widen_narrow_kernel<xsimd::avx512bw>);
  }
#endif
  return result;
}

TEST(Widen, ExactInLaneOrderAndNarrowRoundsOnceOnEveryIsa) {
  constexpr int kN = 64 * 16;
  std::vector<float> src(kN);
  std::vector<double> wide2(kN);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (int i = 0; i < kN; ++i) {
    src[i] = static_cast<float>(u(rng)) * (i % 7 == 0 ? 1e-40f : 1.f);
    wide2[i] = u(rng) * (i % 5 == 0 ? 1e-300 : i % 5 == 1 ? 1e300 : 1.0);
  }
  const float inf = std::numeric_limits<float>::infinity();
  src[1] = -inf;
  src[2] = std::numeric_limits<float>::quiet_NaN();
  src[3] = -0.f;
  wide2[3] = std::numeric_limits<double>::quiet_NaN();
  wide2[4] = 0x1.000001p0;  // halfway: rounds to even
  for (widen_fn f : every_arch()) {
    std::vector<double> wide(kN);
    std::vector<float> back(kN);
    f(src.data(), wide.data(), wide2.data(), back.data(), kN);
    for (int i = 0; i < kN; ++i) {
      const double want = src[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(wide[i])) << i;
      } else {
        EXPECT_EQ(wide[i], want) << i;
        EXPECT_EQ(std::signbit(wide[i]), std::signbit(want)) << i;
      }
      const float narrowed = static_cast<float>(wide2[i]);
      if (std::isnan(narrowed)) {
        EXPECT_TRUE(std::isnan(back[i])) << i;
      } else {
        EXPECT_EQ(back[i], narrowed) << i;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::simd
