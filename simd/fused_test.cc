// fused_fma and fused_fnma on every ISA the machine has: one rounding (std::fma) on avx2,
// avx512bw and neon64, a product then a sum (two roundings) on sse4_2, for inputs where the two differ.
// And divide: the scalar division's result, bit for bit, on every ISA.
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/internal/op_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

struct fused_kernels {
  std::string name;
  bool fused;  // one rounding
  void (*f32)(const float*, const float*, const float*, float*, float*, int64_t);
  void (*f64)(const double*, const double*, const double*, double*, double*, int64_t);
};

template <class Arch>
fused_kernels kernels_of(const char* name, bool fused) {
  return {name, fused, &internal::fused_f32_kernel<Arch>, &internal::fused_f64_kernel<Arch>};
}

std::vector<fused_kernels> every_arch() {
#if defined(__aarch64__)
  std::vector<fused_kernels> result = {kernels_of<xsimd::neon64>("neon64", true)};
#else
  std::vector<fused_kernels> result = {kernels_of<xsimd::sse4_2>("sse4_2", false)};
  if (detected_isa() >= isa::avx2) result.push_back(kernels_of<xsimd::avx2>("avx2", true));
  if (detected_isa() >= isa::avx512bw) {
    result.push_back(kernels_of<xsimd::avx512bw>("avx512bw", true));
  }
#endif
  return result;
}

// a * b close to -c, so the product's rounding shows in the result: a = 1 + u, b = 1 - u,
// c = -1 (a * b = 1 - u^2, exact only with one rounding), and random ones.
template <class T, class Kernel>
void expect_roundings(const fused_kernels& k, Kernel kernel) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<T> dist(-4, 4);
  const int n = 1024;
  std::vector<T> a(n), b(n), c(n), fma(n), fnma(n);
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      const T u = std::ldexp(T(1), -(i % 40) / 2 - 8);
      a[i] = 1 + u;
      b[i] = 1 - u;
      c[i] = i % 4 == 0 ? T(-1) : T(1);
    } else {
      a[i] = dist(gen);
      b[i] = dist(gen);
      c[i] = -a[i] * b[i] + dist(gen) * T(1e-3);
    }
  }
  kernel(a.data(), b.data(), c.data(), fma.data(), fnma.data(), n);
  int differ = 0;  // lanes where one rounding and two give different results
  for (int i = 0; i < n; ++i) {
    const T product = a[i] * b[i];
    const T want_fma = k.fused ? std::fma(a[i], b[i], c[i]) : product + c[i];
    const T want_fnma = k.fused ? std::fma(-a[i], b[i], c[i]) : c[i] - product;
    ASSERT_EQ(fma[i], want_fma) << k.name << " " << i;
    ASSERT_EQ(fnma[i], want_fnma) << k.name << " " << i;
    differ += std::fma(a[i], b[i], c[i]) != product + c[i];
  }
  EXPECT_GT(differ, n / 4) << "inputs that tell one rounding from two";
}

template <class Arch>
std::pair<std::string, void (*)(const float*, const float*, float*, int64_t)> divide_of(
    const char* name) {
  return {name, &internal::divide_f32_kernel<Arch>};
}

TEST(Divide, F32EqualsScalarDivisionOnEveryIsa) {
#if defined(__aarch64__)
  const std::vector kernels = {divide_of<xsimd::neon64>("neon64")};
#else
  std::vector kernels = {divide_of<xsimd::sse4_2>("sse4_2")};
  if (detected_isa() >= isa::avx2) kernels.push_back(divide_of<xsimd::avx2>("avx2"));
  if (detected_isa() >= isa::avx512bw) kernels.push_back(divide_of<xsimd::avx512bw>("avx512bw"));
#endif
  // Random quotients, a reorder's x / dst_scale (the case that showed a reciprocal's ulp), and
  // denormal, huge and special operands.
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1000, 1000);
  const int n = 4096;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = dist(gen);
    b[i] = dist(gen);
  }
  const float specials[] = {0.9f, 3.f, 0.1f, 1e-40f, -1e-42f, 3e38f, -0.f, 0.f,
                            INFINITY, -INFINITY, NAN, 7.f, 1.f / 3, 1e-20f, 255.f, 0.5f};
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      a[256 * i + 16 + j] = specials[i];
      b[256 * i + 16 + j] = specials[j];
    }
  }
  for (const auto& [name, kernel] : kernels) {
    std::vector<float> out(n);
    kernel(a.data(), b.data(), out.data(), n);
    for (int i = 0; i < n; ++i) {
      const float want = a[i] / b[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(out[i])) << name << " " << a[i] << " / " << b[i];
      } else {
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want))
            << name << " " << a[i] << " / " << b[i] << " gave " << out[i] << " want " << want;
      }
    }
  }
}

TEST(Fused, F32RoundingsOnEveryIsa) {
  for (const fused_kernels& k : every_arch()) expect_roundings<float>(k, k.f32);
}

TEST(Fused, F64RoundingsOnEveryIsa) {
  for (const fused_kernels& k : every_arch()) expect_roundings<double>(k, k.f64);
}

}  // namespace
}  // namespace tessera::simd
