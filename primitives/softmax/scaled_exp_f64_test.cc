// scaled_exp_f64 (scaled_exp_f64.h) in both accuracies (relaxed: logsoftmax backward's exp;
// full: the f64 forward kernels') on every ISA the machine has: error against long double over a
// sweep of f32 inputs (what the backward kernel feeds it) and random doubles across the whole
// finite-result range, with several scales, denormal and overflowing results, special values
// and scales, every length.
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
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

struct arch_exp {
  std::string name;
  void (*exp)(const double*, double*, int64_t, double);
  // avx512bw runs the table + vscalefpd code, avx2 the Taylor code; sse4_2 and neon64 xsimd::exp.
  bool own_code;
  bool full;  // full accuracy, else relaxed
};

// Both accuracies of Arch.
template <class Arch>
void add_arch(std::vector<arch_exp>& v, const std::string& name, bool own_code) {
  v.push_back({name + " relaxed", &scaled_exp_f64_kernel<Arch>, own_code, false});
  v.push_back({name + " full", &full_exp_f64_kernel<Arch>, own_code, true});
}

std::vector<arch_exp> every_kernel() {
  std::vector<arch_exp> v;
#if defined(__aarch64__)
  add_arch<xsimd::neon64>(v, "neon64", false);
#else
  add_arch<xsimd::sse4_2>(v, "sse4_2", false);
  if (simd::detected_isa() >= simd::isa::avx2) add_arch<xsimd::avx2>(v, "avx2", true);
  if (simd::detected_isa() >= simd::isa::avx512bw) add_arch<xsimd::avx512bw>(v, "avx512bw", true);
#endif
  return v;
}

std::vector<arch_exp> kernels_of(bool full) {
  std::vector<arch_exp> v;
  for (const arch_exp& a : every_kernel()) {
    if (a.full == full) v.push_back(a);
  }
  return v;
}

constexpr double kDblMin = std::numeric_limits<double>::min();
constexpr double kDblMax = std::numeric_limits<double>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr long double kDenormalUlp = 0x1p-1074L;

// The documented bound: the cubic fit's 2^-37.5 plus a few roundings of 2^-53.
constexpr long double kRelativeBound = 0x1p-37L;

// xsimd::exp (the other archs) gives Inf from 1023.5 ln2 on (its ldexp by n = 1024), although
// exp(x) is finite up to 709.78, and 0 at and below its minlog.
constexpr double kXsimdMaxLog = 1023.5 * 0.6931471805599453;
constexpr double kXsimdMinLog = -708.3964185322641;

std::vector<double> inputs() {
  std::vector<double> xs;
  // Every 1999th f32 of |x| in [1e-30, 1510], both signs: the kernel's inputs are f32 values.
  for (float sign : {-1.f, 1.f}) {
    for (uint32_t b = std::bit_cast<uint32_t>(1e-30f); b <= std::bit_cast<uint32_t>(1510.f); b += 1999) {
      xs.push_back(sign * std::bit_cast<float>(b));
    }
  }
  // Doubles that are not f32 values, over the range with finite nonzero results and beyond.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> wide(-1520.0, 1520.0), near_zero(-1.0, 1.0);
  for (int i = 0; i < 200000; ++i) xs.push_back(wide(rng));
  for (int i = 0; i < 50000; ++i) xs.push_back(near_zero(rng));
  // Around the reduction's rounding boundaries: x = (k + 1/2) ln2/16 for many k.
  for (int k = -34700; k <= 34700; k += 13) {
    const double x = (k + 0.5) * 0.0433216987849966;
    xs.push_back(std::nextafter(x, -1e9));
    xs.push_back(std::nextafter(x, 1e9));
  }
  return xs;
}

// The worst errors of kernel `a` at `scale` over xs: error(abs_err, want) over the normal results,
// and how far denormal results go beyond allowance(want), in denormal ulps (own code only: xsimd's
// ldexp may flush them). Results beyond the double range, and xsimd's beyond its range, are checked
// exactly. In long double throughout: an error below the denormal ulp would round away in double.
struct sweep_result {
  long double worst = 0, worst_denormal = 0;
  double at = 0, at_denormal = 0;
};

template <class Error, class Allowance>
sweep_result sweep(const arch_exp& a, const std::vector<double>& xs, double scale, Error error,
                   Allowance allowance) {
  std::vector<double> y(xs.size());
  a.exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()), scale);
  sweep_result r;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    if (!a.own_code && (x >= kXsimdMaxLog || x <= kXsimdMinLog)) {
      EXPECT_EQ(y[i], x >= kXsimdMaxLog ? std::copysign(kInf, scale) : 0.0) << a.name << " x=" << x;
      continue;
    }
    const long double want = std::exp(static_cast<long double>(x)) * scale;
    if (std::fabs(want) > kDblMax) {
      EXPECT_EQ(y[i], std::copysign(kInf, scale)) << a.name << " x=" << x << " scale=" << scale;
      continue;
    }
    const long double abs_err = std::fabs(static_cast<long double>(y[i]) - want);
    if (std::fabs(want) >= kDblMin) {
      const long double e = error(abs_err, want);
      if (e > r.worst) r.worst = e, r.at = x;
    } else if (a.own_code) {
      // One rounding to the denormal grid on top of the allowance.
      const long double beyond = (abs_err - allowance(want)) / kDenormalUlp;
      if (beyond > r.worst_denormal) r.worst_denormal = beyond, r.at_denormal = x;
    } else {
      EXPECT_LE(abs_err, kDblMin) << a.name << " x=" << x;
    }
  }
  return r;
}

TEST(ExpF64Relaxed, RelativeErrorOnEveryIsa) {
  const std::vector<double> xs = inputs();
  for (const arch_exp& a : kernels_of(/*full=*/false)) {
    for (double scale : {1.0, 1000.0 / 3, 0.7 * 0x1p-60, -12345.678, 0x1.8p-1050, 0x1.fp1000}) {
      const sweep_result r = sweep(
          a, xs, scale, [](long double err, long double want) { return err / std::fabs(want); },
          [](long double want) { return kRelativeBound * std::fabs(want); });
      std::printf("scaled_exp_f64 %s scale %g: max relative error %.3Lg = 2^%.2f (at x=%a); denormal "
                  "results within %.3Lf ulp of the relative bound (at x=%a)\n",
                  a.name.c_str(), scale, r.worst, std::log2(static_cast<double>(r.worst)), r.at,
                  r.worst_denormal, r.at_denormal);
      EXPECT_LE(r.worst, kRelativeBound) << a.name << " scale=" << scale;
      EXPECT_LE(r.worst_denormal, 0.5L) << a.name << " scale=" << scale;
    }
  }
}

// Full accuracy's bound, in ulps of the exact result, for scale 1 (the forward kernels'): the
// table entry's rounding (0.5) and the last FMA's (0.5) on avx512bw, which measures 1.01; the
// roundings of avx2's polynomial, times |r| <= 0.35, near 1 (1.24 measured); xsimd::exp (sse4_2,
// neon64) 0.83. Another scale rounds once more (the table or the mantissa times it), and a
// product may cross a binade, where the ulp halves: 1.92 measured on avx2.
constexpr long double kFullUlpBound = 1.5L;
constexpr long double kFullScaledUlpBound = 2.5L;

// The spacing of doubles at the normal value |v|.
long double ulp_of(long double v) {
  int e = 0;
  std::frexp(v, &e);  // |v| = m 2^e, m in [0.5, 1)
  return std::ldexp(1.0L, e - 53);
}

TEST(ExpF64Full, UlpErrorOnEveryIsa) {
  const std::vector<double> xs = inputs();
  for (const arch_exp& a : kernels_of(/*full=*/true)) {
    for (double scale : {1.0, -1000.0 / 3}) {
      const long double bound = scale == 1.0 ? kFullUlpBound : kFullScaledUlpBound;
      const sweep_result r = sweep(
          a, xs, scale, [](long double err, long double want) { return err / ulp_of(want); },
          [&](long double want) { return bound * ulp_of(want); });
      std::printf("full_exp_f64 %s scale %g: max error %.3Lf ulp (at x=%a); denormal results "
                  "within %.3Lf ulp of the bound (at x=%a)\n",
                  a.name.c_str(), scale, r.worst, r.at, r.worst_denormal, r.at_denormal);
      EXPECT_LE(r.worst, bound) << a.name << " scale=" << scale;
      EXPECT_LE(r.worst_denormal, 0.5L) << a.name << " scale=" << scale;
    }
  }
}

TEST(ExpF64BothAccuracies, SpecialValuesOnEveryIsa) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> xs = {-kInf, kInf, nan, -nan, 0.0, -0.0, 709.78, 709.79, 710.0, 1e300,
                                  -746.0, -1e300, std::bit_cast<double>(uint64_t{1}), -3.4e38, 3.4e38};
  for (const arch_exp& a : every_kernel()) {
    std::vector<double> y(xs.size());
    a.exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()), 1.0);
    EXPECT_EQ(y[0], 0.0) << a.name;
    EXPECT_EQ(y[1], kInf) << a.name;
    EXPECT_TRUE(std::isnan(y[2]) && std::isnan(y[3])) << a.name;
    EXPECT_EQ(y[4], 1.0) << a.name;
    EXPECT_EQ(y[5], 1.0) << a.name;
    if (a.own_code) {
      EXPECT_NEAR(y[6] / std::exp(709.78), 1.0, 0x1p-37) << a.name;  // finite, near DBL_MAX
    } else {
      EXPECT_EQ(y[6], kInf) << a.name;  // past kXsimdMaxLog
    }
    EXPECT_EQ(y[7], kInf) << a.name;
    EXPECT_EQ(y[8], kInf) << a.name;
    EXPECT_EQ(y[9], kInf) << a.name;
    EXPECT_EQ(y[10], 0.0) << a.name;
    EXPECT_EQ(y[11], 0.0) << a.name;
    EXPECT_EQ(y[12], 1.0) << a.name;  // the smallest denormal input
    EXPECT_EQ(y[13], 0.0) << a.name;
    EXPECT_EQ(y[14], kInf) << a.name;
  }
}

// Scales 0, ±Inf and NaN are exp(x) * scale in IEEE arithmetic: exp(+Inf) * 0 is NaN, exp(0) * Inf
// is Inf (a table scaled by Inf would give Inf * r = NaN where r = 0).
TEST(ExpF64BothAccuracies, NonFiniteAndZeroScalesOnEveryIsa) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> xs = {0.0, -1.5, 2.0, kInf, -kInf, nan, 800.0, -800.0};
  for (const arch_exp& a : every_kernel()) {
    for (double scale : {0.0, -0.0, kInf, -kInf, nan}) {
      std::vector<double> y(xs.size());
      a.exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()), scale);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = std::exp(xs[i]) * scale;
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[i])) << a.name << " x=" << xs[i] << " scale=" << scale;
        } else {
          EXPECT_EQ(y[i], want) << a.name << " x=" << xs[i] << " scale=" << scale;
          EXPECT_EQ(std::signbit(y[i]), std::signbit(want)) << a.name << " x=" << xs[i];
        }
      }
    }
  }
}

// Every length up to three vectors: the lanes of a partial vector are computed like the others.
TEST(ExpF64BothAccuracies, EveryLengthOnEveryIsa) {
  for (const arch_exp& a : every_kernel()) {
    for (int n = 1; n <= 24; ++n) {
      std::vector<double> x(n), y(n);
      for (int i = 0; i < n; ++i) x[i] = -0.37 * i + 1.1;
      a.exp(x.data(), y.data(), n, 2.5);
      for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(y[i] / (2.5 * std::exp(x[i])), 1.0, 0x1p-37) << a.name << " n=" << n << " i=" << i;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::softmax_internal
