// table_lookup and table_lookup2 on every ISA the machine has (vpermps, vpermt2ps, vpermt2pd
// where the ISA has them, the lane loop elsewhere) against the table entry the index's low bits
// name, with the index's other bits set at random.
#include "tessera/simd/table_lookup.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/internal/op_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

struct lookup_kernels {
  std::string name;
  int f32_lanes;
  void (*f32)(const float*, const float*, const int32_t*, float*, float*, int64_t);
  void (*f64)(const double*, const double*, const int64_t*, double*, double*, int64_t);
};

template <class Arch>
lookup_kernels kernels_of(const char* name) {
  return {name, f32_lanes<Arch>, &internal::table_lookup_f32_kernel<Arch>,
          &internal::table_lookup_f64_kernel<Arch>};
}

std::vector<lookup_kernels> every_arch() {
#if defined(__aarch64__)
  std::vector<lookup_kernels> result = {kernels_of<xsimd::neon64>("neon64")};
#else
  std::vector<lookup_kernels> result = {kernels_of<xsimd::sse4_2>("sse4_2")};
  if (detected_isa() >= isa::avx2) result.push_back(kernels_of<xsimd::avx2>("avx2"));
  if (detected_isa() >= isa::avx512bw) result.push_back(kernels_of<xsimd::avx512bw>("avx512bw"));
#endif
  return result;
}

// Indices whose low bits cover every entry at every lane, the high bits random (as the exps'
// indices, which are the bits of a float near 1.5 * 2^23).
template <class I>
std::vector<I> indices(int count, std::mt19937_64& gen) {
  std::vector<I> v(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    v[static_cast<size_t>(i)] = static_cast<I>((gen() & ~static_cast<uint64_t>(63)) | (i % 64));
  }
  return v;
}

template <class T, class I, class Kernel>
void expect_entries(const lookup_kernels& k, int lanes, Kernel kernel) {
  std::mt19937_64 gen(7);
  std::vector<T> table(static_cast<size_t>(3 * lanes));
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<T>(1000 + 3 * i) / 8;
  const T* one = table.data() + 2 * lanes;  // the one-register table: entries 2N .. 3N - 1
  const int n = 64 * lanes;
  const std::vector<I> at = indices<I>(n, gen);
  std::vector<T> out(static_cast<size_t>(n)), out2(static_cast<size_t>(n));
  kernel(one, table.data(), at.data(), out.data(), out2.data(), n);
  const auto mask1 = static_cast<uint64_t>(lanes - 1), mask2 = static_cast<uint64_t>(2 * lanes - 1);
  for (int i = 0; i < n; ++i) {
    const auto bits = static_cast<uint64_t>(at[static_cast<size_t>(i)]);
    ASSERT_EQ(out[static_cast<size_t>(i)], one[bits & mask1]) << k.name << " lane " << i;
    ASSERT_EQ(out2[static_cast<size_t>(i)], table[bits & mask2]) << k.name << " lane " << i;
  }
}

TEST(TableLookup, F32EntriesOnEveryIsa) {
  for (const lookup_kernels& k : every_arch()) expect_entries<float, int32_t>(k, k.f32_lanes, k.f32);
}

TEST(TableLookup, F64EntriesOnEveryIsa) {
  for (const lookup_kernels& k : every_arch()) {
    expect_entries<double, int64_t>(k, k.f32_lanes / 2, k.f64);
  }
}

}  // namespace
}  // namespace tessera::simd
