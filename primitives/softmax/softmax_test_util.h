// Helpers shared by the softmax tests: layouts, buffers, random fills, kernel filters.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_TEST_UTIL_H_
#define TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tessera/core/convert.h"
#include "tessera/core/memory_desc.h"
#include "tessera/simd/isa.h"

namespace tessera::softmax_test {

// A plain layout: `order` lists dims outermost first; `gap` > 1 leaves unused room after each
// row of the innermost dim (a strided, non-dense layout).
inline memory_desc plain(std::vector<dim_t> dims, data_type dt, std::vector<int> order = {},
                         dim_t gap = 0) {
  const int rank = static_cast<int>(dims.size());
  if (order.empty()) {
    order.resize(rank);
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<dim_t> strides(rank);
  dim_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = s;
    s *= std::max<dim_t>(dims[order[i]], 1) + (i == rank - 1 ? gap : 0);
  }
  return *memory_desc::with_strides(dims, dt, strides);
}

// Dims in order, dim `bdim` blocked by `block` innermost (like nChw16c for bdim 1, block 16).
inline memory_desc blocked(std::vector<dim_t> dims, data_type dt, int bdim, dim_t block) {
  const int rank = static_cast<int>(dims.size());
  blocking_desc b;
  b.inner_nblks = 1;
  b.inner_blks[0] = block;
  b.inner_idxs[0] = bdim;
  dim_t s = block;
  for (int d = rank - 1; d >= 0; --d) {
    b.strides[d] = s;
    const dim_t outer = d == bdim ? (dims[d] + block - 1) / block : dims[d];
    s *= std::max<dim_t>(outer, 1);
  }
  return *memory_desc::with_blocking(dims, dt, b);
}

// A zeroed byte buffer for md.
inline std::vector<uint8_t> buffer(const memory_desc& md, uint8_t fill = 0) {
  return std::vector<uint8_t>(static_cast<size_t>(md.size_bytes()), fill);
}

// The kernel filters that force each ISA's xsimd kernels, and the reference kernel. ISAs the CPU
// lacks are left out (the dispatcher would fall back and the test would not test what it says).
inline std::vector<std::string> kernel_filters() {
  std::vector<std::string> f;
  for (simd::isa i : simd::cpu_isas()) f.push_back("xsimd:" + std::string(simd::name_of(i)) + ":");
  f.push_back("ref");
  return f;
}

inline double max_of(data_type dt) {
  return dt == data_type::s8 ? 127 : dt == data_type::u8 ? 255 : 0;
}
inline double min_of(data_type dt) { return dt == data_type::s8 ? -128 : 0; }

// Unit in the last place of the type at magnitude v (bf16: 8 significant bits, f16: 11 with
// denormals from 2^-14).
inline double ulp_of(data_type dt, double v) {
  v = std::fabs(v);
  int e = v > 0 ? std::ilogb(v) : -1000;
  switch (dt) {
    case data_type::bf16: return std::ldexp(1.0, std::max(e, -126) - 7);
    case data_type::f16: return std::ldexp(1.0, std::max(e, -14) - 10);
    case data_type::f32: return std::ldexp(1.0, std::max(e, -126) - 23);
    case data_type::f64: return std::ldexp(1.0, std::max(e, -1022) - 52);
    default: return 1;
  }
}

}  // namespace tessera::softmax_test

#endif  // TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_TEST_UTIL_H_
