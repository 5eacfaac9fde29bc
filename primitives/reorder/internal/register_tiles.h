// The reorder's register tiles: one tile of a transpose moved through registers (16x16 f32 on
// avx512bw, 8x8 and 16x8 on avx2, 16x16 bytes and words on every ISA), built from the simd/
// transposes, masked tails and line-shaped stores; move_tile picks one for a tile.
// Per-ISA code: included only from vector_kernels.cc.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_REGISTER_TILES_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_REGISTER_TILES_H_

#include <algorithm>
#include <cstdint>

#include "tessera/primitives/reorder/internal/convert_runs.h"
#include "tessera/primitives/reorder/internal/tile_columns.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/lines.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/tail.h"
#include "tessera/simd/transpose.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// The in-register transpose of 32-bit tiles: 16x16 on avx512bw, 8x8 on avx2, none on sse4_2.
template <class Arch>
inline constexpr int kRegisterTile =
    kAvx512<Arch> ? 16 : simd::isa_of<Arch> == simd::isa::avx2 ? 8 : 0;

// Loads rows [0, rn) of cn lanes (masked: no access past them; f16 widened exactly), zeros
// elsewhere, and transposes: r[i] is column i.
template <class Arch, class T>
[[gnu::always_inline]] inline void load_transposed(const T* src, int64_t src_ld, int rn, int cn,
                                                   f32x<Arch>* r) {
  constexpr int kN = f32x<Arch>::size;
  if (rn == kN && cn == kN) {
    for (int i = 0; i < kN; ++i) r[i] = simd::load_f32<Arch>(src + i * src_ld);
  } else {
    for (int i = 0; i < kN; ++i) {
      r[i] = i < rn ? simd::load_f32<Arch>(src + i * src_ld, cn) : f32x<Arch>(0.f);
    }
  }
  simd::transpose_square(r);
}

// Stores registers [0, cn) as dst rows of `lanes` lanes, row i at dst + col(i); aligned full rows
// may bypass the cache (stream).
template <class Arch, class Cols>
[[gnu::always_inline]] inline void store_rows(float* dst, const Cols& col, const f32x<Arch>* r,
                                              int cn, int lanes, bool stream) {
  if (lanes == static_cast<int>(f32x<Arch>::size)) {
    const bool aligned = col.all_aligned64(dst, cn);
    if (stream && aligned) {
      for (int i = 0; i < cn; ++i) simd::stream_store(dst + col(i), r[i]);
    } else if (aligned) {
      for (int i = 0; i < cn; ++i) r[i].store_unaligned(dst + col(i));
    } else {
      // Rows off a cache line as two 32-byte halves: with dst 16 bytes past a line (malloc's)
      // one half of each row stays within a line, where a 64-byte store always straddles two.
      // A few % on nchw -> nChw16c cold; four 16-byte stores are no better, and two masked
      // stores split at the line much slower (masked stores are slow here).
      for (int i = 0; i < cn; ++i) simd::store_halves(dst + col(i), r[i]);
    }
  } else {
    for (int i = 0; i < cn; ++i) simd::store_partial(dst + col(i), r[i], lanes);
  }
}

// AVX-512's 16x16 tile: dst rows [0, cn) of `lanes` lanes (>= rn: lanes past rn are the zeros of
// the missing rows), row i at dst + col(i); aligned full rows may bypass the cache (stream).
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x16(const float* src, int64_t src_ld, float* dst,
                                                  const Cols& col, int rn, int cn, int lanes,
                                                  bool stream) {
  if (rn == 1 && lanes == 16) {
    // One row into whole 16-lane rows (nchw -> nChw16c with C = 1): row i is src[i] and 15
    // zeros, stored straight from a scalar load (through an array of 16 registers, the
    // compiler spills every row to the stack and copies it from there). Off a line, as four
    // 16-byte stores (oneDNN's choice; none straddles a line when dst is 16-byte aligned):
    // measured faster than two 32-byte halves on 10x1x390x590 cold.
    const bool aligned = col.all_aligned64(dst, cn);
    for (int i = 0; i < cn; ++i) {
      const f32x<Arch> x = simd::load_scalar<Arch>(src + i);
      float* d = dst + col(i);
      if (stream && aligned) {
        simd::stream_store(d, x);
      } else if (aligned) {
        x.store_unaligned(d);
      } else {
        simd::store_quarters(d, x);
      }
    }
    return;
  }
  f32x<Arch> r[16];
  if (rn == 1) {
    // One row into rows of fewer than 16 lanes (a one-element block of 8, e.g. nchw -> nChw8c
    // with C = 1; whole 16-lane rows return above): each dst row is that element and zeros, one
    // masked load each, without the 64 shuffles of a transpose.
    for (int i = 0; i < cn; ++i) r[i] = simd::load_partial<Arch>(src + i, 1);
  } else {
    load_transposed<Arch>(src, src_ld, rn, cn, r);
  }
  store_rows<Arch>(dst, col, r, cn, lanes, stream);
}

// A tile whose every row is one aligned src line: lanes [0, tail) are the row's last `tail`
// columns (at `last`, on a line), lanes [tail, 16) its first 16 - tail (at `first`, which is
// `tail` elements past a line). A strip whose src rows start off a line by the same distance,
// a whole number of tiles wide, then moves in whole-line loads only, with no more tiles than
// an aligned one (a partial first and last tile would be one tile more, and split loads are
// what the alignment removes).
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose_wrapped16x16(const float* first, const float* last,
                                                          int64_t src_ld, float* dst,
                                                          const Cols& col, int tail, bool stream) {
  f32x<Arch> r[16];
  for (int i = 0; i < 16; ++i) {
    // An address only: the lanes before `first` are never read.
    const auto* line = reinterpret_cast<const float*>(
        reinterpret_cast<uintptr_t>(first + i * src_ld) - tail * sizeof(float));
    r[i] = simd::load_joined<Arch>(last + i * src_ld, line, tail);
  }
  simd::transpose_square(r);
  store_rows<Arch>(dst, col, r, 16, 16, stream);
}

// Loads 8 rows of 8 lanes and transposes them: r[i] is column i.
template <class Arch>
[[gnu::always_inline]] inline void load_transposed8x8(const float* src, int64_t src_ld,
                                                      f32x<Arch>* r) {
  for (int i = 0; i < 8; ++i) r[i] = f32x<Arch>::load_unaligned(src + i * src_ld);
  simd::transpose_square(r);
}

template <class Arch, class Cols>
inline void transpose8x8(const float* src, int64_t src_ld, float* dst, const Cols& col) {
  f32x<Arch> t[8];
  load_transposed8x8<Arch>(src, src_ld, t);
  for (int i = 0; i < 8; ++i) t[i].store_unaligned(dst + col(i));
}

// 8 rows x the first cn (< 8) columns: each row by one masked load (the lanes past cn are not
// read), the 8x8 register transpose, and cn whole dst rows of 8 stored. An element loop here
// would take much of the time of the tiny nchw -> nhwc case (2x16x3x4: 12 = 8 + 4 columns).
template <class Arch, class Cols>
inline void transpose8xN(const float* src, int64_t src_ld, float* dst, const Cols& col, int cn) {
  f32x<Arch> r[8];
  for (int i = 0; i < 8; ++i) r[i] = simd::load_partial<Arch>(src + i * src_ld, cn);
  simd::transpose_square(r);
  for (int i = 0; i < cn; ++i) r[i].store_unaligned(dst + col(i));
}

// Columns [0, 4) of 8 rows, each as one register (column j's 8 rows): every row is read as two
// 16-byte halves, row i's and row i + 4's in one register's two 128-bit lanes (vinsertf128 from
// memory), and a 4x4 transpose within each lane finishes it. With malloc's 16-byte offset no
// 16-byte load straddles a cache line (every second 32-byte row load would), and the lane swap of
// the 8x8 transpose (vperm2f128) is folded into the loads.
template <class Arch>
[[gnu::always_inline]] inline void load_transposed8x4(const float* src, int64_t src_ld,
                                                      f32x<Arch>* c) {
  for (int i = 0; i < 4; ++i) {
    c[i] = simd::load_halves<Arch>(src + i * src_ld, src + (i + 4) * src_ld);
  }
  simd::transpose_4x4_blocks(c);
}

// How the dst rows of a 16-row tile's first n columns are stored (transpose16x8, transpose16x4).
struct rows16_stores {
  bool whole_lines, quarter_lines;
  template <class Cols>
  rows16_stores(const float* dst, const Cols& col, int n, bool stream) {
    const auto at = reinterpret_cast<uintptr_t>(dst + col(0));
    const bool back_to_back = col(n - 1) - col(0) == (n - 1) * 16;
    whole_lines = stream && at % 64 == 0 && (back_to_back || col.all_aligned64(dst, n));
    quarter_lines = !whole_lines && stream && at % 16 == 0 && back_to_back;
  }
};

// Columns [h, h + 4) of a 16-row tile: each column's 16 dst elements as one row.
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x4_at(const float* src, int64_t src_ld, float* dst,
                                                    const Cols& col, int h, rows16_stores how) {
  f32x<Arch> top[4], bottom[4];
  load_transposed8x4<Arch>(src + h, src_ld, top);
  load_transposed8x4<Arch>(src + 8 * src_ld + h, src_ld, bottom);
  for (int j = 0; j < 4; ++j) {
    float* d = dst + col(h + j);
    if (how.whole_lines) {
      simd::stream_store(d, top[j]);
      simd::stream_store(d + 8, bottom[j]);
    } else if (how.quarter_lines) {
      simd::stream_quarters(d, top[j]);
      simd::stream_quarters(d + 8, bottom[j]);
    } else {
      top[j].store_unaligned(d);
      bottom[j].store_unaligned(d + 8);
    }
  }
}

// 16 rows x 8 columns: each column's 16 dst elements (64 bytes) are written at once, where
// 8-row blocks would write half of every dst row and come back for the other half after a whole
// strip of columns (out of L1 for nchw -> nChw16c's 1024-column strips). Four columns at a time
// (load_transposed8x4 on both 8-row halves): 8 result registers live, not 16; two 8x8 register
// tiles spill their 16 transposed registers to the stack. Inlined: called out of line (clang's
// choice, as transpose_tiles_avx2 has two copies of its row loop), nchw -> nChw16c runs slower.
// stream (a large dst): rows on a cache line, or the tile's rows back to back (16-lane blocks:
// nChw16c), go around the cache; rows that are neither would leave partial lines behind.
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x8(const float* src, int64_t src_ld, float* dst,
                                                 const Cols& col, bool stream) {
  const rows16_stores how(dst, col, 8, stream);
  transpose16x4_at<Arch>(src, src_ld, dst, col, 0, how);
  transpose16x4_at<Arch>(src, src_ld, dst, col, 4, how);
}

// 16 rows x 4 columns: a partial column tile's first four columns by 16-byte loads (no lane
// past them is read), where two masked 8-row tiles (transpose8xN) took 16 masked loads and 48
// shuffles for the same 64 elements.
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x4(const float* src, int64_t src_ld, float* dst,
                                                 const Cols& col, bool stream) {
  transpose16x4_at<Arch>(src, src_ld, dst, col, 0, rows16_stores(dst, col, 4, stream));
}

// AVX2: one src row into dst rows of 16 lanes (nchw -> nChw16c with C = 1): row i is src[i] and
// 15 zeros, as four 16-byte stores (none straddles a line when dst is 16-byte aligned), streamed
// for a large dst. Row blocks of the 8-row register tile would write each row in two passes,
// the second after the first has left L1.
template <class Arch, class Cols>
inline void one_row_into_rows16(const float* src, float* dst, const Cols& col, int cn,
                                bool stream) {
  const f32x<Arch> zero(0.f);
  for (int i = 0; i < cn; ++i) {
    const f32x<Arch> x = simd::load_scalar<Arch>(src + i);
    float* d = dst + col(i);
    if (stream && reinterpret_cast<uintptr_t>(d) % 16 == 0) {
      simd::stream_quarters(d, x);
      simd::stream_quarters(d + 8, zero);
    } else {
      simd::store_quarters(d, x);
      simd::store_quarters(d + 8, zero);
    }
  }
}

// AVX-512's one_row_into_rows16: row i (src[i] and 15 zeros) as one 64-byte store, streamed
// when dst is large and the row is on a line. The 16x16 register tile, one row of it data,
// spends 64 shuffles per 16 elements, which bind nchw -> nChw16c 10x1x390x590 (there slower
// than avx2's one_row_into_rows16).
template <class Arch, class Cols>
inline void one_row_into_lines16(const float* src, float* dst, const Cols& col, int cn,
                                 bool stream) {
  for (int i = 0; i < cn; ++i) {
    const f32x<Arch> x = simd::load_partial<Arch>(src + i, 1);
    float* d = dst + col(i);
    if (stream && reinterpret_cast<uintptr_t>(d) % 64 == 0) {
      simd::stream_store(d, x);
    } else {
      x.store_unaligned(d);
    }
  }
}

// Inlined: called from two tile loops, it is otherwise compiled out of line, its 16 rows kept in
// memory.
template <class Arch, class T, class Cols>
[[gnu::always_inline]] inline void register_tile(const T* src, int64_t src_ld, T* dst,
                                                 const Cols& col, bool stream) {
  [[maybe_unused]] const float* s = reinterpret_cast<const float*>(src);
  [[maybe_unused]] float* d = reinterpret_cast<float*>(dst);
  if constexpr (kRegisterTile<Arch> == 16) {
    transpose16x16<Arch>(s, src_ld, d, col, 16, 16, 16, stream);
  } else if constexpr (kRegisterTile<Arch> == 8) {
    transpose8x8<Arch>(s, src_ld, d, col);
  }
}

// A full 16x16 tile of 8-bit elements (simd::transpose_16x16_u8: four unpack rounds in SSE
// registers). A byte at a time, these tiles run far below memcpy's and oneDNN's speed (s8
// nchw -> nhwc 32x64x56x56).
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x16_bytes(const uint8_t* src, int64_t src_ld,
                                                        uint8_t* dst, const Cols& col) {
  simd::transpose_16x16_u8<Arch>(src, src_ld, [&](int i) { return dst + col(i); });
}

// A full 16x16 tile of 16-bit elements as four 8x8 quarters (simd::transpose_8x8_u16).
template <class Arch, class Cols>
[[gnu::always_inline]] inline void transpose16x16_words(const uint16_t* src, int64_t src_ld,
                                                        uint16_t* dst, const Cols& col) {
  for (int rq = 0; rq < 2; ++rq) {
    for (int cq = 0; cq < 2; ++cq) {
      simd::transpose_8x8_u16<Arch>(src + 8 * rq * src_ld + 8 * cq, src_ld,
                                    [&](int i) { return dst + col(8 * cq + i) + 8 * rq; });
    }
  }
}

// The tile edge of transpose_tiles: the register tile for 32-bit elements, else 16.
template <class Arch, class T>
constexpr int64_t tile_size() {
  return sizeof(T) == 4 && kRegisterTile<Arch> ? kRegisterTile<Arch> : 16;
}

// One tile of transpose_tiles: rows [r0, r0 + height) x columns [c0, c0 + cn).
template <class Arch, class T, class Cols>
[[gnu::always_inline]] inline void move_tile(const T* src, int64_t src_ld, T* dst, const Cols& col,
                                             int64_t r0, int64_t height, int64_t c0, int64_t cn,
                                             int64_t rows, int64_t pad_rows, bool stream) {
  constexpr int64_t kReg = sizeof(T) == 4 ? kRegisterTile<Arch> : 0;
  constexpr int64_t kTile = tile_size<Arch, T>();
  const int64_t rn = std::max<int64_t>(0, std::min(height, rows - r0));
  const int64_t pn = std::min(height, pad_rows - r0);  // rows written, zeros past rn
  // Rows past `rows` are padding only: their src address is never formed.
  const T* s = rn > 0 ? src + r0 * src_ld + c0 : src;
  T* d = dst + r0;
  if (kReg && rn == kTile && cn == kTile) {
    register_tile<Arch>(s, src_ld, d, col, stream);
    return;
  }
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2) {
    if (rn == 16 && pn == 16 && cn == 16) {
      if constexpr (sizeof(T) == 1) {
        transpose16x16_bytes<Arch>(reinterpret_cast<const uint8_t*>(s), src_ld,
                                   reinterpret_cast<uint8_t*>(d), col);
      } else {
        transpose16x16_words<Arch>(reinterpret_cast<const uint16_t*>(s), src_ld,
                                   reinterpret_cast<uint16_t*>(d), col);
      }
      return;
    }
  }
  if constexpr (kReg == 16) {
    transpose16x16<Arch>(reinterpret_cast<const float*>(s), src_ld, reinterpret_cast<float*>(d),
                         col, static_cast<int>(rn), static_cast<int>(cn), static_cast<int>(pn),
                         false);
    return;
  }
  if constexpr (kReg == 8) {
    if (rn == kTile && pn == kTile && cn > 0) {
      transpose8xN<Arch>(reinterpret_cast<const float*>(s), src_ld, reinterpret_cast<float*>(d),
                         col, static_cast<int>(cn));
      return;
    }
  }
  for (int64_t c = 0; c < cn; ++c) {
    T* out = d + col(static_cast<int>(c));
    for (int64_t r = 0; r < rn; ++r) out[r] = s[r * src_ld + c];
    for (int64_t r = rn; r < pn; ++r) out[r] = T{};
  }
}

// Rows [r_begin, r_end) of columns [c_begin, c_end) of a transpose, tile by tile with plain
// stores (move_tile): the rows and columns around the streamed bands.
template <class Arch, class T, class ColumnsAt>
void move_rows_plainly(const T* src, int64_t src_ld, T* dst, const ColumnsAt& columns_at,
                       int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end,
                       int64_t rows, int64_t pad_rows) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  for (int64_t c0 = c_begin; c0 < c_end; c0 += kTile) {
    const int64_t cn = std::min(kTile, c_end - c0);
    const auto col = columns_at(c0, static_cast<int>(cn));
    for (int64_t r0 = r_begin; r0 < r_end; r0 += kTile) {
      move_tile<Arch>(src, src_ld, dst, col, r0, std::min(kTile, r_end - r0), c0, cn, rows,
                      pad_rows, false);
    }
  }
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_REGISTER_TILES_H_
