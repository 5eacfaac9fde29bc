// Temporary: the softmax's exps (primitives/softmax/internal/exp_*.h) against simd/math.h's,
// bit for bit, under every ISA the machine has.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/internal/exp_kernels.h"
#include "tessera/simd/internal/math_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera {
namespace {

struct pair_kernels {
  std::string name;
  int lanes;
  void (*old_nonpositive)(const float*, float*, int64_t);
  void (*new_nonpositive)(const float*, float*, int64_t);
  bool (*old_minus)(const float*, float*, int64_t, float, float);
  bool (*new_minus)(const float*, float*, int64_t, float, float);
  bool (*old_minus_lanes)(const float*, float*, int64_t, const float*, const float*);
  bool (*new_minus_lanes)(const float*, float*, int64_t, const float*, const float*);
  bool (*old_nearby)(const float*, float*, int64_t, float, float, double*, double*);
  bool (*new_nearby)(const float*, float*, int64_t, float, float, double*, double*);
  bool (*old_nearby_lanes)(const float*, float*, int64_t, const float*, const float*, double*,
                           double*);
  bool (*new_nearby_lanes)(const float*, float*, int64_t, const float*, const float*, double*,
                           double*);
  void (*old_f64)(const double*, double*, int64_t, double);
  void (*new_f64)(const double*, double*, int64_t, double);
};

template <class A>
pair_kernels kernels_of(const char* name, int lanes) {
  namespace o = simd::internal;
  namespace n = softmax_internal;
  return {name,
          lanes,
          &o::exp_nonpositive_kernel<A>,
          &n::exp_nonpositive_kernel<A>,
          &o::exp_minus_kernel<A>,
          &n::exp_minus_kernel<A>,
          &o::exp_minus_lanes_kernel<A>,
          &n::exp_minus_lanes_kernel<A>,
          &o::exp_minus_nearby_kernel<A>,
          &n::exp_minus_nearby_kernel<A>,
          &o::exp_minus_nearby_lanes_kernel<A>,
          &n::exp_minus_nearby_lanes_kernel<A>,
          &o::scaled_exp_f64_kernel<A>,
          &n::scaled_exp_f64_kernel<A>};
}

std::vector<pair_kernels> every_arch() {
  std::vector<pair_kernels> result = {kernels_of<xsimd::sse4_2>("sse4_2", 4)};
  if (simd::detected_isa() >= simd::isa::avx2) result.push_back(kernels_of<xsimd::avx2>("avx2", 8));
  if (simd::detected_isa() >= simd::isa::avx512bw) {
    result.push_back(kernels_of<xsimd::avx512bw>("avx512bw", 16));
  }
  return result;
}

template <class T>
int64_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

// Every `stride`-th f32 bit pattern of [lo, hi] (lo < 0), in pieces.
template <class Check>
void for_f32_chunks(float lo, float hi, uint32_t stride, Check&& check) {
  std::vector<float> xs;
  auto flush = [&] {
    if (!xs.empty()) check(xs);
    xs.clear();
  };
  // Negative part: bits from 0x80000000 up to bits(lo); positive part: 0 up to bits(hi).
  if (lo < 0) {
    const uint32_t end = std::bit_cast<uint32_t>(lo);
    for (uint64_t b = 0x80000000u; b <= end; b += stride) {
      xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
      if (xs.size() == (1u << 20)) flush();
    }
  }
  if (hi >= 0) {
    const uint32_t end = std::bit_cast<uint32_t>(hi);
    for (uint64_t b = 0; b <= end; b += stride) {
      xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
      if (xs.size() == (1u << 20)) flush();
    }
  }
  xs.push_back(std::numeric_limits<float>::quiet_NaN());
  xs.push_back(lo);
  xs.push_back(hi);
  flush();
}

TEST(ExpIdentity, NonpositiveEveryF32OfItsRange) {
  for (const pair_kernels& k : every_arch()) {
    for_f32_chunks(-110.f, -0.f, 1, [&](const std::vector<float>& xs) {
      std::vector<float> a(xs.size()), b(xs.size());
      k.old_nonpositive(xs.data(), a.data(), static_cast<int64_t>(xs.size()));
      k.new_nonpositive(xs.data(), b.data(), static_cast<int64_t>(xs.size()));
      const int64_t at = first_difference(a, b);
      ASSERT_EQ(at, -1) << k.name << " x = " << xs[static_cast<size_t>(at)];
    });
  }
}

const float kRanges[][2] = {{0.f, -3.f},     {5.f, -5.f},   {2.5f, -80.f},  {-1.f, -80.f},
                            {100.f, 14.f},   {-14.f, -100.f}, {0.0625f, -0.0625f},
                            {300.f, 210.f},  {8.f, -8.f},   {1.f, -109.f}, {45.25f, -40.f},
                            {1e-3f, -1e-3f}, {7.75f, -2.f}};

TEST(ExpIdentity, MinusAndNearbyOverRanges) {
  for (const pair_kernels& k : every_arch()) {
    for (const auto& range : kRanges) {
      const float c = range[0], lo = range[1];
      for_f32_chunks(lo, c, 7, [&](const std::vector<float>& xs) {
        const auto n = static_cast<int64_t>(xs.size());
        std::vector<float> a(xs.size(), -1.f), b(xs.size(), -1.f);
        ASSERT_EQ(k.old_minus(xs.data(), a.data(), n, c, lo), k.new_minus(xs.data(), b.data(), n, c, lo));
        int64_t at = first_difference(a, b);
        ASSERT_EQ(at, -1) << k.name << " minus [" << lo << ", " << c << "] x = " << xs[static_cast<size_t>(at)];
        double s1 = 0, s2 = 0, t1 = 0, t2 = 0;
        ASSERT_EQ(k.old_nearby(xs.data(), a.data(), n, c, lo, &s1, &t1),
                  k.new_nearby(xs.data(), b.data(), n, c, lo, &s2, &t2));
        ASSERT_EQ(s1, s2);
        ASSERT_EQ(t1, t2);
        at = first_difference(a, b);
        ASSERT_EQ(at, -1) << k.name << " nearby [" << lo << ", " << c << "] x = " << xs[static_cast<size_t>(at)];
      });
    }
  }
}

TEST(ExpIdentity, LanesOverRanges) {
  for (const pair_kernels& k : every_arch()) {
    const int count = sizeof(kRanges) / sizeof(kRanges[0]);
    for (int first = 0; first < count; ++first) {
      std::vector<float> c(16), lo(16);
      for (int i = 0; i < 16; ++i) {
        c[i] = kRanges[(first + i) % count][0];
        lo[i] = kRanges[(first + i) % count][1];
      }
      // x of lane i: every 97th f32 of lane i's range, cycled.
      std::vector<float> xs;
      std::vector<std::vector<float>> per_lane(static_cast<size_t>(k.lanes));
      size_t longest = 0;
      for (int i = 0; i < k.lanes; ++i) {
        for_f32_chunks(lo[i], c[i], 97, [&](const std::vector<float>& v) {
          per_lane[i].insert(per_lane[i].end(), v.begin(), v.end());
        });
        longest = std::max(longest, per_lane[i].size());
      }
      for (size_t j = 0; j < longest; ++j) {
        for (int i = 0; i < k.lanes; ++i) xs.push_back(per_lane[i][j % per_lane[i].size()]);
      }
      const auto n = static_cast<int64_t>(xs.size());
      std::vector<float> a(xs.size(), -1.f), b(xs.size(), -1.f);
      ASSERT_EQ(k.old_minus_lanes(xs.data(), a.data(), n, c.data(), lo.data()),
                k.new_minus_lanes(xs.data(), b.data(), n, c.data(), lo.data()));
      ASSERT_EQ(first_difference(a, b), -1) << k.name << " minus lanes " << first;
      std::vector<double> s1(16), s2(16), t1(16), t2(16);
      ASSERT_EQ(k.old_nearby_lanes(xs.data(), a.data(), n, c.data(), lo.data(), s1.data(), t1.data()),
                k.new_nearby_lanes(xs.data(), b.data(), n, c.data(), lo.data(), s2.data(), t2.data()));
      ASSERT_EQ(s1, s2);
      ASSERT_EQ(t1, t2);
      ASSERT_EQ(first_difference(a, b), -1) << k.name << " nearby lanes " << first;
    }
  }
}

// Every 2^36-th f64 bit pattern (both signs, NaN and Inf included), and a dense grid of [-800, 800],
// for several scales.
TEST(ExpIdentity, ScaledExpF64) {
  std::vector<double> xs;
  for (uint64_t b = 0; b < (uint64_t{1} << 63); b += uint64_t{1} << 36) {
    xs.push_back(std::bit_cast<double>(b));
    xs.push_back(std::bit_cast<double>(b | (uint64_t{1} << 63)));
  }
  for (int i = -8000000; i <= 8000000; ++i) xs.push_back(i * 1e-4 + i * 0x1p-40);
  xs.push_back(std::numeric_limits<double>::infinity());
  xs.push_back(-std::numeric_limits<double>::infinity());
  xs.push_back(std::numeric_limits<double>::quiet_NaN());
  const double scales[] = {1.0, 3.7, 0.3, -2.5, 1e-300, 3.7e200, 0x1p-1074, 0.0,
                           std::numeric_limits<double>::infinity(), std::nan("")};
  for (const pair_kernels& k : every_arch()) {
    for (double scale : scales) {
      std::vector<double> a(xs.size()), b(xs.size());
      k.old_f64(xs.data(), a.data(), static_cast<int64_t>(xs.size()), scale);
      k.new_f64(xs.data(), b.data(), static_cast<int64_t>(xs.size()), scale);
      const int64_t at = first_difference(a, b);
      ASSERT_EQ(at, -1) << k.name << " scale " << scale << " x = " << xs[static_cast<size_t>(at)]
                        << std::hex << " old " << std::bit_cast<uint64_t>(a[static_cast<size_t>(at)])
                        << " new " << std::bit_cast<uint64_t>(b[static_cast<size_t>(at)]) << " x "
                        << std::bit_cast<uint64_t>(xs[static_cast<size_t>(at)]);
    }
  }
}

}  // namespace
}  // namespace tessera
