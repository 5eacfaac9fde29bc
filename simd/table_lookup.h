// Lane lookups in small tables held in registers: lane i of the result is the table entry that
// the low bits of lane i of an integer index batch name. xsimd 8.1's swizzle takes its indices at
// compile time; these take them at run time, as the exps' tables of 2^(j/N) need. Each has a
// portable version (a loop over the lanes) and one instruction where the ISA has it:
//
//   table_lookup(table, index)          entry index[i] mod N of one batch of N lanes
//                                       (vpermps: avx2, 8 lanes; avx512, 16 lanes)
//   table_lookup2(low, high, index)     entry index[i] mod 2N of low's N lanes then high's
//                                       (vpermt2ps for f32, vpermt2pd for f64: avx512)
//
//   const xsimd::batch<float, A> table(1.f, 2.f, 4.f, 8.f, 16.f, 32.f, 64.f, 128.f);  // avx2
//   auto bits = xsimd::bitwise_cast<xsimd::batch<int32_t, A>>(shifted);  // any high bits
//   auto entry = tessera::simd::table_lookup(table, bits);                 // table[bits & 7]
//
// Contract: only the low log2(N) (table_lookup) or log2(2N) (table_lookup2) bits of each index
// lane are read; the others may hold anything. The index lanes are as wide as the table's.
#ifndef TESSERA_SIMD_TABLE_LOOKUP_H_
#define TESSERA_SIMD_TABLE_LOOKUP_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "xsimd/xsimd.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tessera::simd {

// The signed integer of a table entry's width: the lane type of its index batch.
template <class T>
using table_index_t = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;

template <class T, class Arch>
inline xsimd::batch<T, Arch> table_lookup(xsimd::batch<T, Arch> table,
                                          xsimd::batch<table_index_t<T>, Arch> index) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float> && sizeof(table) == 64) {
    return _mm512_permutexvar_ps(index, table);
  }
#endif
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float> && sizeof(table) == 32) {
    return _mm256_permutevar8x32_ps(table, index);
  }
#endif
  using batch = xsimd::batch<T, Arch>;
  constexpr std::size_t kLanes = batch::size;
  alignas(64) T entries[kLanes];
  alignas(64) table_index_t<T> indices[kLanes];
  alignas(64) T result[kLanes];
  table.store_aligned(entries);
  index.store_aligned(indices);
  for (std::size_t i = 0; i < kLanes; ++i) {
    result[i] = entries[static_cast<std::size_t>(indices[i]) & (kLanes - 1)];
  }
  return batch::load_aligned(result);
}

template <class T, class Arch>
inline xsimd::batch<T, Arch> table_lookup2(xsimd::batch<T, Arch> low, xsimd::batch<T, Arch> high,
                                           xsimd::batch<table_index_t<T>, Arch> index) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float> && sizeof(low) == 64) {
    return _mm512_permutex2var_ps(low, index, high);
  } else if constexpr (std::is_same_v<T, double> && sizeof(low) == 64) {
    return _mm512_permutex2var_pd(low, index, high);
  }
#endif
  using batch = xsimd::batch<T, Arch>;
  constexpr std::size_t kLanes = batch::size;
  alignas(64) T entries[2 * kLanes];
  alignas(64) table_index_t<T> indices[kLanes];
  alignas(64) T result[kLanes];
  low.store_aligned(entries);
  high.store_aligned(entries + kLanes);
  index.store_aligned(indices);
  for (std::size_t i = 0; i < kLanes; ++i) {
    result[i] = entries[static_cast<std::size_t>(indices[i]) & (2 * kLanes - 1)];
  }
  return batch::load_aligned(result);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_TABLE_LOOKUP_H_
