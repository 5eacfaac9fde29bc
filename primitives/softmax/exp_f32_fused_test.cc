// simd::exp_nonpositive_fused_f32 (the exp of the softmax forward kernels) on every ISA the
// machine has: error against double precision over a dense sweep of its whole range [-110, 0]
// (normal and denormal results), NaN, and every length.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/internal/math_probe.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

struct arch_exp {
  std::string name;
  void (*exp)(const float*, float*, int64_t);
};

std::vector<arch_exp> every_arch() {
  std::vector<arch_exp> v = {{"sse4_2", &exp_nonpositive_fused_array<xsimd::sse4_2>}};
  if (simd::detected_isa() >= simd::isa::avx2) v.push_back({"avx2", &exp_nonpositive_fused_array<xsimd::avx2>});
  if (simd::detected_isa() >= simd::isa::avx512bw) {
    v.push_back({"avx512bw", &exp_nonpositive_fused_array<xsimd::avx512bw>});
  }
  return v;
}

// |got - want| in units of the f32 ulp at want (the denormal ulp below FLT_MIN).
double ulp_error(float got, double want) {
  const double a = std::fabs(want);
  int e;
  std::frexp(a < std::numeric_limits<float>::min() ? std::numeric_limits<float>::min() : a, &e);
  return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, e - 24);
}

TEST(ExpNonpositiveFusedF32, AccuracyOverTheWholeRangeOnEveryIsa) {
  // Every 73rd f32 of [-110, -1e-30], and 0 and -0: about 1.5 million points.
  std::vector<float> xs = {0.f, -0.f};
  for (uint32_t b = std::bit_cast<uint32_t>(1e-30f); b <= std::bit_cast<uint32_t>(110.f); b += 73) {
    xs.push_back(-std::bit_cast<float>(b));
  }
  xs.push_back(-110.f);
  for (const arch_exp& a : every_arch()) {
    std::vector<float> y(xs.size());
    a.exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    double worst_normal = 0, worst_denormal = 0;
    float at = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = std::exp(static_cast<double>(xs[i]));
      const double err = ulp_error(y[i], want);
      if (want >= std::numeric_limits<float>::min()) {
        if (err > worst_normal) worst_normal = err, at = xs[i];
      } else {
        worst_denormal = std::max(worst_denormal, err);
      }
    }
    std::printf("exp_nonpositive_fused_f32 %s: max error %.3f ulp (normal results, at x=%a), %.3f ulp "
                "(denormal)\n", a.name.c_str(), worst_normal, at, worst_denormal);
    // The bounds //simd:math_test holds exp_f32 to.
    EXPECT_LE(worst_normal, 1.5) << a.name;
    EXPECT_LE(worst_denormal, 1.0) << a.name;
    EXPECT_EQ(y[0], 1.f) << a.name;
    EXPECT_EQ(y[1], 1.f) << a.name;
  }
}

TEST(ExpNonpositiveFusedF32, NanAndEveryLengthOnEveryIsa) {
  for (const arch_exp& a : every_arch()) {
    for (int n = 1; n <= 33; ++n) {
      std::vector<float> x(n), y(n);
      for (int i = 0; i < n; ++i) x[i] = -3.3f * static_cast<float>(i);
      x[n / 2] = std::numeric_limits<float>::quiet_NaN();
      a.exp(x.data(), y.data(), n);
      for (int i = 0; i < n; ++i) {
        if (i == n / 2) {
          EXPECT_TRUE(std::isnan(y[i])) << a.name << " n=" << n;
        } else {
          EXPECT_LE(ulp_error(y[i], std::exp(static_cast<double>(x[i]))), 1.5) << a.name << " n=" << n << " i=" << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::softmax_internal
