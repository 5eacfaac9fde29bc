// How a transposed tile's columns map to dst (plain, grouped, listed, wrapped) and the src
// prefetches of the tile walks. Per-ISA code: included only from vector_kernels.cc.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_COLUMNS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_COLUMNS_H_

#include <algorithm>
#include <cstdint>

#include "tessera/primitives/reorder/internal/vector_kernels.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// The dst offsets of a tile's columns i = 0, 1, ... (the tile starting at column c0).
// all_aligned64: whether dst + column i is 64-byte aligned for every i < n.
struct plain_tile_columns {
  int64_t base, ld;
  int64_t operator()(int i) const { return base + i * ld; }
  template <class T>
  bool all_aligned64(const T* dst, int) const {
    return reinterpret_cast<uintptr_t>(dst + base) % 64 == 0 && (ld * sizeof(T)) % 64 == 0;
  }
};
// Column offsets listed one by one (at most a tile's 16).
struct listed_tile_columns {
  int64_t off[16];
  int64_t operator()(int i) const { return off[i]; }
  template <class T>
  bool all_aligned64(const T* dst, int n) const {
    for (int i = 0; i < n; ++i) {
      if (reinterpret_cast<uintptr_t>(dst + off[i]) % 64 != 0) return false;
    }
    return true;
  }
};
struct grouped_tile_columns : listed_tile_columns {
  grouped_tile_columns(const dst_columns& m, int64_t c0, int n) {
    int64_t g = c0 / m.group, k = c0 % m.group;
    for (int i = 0; i < n; ++i) {
      off[i] = g * m.group_ld + k * m.ld;
      if (++k == m.group) k = 0, ++g;
    }
  }
};
// A wrapped tile's columns (transpose_tiles): lanes [0, tail) are a strip's last `tail` columns,
// lanes [tail, 16) its first 16 - tail.
template <class Cols>
listed_tile_columns wrapped_tile_columns(const Cols& last, const Cols& first, int tail) {
  listed_tile_columns w;
  for (int i = 0; i < 16; ++i) w.off[i] = i < tail ? last(i) : first(i - tail);
  return w;
}

// Calls body(tile_columns_at) with the column mapping of `m`, as a type the kernels inline.
template <class Body>
void with_tile_columns(const dst_columns& m, int64_t cols, Body&& body) {
  if (m.group > 0 && m.group < cols) {
    body([&m](int64_t c0, int n) { return grouped_tile_columns(m, c0, n); });
  } else {
    body([ld = m.ld](int64_t c0, int) { return plain_tile_columns{c0 * ld, ld}; });
  }
}

// Issues the prefetches (to L2) for the src lines of rows [r0, r1) of a block `cols` elements
// wide, a few at a time (next(n)), in row order: a row's lines follow each other, the order DRAM
// serves best.
template <class T>
class band_prefetcher {
 public:
  band_prefetcher(const T* src, int64_t src_ld, int64_t cols, int64_t r0, int64_t r1)
      : row_step_(src_ld * static_cast<int64_t>(sizeof(T))),
        // An address only (rows past the last are never formed as pointers).
        row_(reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(r0 * row_step_)),
        rows_left_(std::max<int64_t>(0, r1 - r0)),
        // Lines from the one holding a row's first byte to the one holding its last: one more
        // than the row's bytes need when rows start off a line.
        lines_((cols * static_cast<int64_t>(sizeof(T)) + 63) / 64 +
               (row_step_ % 64 != 0 || row_ % 64 != 0 ? 1 : 0)) {}
  int64_t total() const { return rows_left_ * lines_; }
  void next(int64_t n) {
    for (; n > 0 && rows_left_ > 0; --n) {
      simd::prefetch<simd::locality::l2>(
          reinterpret_cast<const void*>(row_ / 64 * 64 + 64 * line_));
      if (++line_ == lines_) line_ = 0, row_ += row_step_, --rows_left_;
    }
  }

 private:
  int64_t row_step_;
  uintptr_t row_;
  int64_t rows_left_, lines_, line_ = 0;
};

// Prefetches, to L2, the line `bytes` past p. The address may lie past the buffer (past a
// strip's last column; prefetches never fault), so it is formed as an integer, never as a
// pointer past the end.
[[gnu::always_inline]] inline void prefetch_l2_ahead(const void* p, int64_t bytes) {
  simd::prefetch<simd::locality::l2>(
      reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + bytes));
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_COLUMNS_H_
