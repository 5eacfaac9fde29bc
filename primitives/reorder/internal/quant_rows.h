// The weight compression and decompression rows (quant_row_fn): f32, bf16 or f16 to s4 or u4 and
// back, with scales and zero points per column or one per row, applied in apply_one's order on
// f32 lanes. Per-ISA code: included only from vector_kernels.cc (simd/per_isa.h).
//
// Every element takes the one vector path: the elements before the wide side's first cache line
// and the row's last partial vector are copied into a vector's worth of local buffers and back,
// so partial and whole vectors agree by construction, and all agree with the element-wise
// reference (s4 / u4 round half to even and saturate, NaN -> 7 / 0, as
// <tessera/core/low_precision.h>).
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROWS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROWS_H_

#include <cstdint>
#include <cstring>

#include "tessera/core/data_type.h"
#include "tessera/primitives/reorder/internal/convert_runs.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"
#include "tessera/simd/math.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/nibbles.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

template <data_type T>
inline constexpr bool is_nibble_v = T == data_type::s4 || T == data_type::u4;

// The C++ element of a side that is not 4-bit.
template <data_type T>
struct wide_element;
template <>
struct wide_element<data_type::f32> { using type = float; };
template <>
struct wide_element<data_type::bf16> { using type = bf16; };
template <>
struct wide_element<data_type::f16> { using type = f16; };

// Bytes of `count` elements of T (count even for a 4-bit T).
template <data_type T>
constexpr int64_t row_bytes(int64_t count) {
  if constexpr (is_nibble_v<T>) {
    return count / 2;
  } else {
    return count * static_cast<int64_t>(sizeof(typename wide_element<T>::type));
  }
}

// Elements [j, j + size) of the row at src as f32 lanes (exact).
template <class Arch, data_type S>
[[gnu::always_inline]] inline f32x<Arch> load_row_lanes(const void* src, int64_t j) {
  if constexpr (is_nibble_v<S>) {
    const auto* bytes = static_cast<const uint8_t*>(src) + j / 2;
    return xsimd::to_float(simd::load_nibbles<S == data_type::s4, Arch>(bytes));
  } else {
    using T = typename wide_element<S>::type;
    return load_as_f32<Arch>(static_cast<const T*>(src) + j);
  }
}

// x converted to D into elements [j, j + size) of the row at dst. kStream: a non-temporal store
// (AVX-512, f32 or bf16 dst aligned on the stored width).
template <class Arch, data_type D, bool kStream = false>
[[gnu::always_inline]] inline void store_row_lanes(void* dst, int64_t j, f32x<Arch> x) {
  if constexpr (is_nibble_v<D>) {
    constexpr bool kSigned = D == data_type::s4;
    const s32x<Arch> codes = to_int_saturated<Arch>(x, kSigned ? -8.f : 0.f, kSigned ? 7.f : 15.f,
                                                    kSigned ? 7.f : 0.f);
    simd::store_nibbles(static_cast<uint8_t*>(dst) + j / 2, codes);
  } else {
    using T = typename wide_element<D>::type;
    store_from_f32<Arch, T, kStream>(x, static_cast<T*>(dst) + j);
  }
}

template <class Arch>
[[gnu::always_inline]] inline f32x<Arch> operand_lanes(const row_operand& o, int64_t j) {
  return o.per_column ? f32x<Arch>::load_unaligned(o.values + j) : f32x<Arch>(o.values[0]);
}

// Elements [j, j + size) of one row.
template <class Arch, data_type S, data_type D, bool kStream = false>
[[gnu::always_inline]] inline void quant_row_vector(const void* src, void* dst, int64_t j,
                                                    const row_quant& q) {
  f32x<Arch> x = load_row_lanes<Arch, S>(src, j);
  if (q.src_zp.values) x = x - operand_lanes<Arch>(q.src_zp, j);
  if (q.src_scale.values) x = x * operand_lanes<Arch>(q.src_scale, j);
  if (q.dst_scale.values) x = simd::divide(x, operand_lanes<Arch>(q.dst_scale, j));
  if (q.dst_zp.values) x = x + operand_lanes<Arch>(q.dst_zp, j);
  store_row_lanes<Arch, D, kStream>(dst, j, x);
}

// The per-column operand values of columns [j, j + count) of q, copied into `lanes` (the rest of
// its size lanes set to 1) so that a partial vector reads only initialized values.
template <class Arch>
void copy_partial_operand(row_operand& o, int64_t j, int64_t count, float* lanes) {
  if (o.values == nullptr || !o.per_column) return;
  for (int64_t k = 0; k < static_cast<int64_t>(f32x<Arch>::size); ++k) {
    lanes[k] = k < count ? o.values[j + k] : 1.f;
  }
  o.values = lanes;
}

// Elements [j, j + count) of one row, count < size (even with a 4-bit side), through a vector's
// worth of local buffers.
template <class Arch, data_type S, data_type D>
void quant_row_partial(const void* src, void* dst, int64_t j, int64_t count, const row_quant& q) {
  constexpr int64_t kLanes = f32x<Arch>::size;
  alignas(64) unsigned char src_lanes[kLanes * 4] = {}, dst_lanes[kLanes * 4];
  alignas(64) float operands[4][kLanes];
  row_quant t = q;
  copy_partial_operand<Arch>(t.src_zp, j, count, operands[0]);
  copy_partial_operand<Arch>(t.src_scale, j, count, operands[1]);
  copy_partial_operand<Arch>(t.dst_scale, j, count, operands[2]);
  copy_partial_operand<Arch>(t.dst_zp, j, count, operands[3]);
  std::memcpy(src_lanes, static_cast<const char*>(src) + row_bytes<S>(j),
              static_cast<size_t>(row_bytes<S>(count)));
  quant_row_vector<Arch, S, D>(src_lanes, dst_lanes, 0, t);
  std::memcpy(static_cast<char*>(dst) + row_bytes<D>(j), dst_lanes,
              static_cast<size_t>(row_bytes<D>(count)));
}

// Whether stores of D may stream on this Arch (store_from_f32's non-temporal forms).
template <class Arch, data_type D>
inline constexpr bool kStreamable = kAvx512<Arch> && (D == data_type::f32 || D == data_type::bf16);

// How far ahead of its loads a compression row prefetches src (bytes): 4 KB measured best of
// 0.5 to 8 KB (`bazel run -c opt //bench/reorder:reorder_bench --
// --benchmark_filter='4096_g'`).
inline constexpr int64_t kPrefetchBytes = 4096;

// stream: dst is large; with AVX-512, f32 and bf16 stores then go around the cache, and the
// caller fences them (simd::store_fence) once its rows are done.
template <class Arch, data_type S, data_type D>
void quant_row(const void* src, void* dst, int64_t n, const row_quant& given, bool stream) {
  // A local copy: the byte stores of a 4-bit dst may alias anything, and the compiler would
  // reload every operand pointer after each of them.
  const row_quant q = given;
  constexpr int64_t kLanes = f32x<Arch>::size;
  // The elements before the wide side's first cache line take the partial path, so that none of
  // its vector accesses straddles two lines (with malloc's 16-byte offset every 64-byte one
  // would). An odd count would leave the 4-bit side off its bytes: then the row stays as it is.
  constexpr bool kWideSrc = !is_nibble_v<S>;
  constexpr int64_t kWideBytes = kWideSrc ? row_bytes<S>(1) : row_bytes<D>(1);
  const auto wide = reinterpret_cast<uintptr_t>(kWideSrc ? src : dst);
  int64_t head =
      wide % kWideBytes == 0 ? static_cast<int64_t>((64 - wide % 64) % 64) / kWideBytes : 0;
  if (head % 2 != 0 || head > n) head = 0;
  int64_t j = 0;
  for (; j < head; j += kLanes) {
    quant_row_partial<Arch, S, D>(src, dst, j, std::min(kLanes, head - j), q);
  }
  j = head;
  if constexpr (kStreamable<Arch, D>) {
    const auto dst_at_j = reinterpret_cast<uintptr_t>(static_cast<char*>(dst) + row_bytes<D>(j));
    if (stream && dst_at_j % 64 == 0) {
      for (; j + kLanes <= n; j += kLanes) quant_row_vector<Arch, S, D, true>(src, dst, j, q);
    }
  }
  if constexpr (kWideSrc) {
    // Compression reads 8 bytes for every 1 it writes: the hardware prefetcher alone leaves the
    // loads waiting (f32 -> u4 4096x4096, groups of 128, 1 thread, AVX-512 Zen 5: 5.5 ms without,
    // 3.4 ms with, oneDNN's f32 -> s8 4.0 ms). Prefetches never fault past the end of src.
    for (; j + kLanes <= n; j += kLanes) {
      simd::prefetch<simd::locality::l1>(static_cast<const char*>(src) + row_bytes<S>(j) +
                                         kPrefetchBytes);
      quant_row_vector<Arch, S, D>(src, dst, j, q);
    }
  }
  for (; j + kLanes <= n; j += kLanes) quant_row_vector<Arch, S, D>(src, dst, j, q);
  if (j < n) quant_row_partial<Arch, S, D>(src, dst, j, n - j, q);
}

// The row kernel of (s, d), or nullptr.
template <class Arch>
quant_row_fn* quant_row_for(data_type s, data_type d) {
  using dt = data_type;
  auto with_wide = [](dt nibble, auto wide_tag, bool to_nibble) -> quant_row_fn* {
    constexpr dt W = decltype(wide_tag)::value;
    if (nibble == dt::s4) return to_nibble ? &quant_row<Arch, W, dt::s4> : &quant_row<Arch, dt::s4, W>;
    return to_nibble ? &quant_row<Arch, W, dt::u4> : &quant_row<Arch, dt::u4, W>;
  };
  const bool to_nibble = d == dt::s4 || d == dt::u4;
  const dt nibble = to_nibble ? d : s, wide = to_nibble ? s : d;
  if (nibble != dt::s4 && nibble != dt::u4) return nullptr;
  switch (wide) {
    case dt::f32: return with_wide(nibble, std::integral_constant<dt, dt::f32>{}, to_nibble);
    case dt::bf16: return with_wide(nibble, std::integral_constant<dt, dt::bf16>{}, to_nibble);
    case dt::f16: return with_wide(nibble, std::integral_constant<dt, dt::f16>{}, to_nibble);
    default: return nullptr;
  }
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROWS_H_
