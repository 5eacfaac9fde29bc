// The softmax's exps (exp_nonpositive.h, exp_minus.h, exp_nearby.h) under every ISA the
// machine has: accuracy against double precision over dense sweeps of their input ranges, the
// ranges each make() declines, NaN lanes and every tail length, and each _lanes form against the
// scalar form of its lanes' ranges.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/internal/exp_kernels.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/exp_accuracy.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

struct arch_kernels {
  std::string name;
  void (*exp_nonpositive)(const float*, float*, int64_t);  // exp_nonpositive_f32
  bool (*exp_minus)(const float*, float*, int64_t, float, float);  // exp_minus_f32
  bool (*exp_minus_lanes)(const float*, float*, int64_t, const float*, const float*);
  bool (*exp_minus_nearby)(const float*, float*, int64_t, float, float, double*, double*);
  bool (*exp_minus_nearby_lanes)(const float*, float*, int64_t, const float*, const float*,
                                 double*, double*);
  int width;  // f32 lanes per batch
};

template <class Arch>
arch_kernels kernels_of(const char* name) {
  return {name,
          &exp_nonpositive_kernel<Arch>,
          &exp_minus_kernel<Arch>,
          &exp_minus_lanes_kernel<Arch>,
          &exp_minus_nearby_kernel<Arch>,
          &exp_minus_nearby_lanes_kernel<Arch>,
          simd::f32_lanes<Arch>};
}

std::vector<arch_kernels> every_arch() {
#if defined(__aarch64__)
  std::vector<arch_kernels> result = {kernels_of<xsimd::neon64>("neon64")};
#else
  std::vector<arch_kernels> result = {kernels_of<xsimd::sse4_2>("sse4_2")};
  if (simd::detected_isa() >= simd::isa::avx2) result.push_back(kernels_of<xsimd::avx2>("avx2"));
  if (simd::detected_isa() >= simd::isa::avx512bw) {
    result.push_back(kernels_of<xsimd::avx512bw>("avx512bw"));
  }
#endif
  return result;
}

using ::tessera::testing::exp_errors;
using ::tessera::testing::f32_sweep;
using ::tessera::testing::tally_exp_errors;
using ::tessera::testing::ulp_error;
using ::tessera::testing::worst_exp_errors;

TEST(ExpNonpositive, AccuracyOverItsRangeOnEveryIsa) {
  // 0, -0 and every 73rd f32 of [-110, -1e-30]: about 1.5 million points. On sse4_2 and neon64
  // it is simd::exp_f32, held to that function's bound (1.24 ulp measured, simd/math.h); the
  // table versions (avx2, avx512bw) reach 1.00 ulp over every f32 of [-110, 0] with a normal
  // result (exhaustive runs outside the suite: avx512bw 0.9998 ulp at x = -0x1.4c1ad2p+6, avx2
  // 0.8966 ulp at x = -0x1.da1e9cp+2 and 0.7653 on denormal results), so their bound is 1 ulp.
  std::vector<float> xs = {0.f, -0.f};
  for (float x : f32_sweep(1e-30f, 110.f, 73)) xs.push_back(-x);
  xs.push_back(-110.f);
  for (const arch_kernels& k : every_arch()) {
    std::vector<float> y;
    const exp_errors e = worst_exp_errors(k.exp_nonpositive, xs, y);
    std::printf("exp_nonpositive %s: max error %.3f ulp (normal results, at x=%a), %.3f ulp "
                "(denormal)\n", k.name.c_str(), e.normal, e.at, e.denormal);
    const bool table_version = k.name == "avx2" || k.name == "avx512bw";
    EXPECT_LE(e.normal, table_version ? 1.0 : 1.5) << k.name;
    EXPECT_LE(e.denormal, 1.0) << k.name;
    EXPECT_EQ(y[0], 1.f) << k.name;
    EXPECT_EQ(y[1], 1.f) << k.name;
  }
}

TEST(ExpNonpositive, NanAndEveryLengthOnEveryIsa) {
  for (const arch_kernels& k : every_arch()) {
    for (int n = 1; n <= 33; ++n) {
      std::vector<float> x(n), y(n);
      for (int i = 0; i < n; ++i) x[i] = -3.3f * static_cast<float>(i);
      x[n / 2] = std::numeric_limits<float>::quiet_NaN();
      k.exp_nonpositive(x.data(), y.data(), n);
      for (int i = 0; i < n; ++i) {
        if (i == n / 2) {
          EXPECT_TRUE(std::isnan(y[i])) << k.name << " n=" << n;
        } else {
          EXPECT_LE(ulp_error(y[i], std::exp(static_cast<double>(x[i]))), 1.5)
              << k.name << " n=" << n << " i=" << i;
        }
      }
    }
  }
}

// f32s of [lo, c] at about `points` evenly spaced bit patterns (both ends and 0 included), and
// as many again within 0.05 of each end.
std::vector<float> range_sweep(float lo, float c, int points) {
  std::vector<float> xs = {lo, c};
  if (lo <= 0 && c >= 0) xs.push_back(0.f);
  auto add = [&](float from, float to) {  // from <= to, same sign
    if (std::fabs(from) > std::fabs(to)) std::swap(from, to);
    const uint32_t span = std::bit_cast<uint32_t>(std::fabs(to)) - std::bit_cast<uint32_t>(std::fabs(from));
    for (const float x : f32_sweep(std::fabs(from), std::fabs(to), std::max<uint32_t>(1, span / points))) {
      xs.push_back(to < 0 ? -x : x);
    }
  };
  if (c <= 0) add(lo, c);
  else if (lo >= 0) add(lo, c);
  else add(lo, -1e-30f), add(1e-30f, c);
  // The last 0.05 at each end densely: where |x - r| may reach past 2^(E+1).
  for (float end : {lo, c}) {
    const float inner = end < 0 ? std::min(end + 0.05f, c) : std::max(end - 0.05f, lo);
    if ((inner < 0) == (end < 0) && inner != 0) add(std::min(inner, end), std::max(inner, end));
  }
  return xs;
}

// exp(x - c) against double precision for every x of [lo, c] that make() accepts; the worst
// errors, as worst_exp_errors.
exp_errors worst_exp_minus_errors(const arch_kernels& k, float c, float lo, bool& accepted) {
  const std::vector<float> xs = range_sweep(lo, c, 20000);
  std::vector<float> y(xs.size());
  accepted = k.exp_minus(xs.data(), y.data(), static_cast<int64_t>(xs.size()), c, lo);
  return accepted ? tally_exp_errors(xs, y, c) : exp_errors{};
}

// exp_minus_f32 on avx512bw: ranges of every scale it accepts, those at the edge of the
// exactness condition (max(|lo|, |c|) just inside 2^(E+1) - margin, where a t1 that rounds would
// show as ~2^(E-22) absolute: hundreds of ulp), c = 0, negative c, c far above lo (denormal and
// zero results), and random ranges. 1.1 ulp at most on normal results (the bound its comment
// states), 1 ulp on denormal ones. Other archs decline every range.
TEST(ExpMinus, AccuracyOverRangesOfEveryScaleOnAvx512bw) {
  struct range {
    float c, lo;
  };
  std::vector<range> ranges = {{4.99f, -5.f},  {5.f, -5.f},      {88.f, 72.f},   {127.f, 40.f},
                               {0.f, -100.f},  {-1.f, -17.f},    {-1.f, -100.f}, {0.5f, -0.5f},
                               {0.f, -0.01f},  {511.f, 411.f},   {7.97f, -7.97f}, {1.97f, -1.97f},
                               {7.5f, -7.99f}, {-0.25f, -0.3f},  {300.f, 190.f}, {1.f, -511.f}};
  // Ends within 0.03 of 2^(E+1) (c a multiple of 2^-16, so that E may be the larger one).
  for (float edge : {1.995f, 7.99f, 7.995f, 31.985f, 255.9f, 511.7f}) {
    const float c = std::ldexp(std::nearbyint(std::ldexp(edge, 16)), -16);
    ranges.push_back({c, -c});
    ranges.push_back({c, c - 3.f});
    ranges.push_back({0.f, -c});
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) {
    // c with few mantissa bits now and then (so that negative and small c are accepted too).
    float c = std::uniform_real_distribution<float>(-60.f, 400.f)(rng);
    if (i % 2) c = std::ldexp(std::nearbyint(std::ldexp(c, 4)), -4);
    ranges.push_back({c, c - std::uniform_real_distribution<float>(0.f, 130.f)(rng)});
  }
  for (const arch_kernels& k : every_arch()) {
    int accepted_count = 0;
    exp_errors worst;
    for (const range& r : ranges) {
      bool accepted = false;
      const exp_errors e = worst_exp_minus_errors(k, r.c, r.lo, accepted);
      if (k.name != "avx512bw") {
        EXPECT_FALSE(accepted) << k.name;
        continue;
      }
      accepted_count += accepted;
      if (e.normal > worst.normal) worst.normal = e.normal, worst.at = e.at;
      worst.denormal = std::max(worst.denormal, e.denormal);
      EXPECT_LE(e.normal, 1.1) << "c=" << r.c << " lo=" << r.lo << " at x=" << e.at;
      EXPECT_LE(e.denormal, 1.0) << "c=" << r.c << " lo=" << r.lo;
    }
    if (k.name == "avx512bw") {
      std::printf("exp_minus avx512bw: %d of %zu ranges accepted; max error %.3f ulp (normal, at "
                  "x=%a), %.3f ulp (denormal)\n",
                  accepted_count, ranges.size(), worst.normal, worst.at, worst.denormal);
      EXPECT_GE(accepted_count, 16 + 18 + 150) << "the fixed and edge ranges, the random ones with short c";
    }
  }
}

// What make() must decline on avx512bw: a c that is not a multiple of 2^(E-23) (8 - 2^-21 needs
// E = 3), ranges reaching 511.8, non-finite ends, lo > c. The edge cases it accepts are above.
TEST(ExpMinus, DeclinesRangesItCannotComputeExactly) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::pair<float, float> declined[] = {{0.01f, -5.f},  {std::nextafter(8.f, 0.f), -7.f},
                                              {600.f, 590.f}, {1.f, -512.f},
                                              {511.9f, 500.f}, {0.f, -inf},
                                              {inf, 0.f},     {nan, 0.f},
                                              {0.f, nan},     {1.f, 2.f}};
  for (const arch_kernels& k : every_arch()) {
    for (const auto& [c, lo] : declined) {
      float x = 0, y = 7.f;
      EXPECT_FALSE(k.exp_minus(&x, &y, 1, c, lo)) << k.name << " c=" << c << " lo=" << lo;
      EXPECT_EQ(y, 7.f) << k.name;
    }
  }
}

// x[i] = 2.5 - step i (i < n) with a NaN at n / 2, for n = 1 .. max_n: exp_of(x, y, n) writes
// exp(x - s) to y and returns s. The NaN lane must stay NaN, the others be within `bound` ulp.
template <class ExpOf>
void expect_nan_lane_at_every_length(int max_n, float step, double bound, ExpOf&& exp_of) {
  for (int n = 1; n <= max_n; ++n) {
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = 2.5f - step * static_cast<float>(i);
    x[n / 2] = std::numeric_limits<float>::quiet_NaN();
    const double s = exp_of(x.data(), y.data(), n);
    for (int i = 0; i < n; ++i) {
      if (i == n / 2) {
        EXPECT_TRUE(std::isnan(y[i])) << "n=" << n;
      } else {
        EXPECT_LE(ulp_error(y[i], std::exp(static_cast<double>(x[i]) - s)), bound) << "n=" << n << " i=" << i;
      }
    }
  }
}

TEST(ExpMinus, NanAndEveryLengthOnAvx512bw) {
  for (const arch_kernels& k : every_arch()) {
    if (k.name != "avx512bw") continue;
    expect_nan_lane_at_every_length(33, 3.3f, 1.1, [&](const float* x, float* y, int n) {
      EXPECT_TRUE(k.exp_minus(x, y, n, 2.5f, 2.5f - 3.3f * 33));
      return 2.5;
    });
  }
}

// exp_minus_nearby_f32 on avx2: exp(x - s) against double precision over ranges of every scale
// it accepts (ends at ±100, spans up to 86, c = 0, c on and midway between multiples of ln2/8,
// where s is farthest from c), and random ranges; s a multiple of ln2/8 within ln2/16 of c, and
// to_c() = exp(s - c) within 1e-15 (a few f64 ulp; the f32 results need 2^-30).
// 1.0 ulp at most (exp_nonpositive_f32's avx2 bound; every result is normal). Other archs
// decline every range.
TEST(ExpMinusNearby, AccuracyOverRangesOfEveryScaleOnAvx2) {
  constexpr double kStep = 0x1.62e42fefa39efp-1 / 8;
  struct range {
    float c, lo;
  };
  std::vector<range> ranges = {{4.99f, -5.f},     {5.f, -5.f},     {0.f, -86.f},    {100.f, 14.f},
                               {-14.f, -100.f},   {100.f, 99.9f},  {-100.f, -100.f}, {0.f, 0.f},
                               {0.04f, -0.04f},   {88.f, 2.f},     {-50.f, -60.f},  {1.f, -85.f},
                               {static_cast<float>(kStep * 3.5), -80.f},
                               {static_cast<float>(kStep * -700.5), -99.f}};
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    const float c = std::uniform_real_distribution<float>(-100.f, 100.f)(rng);
    const float span = std::uniform_real_distribution<float>(0.f, std::min(86.f, c + 100.f))(rng);
    ranges.push_back({c, c - span});
  }
  for (const arch_kernels& k : every_arch()) {
    int accepted_count = 0;
    exp_errors worst;
    for (const range& r : ranges) {
      const std::vector<float> xs = range_sweep(r.lo, r.c, 20000);
      std::vector<float> y(xs.size());
      double s = 0, to_c = 0;
      const bool accepted = k.exp_minus_nearby(xs.data(), y.data(), static_cast<int64_t>(xs.size()),
                                               r.c, r.lo, &s, &to_c);
      if (k.name != "avx2") {
        EXPECT_FALSE(accepted) << k.name;
        continue;
      }
      ASSERT_TRUE(accepted) << "c=" << r.c << " lo=" << r.lo;
      ++accepted_count;
      EXPECT_NEAR(s / kStep, std::nearbyint(s / kStep), 1e-9) << "c=" << r.c;
      EXPECT_LE(std::fabs(s - r.c), kStep / 2 + 1e-12) << "c=" << r.c;
      EXPECT_NEAR(to_c, std::exp(s - r.c), 1e-15) << "c=" << r.c;
      const exp_errors e = tally_exp_errors(xs, y, s);
      if (e.normal > worst.normal) worst.normal = e.normal, worst.at = e.at;
      EXPECT_LE(e.normal, 1.0) << "c=" << r.c << " lo=" << r.lo << " at x=" << e.at;
      EXPECT_EQ(e.denormal, 0.0) << "c=" << r.c << " lo=" << r.lo << ": every result is normal";
    }
    if (k.name == "avx2") {
      std::printf("exp_minus_nearby avx2: %d ranges; max error %.3f ulp (at x=%a)\n", accepted_count,
                  worst.normal, worst.at);
    }
  }
}

// What make() must decline on avx2: an end beyond ±100, a span beyond 86 (results below 2^-124
// would need the denormal path), non-finite ends, lo > c. sse4_2 declines everything.
TEST(ExpMinusNearby, DeclinesRangesOutsideItsConditions) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::pair<float, float> declined[] = {{100.5f, 99.f}, {0.f, -100.5f}, {0.f, -86.5f},
                                              {50.f, -37.f},  {0.f, -inf},    {inf, 0.f},
                                              {nan, 0.f},     {0.f, nan},     {1.f, 2.f}};
  for (const arch_kernels& k : every_arch()) {
    for (const auto& [c, lo] : declined) {
      float x = 0, y = 7.f;
      double s = 0, to_c = 0;
      EXPECT_FALSE(k.exp_minus_nearby(&x, &y, 1, c, lo, &s, &to_c)) << k.name << " c=" << c << " lo=" << lo;
      EXPECT_EQ(y, 7.f) << k.name;
    }
  }
}

// NaN lanes stay NaN (no check in the kernel: the product with 2^floor(n/8) carries it), next to
// ordinary lanes, at every length through two vectors and a tail.
TEST(ExpMinusNearby, NanAndEveryLengthOnAvx2) {
  for (const arch_kernels& k : every_arch()) {
    if (k.name != "avx2") continue;
    expect_nan_lane_at_every_length(17, 5.f, 1.0, [&](const float* x, float* y, int n) {
      double s = 0, to_c = 0;
      EXPECT_TRUE(k.exp_minus_nearby(x, y, n, 2.5f, 2.5f - 5.f * 16, &s, &to_c));
      return s;
    });
  }
}

// exp_minus_nearby_lanes_f32: each lane gives exactly what exp_minus_nearby_f32 made for that
// lane's range gives (bits, s and to_c), for lanes of unrelated ranges; one lane outside the
// conditions makes it decline, writing nothing. Other archs decline.
TEST(ExpMinusNearbyLanes, EachLaneIsTheScalarFormOfItsRange) {
  std::mt19937 rng(11);
  for (const arch_kernels& k : every_arch()) {
    const int w = k.width;
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<float> c(w), lo(w);
      for (int i = 0; i < w; ++i) {
        c[i] = std::uniform_real_distribution<float>(-100.f, 100.f)(rng);
        lo[i] = c[i] - std::uniform_real_distribution<float>(0.f, std::min(86.f, c[i] + 100.f))(rng);
      }
      // 37 vectors and a tail: lane j % w of each from [lo, c] of its lane.
      const int n = 37 * w + w / 2 + 1;
      std::vector<float> x(n), y(n, 7.f);
      for (int j = 0; j < n; ++j) {
        x[j] = std::uniform_real_distribution<float>(lo[j % w], c[j % w])(rng);
      }
      std::vector<double> s(w), to_c(w);
      const bool accepted =
          k.exp_minus_nearby_lanes(x.data(), y.data(), n, c.data(), lo.data(), s.data(), to_c.data());
      if (k.name != "avx2") {
        EXPECT_FALSE(accepted) << k.name;
        EXPECT_EQ(y[0], 7.f) << k.name;
        continue;
      }
      ASSERT_TRUE(accepted);
      for (int i = 0; i < w; ++i) {
        std::vector<float> lane_x, lane_y;
        for (int j = i; j < n; j += w) lane_x.push_back(x[j]);
        lane_y.resize(lane_x.size());
        double lane_s = 0, lane_to_c = 0;
        ASSERT_TRUE(k.exp_minus_nearby(lane_x.data(), lane_y.data(), static_cast<int64_t>(lane_x.size()),
                                       c[i], lo[i], &lane_s, &lane_to_c));
        EXPECT_EQ(s[i], lane_s) << "lane " << i;
        EXPECT_EQ(to_c[i], lane_to_c) << "lane " << i;
        for (size_t t = 0; t < lane_x.size(); ++t) {
          ASSERT_EQ(std::bit_cast<uint32_t>(y[i + t * w]), std::bit_cast<uint32_t>(lane_y[t]))
              << "lane " << i << " x=" << lane_x[t] << " range [" << lo[i] << ", " << c[i] << "]";
        }
      }
      // The same ranges with one lane's span beyond 86: declined, nothing written.
      const int bad = trial % w;
      lo[bad] = c[bad] - 86.5f;
      std::fill(y.begin(), y.end(), 7.f);
      EXPECT_FALSE(k.exp_minus_nearby_lanes(x.data(), y.data(), n, c.data(), lo.data(), s.data(),
                                            to_c.data()))
          << "lane " << bad;
      EXPECT_EQ(y, std::vector<float>(n, 7.f));
    }
  }
}

// exp_minus_lanes_f32: each lane gives exactly the bits exp_minus_f32 made for that lane's range
// gives, for lanes of unrelated ranges (scales from 2^-6 to 2^8, as exp_minus_f32's own test);
// one lane whose range exp_minus_f32 declines makes it decline, writing nothing. Other archs
// decline.
TEST(ExpMinusLanes, EachLaneIsTheScalarFormOfItsRange) {
  std::mt19937 rng(12);
  for (const arch_kernels& k : every_arch()) {
    const int w = k.width;
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<float> c(w), lo(w);
      for (int i = 0; i < w; ++i) {
        // c a multiple of 2^-12 (accepted whenever the range's exponent E is at most 11), lo
        // below it by up to a random power of two.
        const float scale = std::ldexp(1.f, std::uniform_int_distribution<int>(-6, 8)(rng));
        const float c_raw = std::uniform_real_distribution<float>(-scale, scale)(rng);
        c[i] = std::round(c_raw * 4096.f) / 4096.f;
        lo[i] = c[i] - std::uniform_real_distribution<float>(0.f, scale)(rng);
      }
      const int n = 37 * w + w / 2 + 1;  // 37 vectors and a tail
      std::vector<float> x(n), y(n, 7.f);
      for (int j = 0; j < n; ++j) {
        x[j] = std::uniform_real_distribution<float>(lo[j % w], c[j % w])(rng);
      }
      const bool accepted = k.exp_minus_lanes(x.data(), y.data(), n, c.data(), lo.data());
      if (k.name != "avx512bw") {
        EXPECT_FALSE(accepted) << k.name;
        EXPECT_EQ(y, std::vector<float>(n, 7.f)) << k.name;
        continue;
      }
      ASSERT_TRUE(accepted) << "trial " << trial;
      for (int i = 0; i < w; ++i) {
        std::vector<float> lane_x, lane_y;
        for (int j = i; j < n; j += w) lane_x.push_back(x[j]);
        lane_y.resize(lane_x.size());
        ASSERT_TRUE(k.exp_minus(lane_x.data(), lane_y.data(), static_cast<int64_t>(lane_x.size()),
                                c[i], lo[i]));
        for (size_t t = 0; t < lane_x.size(); ++t) {
          ASSERT_EQ(std::bit_cast<uint32_t>(y[i + t * w]), std::bit_cast<uint32_t>(lane_y[t]))
              << "lane " << i << " x=" << lane_x[t] << " range [" << lo[i] << ", " << c[i] << "]";
        }
      }
      // The same ranges with one lane's range beyond exp_minus_f32's (|lo| >= 511.8): declined.
      const int bad = trial % w;
      lo[bad] = -600.f;
      std::fill(y.begin(), y.end(), 7.f);
      EXPECT_FALSE(k.exp_minus_lanes(x.data(), y.data(), n, c.data(), lo.data())) << "lane " << bad;
      EXPECT_EQ(y, std::vector<float>(n, 7.f));
    }
  }
}

}  // namespace
}  // namespace tessera::softmax_internal
