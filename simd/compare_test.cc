// not_greater_equal and not_equal on every ISA the machine has: for every pair from a set of
// values that includes NaNs, infinities, signed zeros and neighbours, the lanes are !(a >= b) and
// a != b, as C++ computes them on scalars.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/internal/op_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

template <class T>
std::vector<T> edge_values() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  return {T(0), -T(0), T(1), T(-1), std::nextafter(T(1), T(2)), std::nextafter(T(-86.5), T(0)),
          T(-86.5), T(1e-40), std::numeric_limits<T>::denorm_min(), inf, -inf, nan, -nan};
}

// Every (a, b) pair of edge_values, run through kernel in one call; each lane must be expected(a, b).
template <class T, class Kernel, class Expected>
void expect_every_pair(const std::string& isa_name, Kernel kernel, Expected expected) {
  const std::vector<T> values = edge_values<T>();
  std::vector<T> a, b;
  for (T x : values) {
    for (T y : values) a.push_back(x), b.push_back(y);
  }
  while (a.size() % 16 != 0) a.push_back(T(0)), b.push_back(T(0));
  const auto out = std::make_unique<bool[]>(a.size());
  kernel(a.data(), b.data(), out.get(), static_cast<int64_t>(a.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(out[i], expected(a[i], b[i])) << isa_name << ": " << a[i] << " vs " << b[i];
  }
}

template <class Arch>
void expect_on(const std::string& isa_name) {
  const auto not_greater_equal = [](auto x, auto y) { return !(x >= y); };
  const auto not_equal = [](auto x, auto y) { return x != y; };
  expect_every_pair<float>(isa_name, &internal::not_greater_equal_f32_kernel<Arch>,
                           not_greater_equal);
  expect_every_pair<double>(isa_name, &internal::not_greater_equal_f64_kernel<Arch>,
                            not_greater_equal);
  expect_every_pair<float>(isa_name, &internal::not_equal_f32_kernel<Arch>, not_equal);
  expect_every_pair<double>(isa_name, &internal::not_equal_f64_kernel<Arch>, not_equal);
}

TEST(UnorderedCompares, NanLanesFollowScalarCppOnEveryIsa) {
#if defined(__aarch64__)
  expect_on<xsimd::neon64>("neon64");
#else
  expect_on<xsimd::sse4_2>("sse4_2");
  if (detected_isa() >= isa::avx2) expect_on<xsimd::avx2>("avx2");
  if (detected_isa() >= isa::avx512bw) expect_on<xsimd::avx512bw>("avx512bw");
#endif
}

}  // namespace
}  // namespace tessera::simd
