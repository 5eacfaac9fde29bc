// exp, log, reduce_max and reduce_sum under every ISA the machine has: accuracy against double
// precision over a dense sweep of f32 inputs, special values, and every tail length; and tail.h's
// partial loads and stores.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/internal/math_kernels.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/exp_accuracy.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

struct arch_kernels {
  std::string name;
  void (*exp)(const float*, float*, int64_t);
  void (*log)(const float*, float*, int64_t);
  float (*max)(const float*, int64_t);
  float (*sum)(const float*, int64_t);
  int width;  // f32 lanes per batch
  int (*tail)(internal::tail_lanes, const void*, int, void*, void*);
};

template <class Arch>
arch_kernels kernels_of(const char* name) {
  return {name, &internal::exp_kernel<Arch>, &internal::log_kernel<Arch>,
          &internal::max_kernel<Arch>, &internal::sum_kernel<Arch>,
          f32_lanes<Arch>, &internal::tail_kernel<Arch>};
}

std::vector<arch_kernels> every_arch() {
#if defined(__aarch64__)
  std::vector<arch_kernels> result = {kernels_of<xsimd::neon64>("neon64")};
#else
  std::vector<arch_kernels> result = {kernels_of<xsimd::sse4_2>("sse4_2")};
  if (detected_isa() >= isa::avx2) result.push_back(kernels_of<xsimd::avx2>("avx2"));
  if (detected_isa() >= isa::avx512bw) result.push_back(kernels_of<xsimd::avx512bw>("avx512bw"));
#endif
  return result;
}

using ::tessera::testing::exp_errors;
using ::tessera::testing::f32_sweep;
using ::tessera::testing::tally_exp_errors;
using ::tessera::testing::ulp_error;
using ::tessera::testing::worst_exp_errors;

TEST(Tail, PartialLoadsAndStoresTouchOnlyTheirLanesOnEveryIsa) {
  // Every lane type and count 0..W: the src lanes end where a page with no access begins (a
  // read past them faults), the loaded lanes past count are 0, and the partial store leaves
  // the bytes past its lanes as they were.
  const long page = sysconf(_SC_PAGESIZE);
  void* map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(map);
  for (long i = 0; i < page; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
  ASSERT_EQ(mprotect(bytes + page, page, PROT_NONE), 0);
  using internal::tail_lanes;
  const std::pair<tail_lanes, int> kinds[] = {{tail_lanes::f32, 4}, {tail_lanes::f64, 8},
                                              {tail_lanes::i32, 4}, {tail_lanes::i64, 8},
                                              {tail_lanes::i16, 2}, {tail_lanes::u8, 1}};
  for (const arch_kernels& k : every_arch()) {
    for (auto [kind, size] : kinds) {
      const int width = k.width * 4 / size;
      for (int count = 0; count <= width; ++count) {
        const unsigned char* src = bytes + page - count * size;
        alignas(64) unsigned char full[64], partial[64];
        std::memset(full, 0xA5, sizeof full);
        std::memset(partial, 0xA5, sizeof partial);
        ASSERT_EQ(k.tail(kind, src, count, full, partial), width) << k.name;
        for (int b = 0; b < 64; ++b) {  // past the batch (b >= width * size): untouched
          const bool lane = b < count * size, in_batch = b < width * size;
          const unsigned char want_full = lane ? src[b] : in_batch ? 0 : 0xA5;
          const unsigned char want_partial = lane ? src[b] : 0xA5;
          ASSERT_EQ(full[b], want_full) << k.name << " size " << size << " count " << count;
          ASSERT_EQ(partial[b], want_partial) << k.name << " size " << size << " count " << count;
        }
      }
    }
  }
  munmap(map, 2 * page);
}

TEST(Exp, AccuracyOverADenseSweepOnEveryIsa) {
  // Both signs, every 977th f32 of |x| in [1e-30, 104]: about 1.4 million points.
  std::vector<float> xs;
  for (float x : f32_sweep(1e-30f, 104.f, 977)) xs.push_back(-x);
  for (float x : f32_sweep(1e-30f, 88.72f, 977)) xs.push_back(x);
  for (const arch_kernels& k : every_arch()) {
    std::vector<float> y;
    const exp_errors e = worst_exp_errors(k.exp, xs, y);
    std::printf("exp %s: max error %.3f ulp (normal results, at x=%a), %.3f ulp (denormal)\n",
                k.name.c_str(), e.normal, e.at, e.denormal);
    EXPECT_LE(e.normal, 1.5) << k.name;
    EXPECT_LE(e.denormal, 1.0) << k.name;
  }
}

TEST(Exp, SpecialValuesOnEveryIsa) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {-inf, inf, nan, -nan, 0.f, -0.f, 89.f, 88.7229f, 88.72283f,
                                 -87.3365f, -103.97f, -103.972f, -104.f, -200.f, 1e30f, -1e30f};
  for (const arch_kernels& k : every_arch()) {
    std::vector<float> y(xs.size());
    k.exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    EXPECT_EQ(y[0], 0.f) << k.name;
    EXPECT_EQ(y[1], inf) << k.name;
    EXPECT_TRUE(std::isnan(y[2]) && std::isnan(y[3])) << k.name;
    EXPECT_EQ(y[4], 1.f);
    EXPECT_EQ(y[5], 1.f);
    EXPECT_EQ(y[6], inf);
    EXPECT_EQ(y[7], inf);   // just above ln(FLT_MAX)
    EXPECT_LE(ulp_error(y[8], std::exp(static_cast<double>(xs[8]))), 1.5) << k.name;  // just below: finite
    EXPECT_LE(ulp_error(y[9], std::exp(static_cast<double>(xs[9]))), 1.5);
    EXPECT_LE(ulp_error(y[10], std::exp(static_cast<double>(xs[10]))), 1.0);  // denormal
    EXPECT_EQ(y[12], 0.f);
    EXPECT_EQ(y[13], 0.f);
    EXPECT_EQ(y[14], inf);
    EXPECT_EQ(y[15], 0.f);
  }
}

TEST(Log, AccuracyOverADenseSweepOnEveryIsa) {
  // Every 509th positive finite f32, denormals included: about 4 million points.
  std::vector<float> xs;
  for (uint32_t b = 1; b < 0x7F800000u; b += 509) xs.push_back(std::bit_cast<float>(b));
  for (const arch_kernels& k : every_arch()) {
    std::vector<float> y(xs.size());
    k.log(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    double worst = 0;
    float at = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double err = ulp_error(y[i], std::log(static_cast<double>(xs[i])));
      if (err > worst) worst = err, at = xs[i];
    }
    std::printf("log %s: max error %.3f ulp (at x=%a)\n", k.name.c_str(), worst, at);
    EXPECT_LE(worst, 1.0) << k.name;
  }
}

TEST(Log, SpecialValuesOnEveryIsa) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.f, -0.f, inf, -inf, -1.f, nan, 1.f, 1e-45f};
  for (const arch_kernels& k : every_arch()) {
    std::vector<float> y(xs.size());
    k.log(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    EXPECT_EQ(y[0], -inf) << k.name;
    EXPECT_EQ(y[1], -inf) << k.name;
    EXPECT_EQ(y[2], inf) << k.name;
    EXPECT_TRUE(std::isnan(y[3]) && std::isnan(y[4]) && std::isnan(y[5])) << k.name;
    EXPECT_EQ(y[6], 0.f) << k.name;
    EXPECT_LE(ulp_error(y[7], std::log(static_cast<double>(1e-45f))), 2.0) << k.name;
  }
}

TEST(Reduce, MaxAndSumEveryLengthOnEveryIsa) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  for (const arch_kernels& k : every_arch()) {
    for (int n = 1; n <= 2 * 16 + 1; ++n) {
      std::vector<float> x(n);  // exact size: ASan sees any over-read
      for (float& v : x) v = dist(rng);
      double want_sum = 0, abs_sum = 0;
      float want_max = -std::numeric_limits<float>::infinity();
      for (float v : x) want_sum += v, abs_sum += std::fabs(v), want_max = std::max(want_max, v);
      EXPECT_EQ(k.max(x.data(), n), want_max) << k.name << " n=" << n;
      // Bound: a float sum of n terms in any order, 4 lanes' worth of pairwise levels extra.
      EXPECT_LE(std::fabs(k.sum(x.data(), n) - want_sum), (n + 4) * 0x1p-24 * abs_sum)
          << k.name << " n=" << n;
      // Every value negative: the zeros load_partial pads with must not win.
      for (float& v : x) v = -std::fabs(v) - 1.f;
      float want_neg = -std::numeric_limits<float>::infinity();
      for (float v : x) want_neg = std::max(want_neg, v);
      EXPECT_EQ(k.max(x.data(), n), want_neg) << k.name << " n=" << n;
    }
  }
}

TEST(Reduce, MaxNanIsTheSameOnEveryIsa) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const arch_kernels& k : every_arch()) {
    for (int n = 1; n <= 33; ++n) {
      for (int at = 0; at < n; ++at) {
        std::vector<float> x(n, -1.f);
        x[at] = nan;
        EXPECT_TRUE(std::isnan(k.max(x.data(), n))) << k.name << " n=" << n << " at=" << at;
      }
    }
  }
}

// reduce_max's zero rule within one batch (n <= width: the kernel's vertical max only meets -Inf
// padding, so reduce_max sees the lanes as given).
TEST(Reduce, MaxOfZerosPrefersPlusZeroOnEveryIsa) {
  for (const arch_kernels& k : every_arch()) {
    for (int n = 1; n <= k.width; ++n) {
      for (int at = 0; at < n; ++at) {
        std::vector<float> x(n, -0.f);
        EXPECT_TRUE(std::signbit(k.max(x.data(), n))) << k.name;
        x[at] = 0.f;
        const float m = k.max(x.data(), n);
        EXPECT_TRUE(m == 0.f && !std::signbit(m)) << k.name << " n=" << n << " at=" << at;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::simd
