// AVX2's walks over the tiles of a 32-bit transpose (8x8 register tiles): streamed bands of 16
// or 64 rows through local blocks, short columns, and row blocks of 16 with the next block
// prefetched. transpose_tiles (tile_walk.h) calls them when kRegisterTile<Arch> == 8.
// Per-ISA code: included only from vector_kernels.cc.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_AVX2_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_AVX2_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/primitives/reorder/internal/register_tiles.h"
#include "tessera/primitives/reorder/internal/tile_columns.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// Copies n floats from `from` (a local block) to `to`, the whole cache lines of `to` with
// non-temporal 32-byte stores, the partial lines at either end with plain stores (they are
// shared with the runs before and after).
template <class Arch>
inline void stream_run_avx2(const float* from, float* to, int64_t n) {
  const auto at = reinterpret_cast<uintptr_t>(to);
  int64_t i = 0;
  if (at % 4 == 0) {
    const int64_t head = std::min<int64_t>(n, static_cast<int64_t>((64 - at % 64) % 64 / 4));
    for (; i < head; ++i) to[i] = from[i];
    for (; i + 16 <= n; i += 16) {
      simd::stream_store(to + i, f32x<Arch>::load_unaligned(from + i));
      simd::stream_store(to + i + 8, f32x<Arch>::load_unaligned(from + i + 8));
    }
  }
  for (; i < n; ++i) to[i] = from[i];
}

// Whether columns_at gives plain columns (dst rows ld apart, no groups).
template <class ColumnsAt>
inline constexpr bool kPlainColumns =
    std::is_same_v<std::decay_t<decltype(std::declval<ColumnsAt>()(0, 8))>, plain_tile_columns>;

// A streamed 32-bit transpose of plain columns whose dst rows start on a line after the head:
// 16 rows at a time across the whole strip. Each 8-column step transposes two 8x8 register
// tiles and streams each column's 16 rows, one whole dst line, straight from the registers, so
// the src is read in 16 runs the width of the strip, which the hardware prefetcher follows.
// Rows past the last whole 16-row band, padding rows and a partial last column tile go through
// move_tile, plainly. Returns false (nothing done) for strips it does not take. Its callers:
// - AVX2's banded copies (ab -> ba 4096), for strips of kWideBandCols or more (split_into_tasks
//   gives them such strips; the caller checks the width), in place of 64-row bands that read
//   64 runs of 1 KB in step and wait on those loads (measured slower cold, 1 and 2 threads).
//   In narrower strips the 16-row order loses to the bands (256 columns) or is level (512):
//   bazel run -c opt //bench/experiments:ab_ba_orders -- A B16x256 B16x512
// - AVX2's short columns (nchw -> nhwc), for any strip: see transpose_tiles_avx2.
template <class Arch, class T, class ColumnsAt>
bool transpose_rows16_streamed_avx2(const T* src, int64_t src_ld, T* dst,
                                    const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                    int64_t pad_rows, int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  // Plain columns only: when the first tile's dst lines are aligned, every tile's are.
  if constexpr (!kPlainColumns<ColumnsAt>) {
    return false;
  } else if (!columns_at(0, 8).all_aligned64(d + head, 8)) {
    return false;
  }
  const int64_t full_cols = cols / kTile * kTile;
  const int64_t bands_end = head + std::max<int64_t>(0, rows - head) / 16 * 16;
  // Each src line is prefetched (to L2) 256 bytes ahead along its row.
  constexpr int64_t kRowAheadBytes = 256;
  for (int64_t b0 = head; b0 < bands_end; b0 += 16) {
    const float* from = s + b0 * src_ld;
    for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
      if (c0 % 16 == 0) {
        for (int64_t r = 0; r < 16; ++r) {
          prefetch_l2_ahead(from + r * src_ld + c0, kRowAheadBytes);
        }
      }
      f32x<Arch> upper[8], lower[8];
      load_transposed8x8<Arch>(from + c0, src_ld, upper);
      load_transposed8x8<Arch>(from + 8 * src_ld + c0, src_ld, lower);
      const auto col = columns_at(c0, static_cast<int>(kTile));
      for (int i = 0; i < 8; ++i) {
        simd::stream_store(d + col(i) + b0, upper[i]);
        simd::stream_store(d + col(i) + b0 + 8, lower[i]);
      }
    }
  }
  auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
    move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                            pad_rows);
  };
  plain_rows(0, head, 0, cols);
  plain_rows(bands_end, pad_rows, 0, cols);       // rows past the bands, padding
  plain_rows(head, bands_end, full_cols, cols);   // the partial column tile's other rows
  simd::store_fence();  // streamed stores visible before the task ends
  return true;
}

// The whole 8-row tiles of one 8-column tile of a band (rows [b0, b0 + blocked)) through the
// local block, each column's run streamed from there (transpose_tiles_banded_avx2). Each band
// reads its rows' runs of the strip (1 KB of a 256-column strip): 64 short streams in as many
// pages, which the hardware prefetcher hardly follows. Each src line is prefetched (to L2) 64
// columns (4 lines of f32) before its load, the next band's first lines at the end of a band;
// without it ab -> ba 4096 cold measured markedly slower.
template <class Arch, class ColumnsAt>
[[gnu::always_inline]] inline void band_column_tile_avx2(const float* s, int64_t src_ld, float* d,
                                                         const ColumnsAt& columns_at,
                                                         int64_t rows, int64_t full_cols,
                                                         int64_t b0, int64_t blocked, int64_t c0,
                                                         float* block) {
  constexpr int64_t kTile = 8, kBandAhead = 64;
  const float* from = s + b0 * src_ld + c0;
  for (int64_t r = 0; r < blocked; r += kTile) {
    // Once per src line: the line kBandAhead columns further in this loop's order, from
    // the next band's rows once past the strip's last column tile.
    if (c0 % 16 == 0) {
      int64_t ahead_c = c0 + kBandAhead, ahead_r = b0 + r;
      if (ahead_c >= full_cols) {
        ahead_c -= full_cols;
        ahead_r += kBandRows;
      }
      if (ahead_c < full_cols && ahead_r + kTile <= rows) {
        for (int i = 0; i < kTile; ++i) {
          prefetch_l2_ahead(s + (ahead_r + i) * src_ld + ahead_c, 0);
        }
      }
    }
    f32x<Arch> t[8];
    load_transposed8x8<Arch>(from + r * src_ld, src_ld, t);
    for (int i = 0; i < 8; ++i) t[i].store_aligned(block + i * kBandRows + r);
  }
  const auto col = columns_at(c0, static_cast<int>(kTile));
  if (blocked == kBandRows && col.all_aligned64(d + b0, 8)) {
    for (int i = 0; i < kTile; ++i) {
      float* to = d + col(i) + b0;
      for (int j = 0; j < kBandRows; j += 8) {
        simd::stream_store(to + j, f32x<Arch>::load_aligned(block + i * kBandRows + j));
      }
    }
  } else {
    for (int i = 0; i < kTile; ++i) {
      stream_run_avx2<Arch>(block + i * kBandRows, d + col(i) + b0, blocked);
    }
  }
}

// transpose_tiles_banded for 32-bit elements on AVX2 with a large dst (stream): in each band of
// kBandRows rows, an 8-column tile's 8x8 register tiles are transposed into a local block and
// each column's run of dst (256 bytes) streamed from there in whole lines (stream_run_avx2). The
// 8x8 tiles would store each dst line in two halves, plainly, so the 64 MB dst of ab -> ba 4096
// would be read for ownership; streaming the halves straight from the registers leaves every line
// half-written until the next tile. With a head (aligning_head_avx2) the bands start on dst's
// lines and no line is shared between two bands. Rows past the band's last whole 8-row tile,
// padding rows and a partial last column tile go through move_tile, plainly, after the band.
// The next band is not prefetched ahead of time as a whole: with band_prefetcher (spread over
// the tiles or all at once) the loop measured slower (ab -> ba 4096, 1 thread cold). Its lines
// are prefetched a few lines ahead of their loads instead, in the order the loop reads them.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles_banded_avx2(const T* src, int64_t src_ld, T* dst,
                                                   const ColumnsAt& columns_at, int64_t rows,
                                                   int64_t cols, int64_t pad_rows, int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  if (cols >= kWideBandCols && transpose_rows16_streamed_avx2<Arch>(src, src_ld, dst, columns_at,
                                                                     rows, cols, pad_rows, head)) {
    return;
  }
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  const int64_t full_cols = cols / kTile * kTile;
  auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
    move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                            pad_rows);
  };
  plain_rows(0, head, 0, cols);
  alignas(64) float block[kTile * kBandRows];
  for (int64_t b0 = head; b0 < pad_rows; b0 += kBandRows) {
    const int64_t b1 = std::min(pad_rows, b0 + kBandRows);
    // Whole 8-row tiles of data rows go through the local block.
    const int64_t blocked = std::max<int64_t>(0, std::min(b1, rows) - b0) / kTile * kTile;
    for (int64_t c0 = 0; c0 < full_cols && blocked > 0; c0 += kTile) {
      band_column_tile_avx2<Arch>(s, src_ld, d, columns_at, rows, full_cols, b0, blocked, c0,
                                  block);
    }
    plain_rows(b0 + blocked, b1, 0, cols);          // rows past the block, padding
    plain_rows(b0, b0 + blocked, full_cols, cols);  // the partial column tile's other rows
  }
  simd::store_fence();  // streamed stores visible before the task ends
}

// Short columns of 32-64 rows (nchw -> nhwc: 64) with a large dst and back-to-back dst rows:
// column tiles outermost, all rows of 8 columns at once, each src row prefetched (to L2)
// kShortColumnsAhead elements ahead (32-64 read streams, as for the byte blocks). The 8 dst
// rows of a column tile are one run (2 KB for C = 64): they are transposed into a local block
// and streamed from there in whole lines (stream_run_avx2), the partial lines at the run's
// ends stored plainly. Streaming the rows straight from the registers (16 bytes off a line, each
// line completed only by the next row block) makes nchw -> nhwc much slower; plain stores read
// the 25.7 MB of dst for ownership.
// With dst on a line, 16 rows at a time across the strip instead, each pixel's 16 channels
// one streamed line (transpose_rows16_streamed_avx2, any strip width): faster than the
// column order on nchw -> nhwc 32x64x56x56 cold, 1 and 2 threads. The column order stays for
// dst off a line.
template <class Arch, class T, class ColumnsAt>
void transpose_short_columns_avx2(const T* src, int64_t src_ld, T* dst,
                                  const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                  int64_t pad_rows) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  // 768 bytes ahead to L2, as AVX-512's row prefetch: faster than 256 bytes ahead to L1 on AVX2
  // Zen 3 (nchw -> nhwc 32x64x56x56 cold, 1 and 2 threads) and never slower elsewhere.
  constexpr int64_t kShortColumnsAhead = 192;
  if (transpose_rows16_streamed_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows,
                                           0)) {
    return;
  }
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  const int64_t full_cols = cols / kTile * kTile;
  for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
    const auto col = columns_at(c0, static_cast<int>(kTile));
    for (int64_t r = 0; r < rows; ++r) {
      prefetch_l2_ahead(s + r * src_ld + c0, kShortColumnsAhead * sizeof(float));
    }
    alignas(64) float block[8 * 64];
    for (int64_t r0 = 0; r0 < rows; r0 += 2 * kTile) {
      transpose16x8<Arch>(s + r0 * src_ld + c0, src_ld, block + r0, plain_tile_columns{0, rows},
                          false);
    }
    stream_run_avx2<Arch>(block, d + col(0), 8 * rows);
  }
  for (int64_t r0 = 0; r0 < rows && full_cols < cols; r0 += kTile) {
    const int64_t cn = cols - full_cols;
    move_tile<Arch>(src, src_ld, dst, columns_at(full_cols, static_cast<int>(cn)), r0, kTile,
                    full_cols, cn, rows, pad_rows, false);
  }
  simd::store_fence();  // streamed stores visible before the task ends
}

// The 16-row blocks of transpose_tiles_avx2 from r0 on; returns where they end. Tall strips
// (nhwc -> nchw: 3136 rows of 64 columns, kPrefetch): while a 16-row block moves, its tiles
// prefetch (to L1) the src lines of the same columns in the next block, one per row per 64
// bytes: the hardware prefetcher does not keep up with the 16 rows read 32 bytes at a time.
// Strips of one block (nchw -> nChw16c, 16 rows) keep the loop without the prefetch. Also
// fetching (to L2) the lines of the block 3 or 4 ahead, as AVX-512's tall strip does, measured
// slower on AVX2 Zen 3.
template <class Arch, bool kPrefetch, class T, class ColumnsAt>
[[gnu::always_inline]] inline int64_t row_blocks16_avx2(const T* src, int64_t src_ld, T* dst,
                                                        const ColumnsAt& columns_at, int64_t rows,
                                                        int64_t cols, int64_t pad_rows,
                                                        bool stream, int64_t r0) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  for (; r0 + 2 * kTile <= rows; r0 += 2 * kTile) {
    [[maybe_unused]] const int64_t next = r0 + 2 * kTile;
    [[maybe_unused]] const int64_t next_rows = std::clamp<int64_t>(rows - next, 0, 2 * kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      const auto col = columns_at(c0, static_cast<int>(cn));
      if constexpr (kPrefetch) {
        if (c0 % 16 == 0) {
          for (int64_t r = 0; r < next_rows; ++r) {
            simd::prefetch<simd::locality::l1>(s + (next + r) * src_ld + c0);
          }
        }
      }
      if (cn == kTile) {
        transpose16x8<Arch>(s + r0 * src_ld + c0, src_ld, d + r0, col, stream);
        continue;
      }
      int64_t c = c0;  // the partial tile's columns not yet moved
      if (cn >= 4) {
        transpose16x4<Arch>(s + r0 * src_ld + c0, src_ld, d + r0, col, stream);
        c += 4;
      }
      if (c < c0 + cn) {
        const auto rest = columns_at(c, static_cast<int>(c0 + cn - c));
        move_tile<Arch>(src, src_ld, dst, rest, r0, kTile, c, c0 + cn - c, rows, pad_rows,
                        stream);
        move_tile<Arch>(src, src_ld, dst, rest, r0 + kTile, kTile, c, c0 + cn - c, rows,
                        pad_rows, stream);
      }
    }
  }
  return r0;
}

// transpose_tiles of 32-bit elements on AVX2 (no banding): rows in blocks of 16, so that each
// dst row of 16 lanes (a 16-element block: nChw16c, OIhw16i16o) is written by one tile; the
// 8-row register tile for the rows past the last 16 and for partial column tiles. One src row
// into 16-lane rows (C = 1 into nChw16c) stores each row whole, its padding with it.
template <class Arch, class T, class ColumnsAt>
void transpose_tiles_avx2(const T* src, int64_t src_ld, T* dst, const ColumnsAt& columns_at,
                          int64_t rows, int64_t cols, int64_t pad_rows, bool stream,
                          int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  if (rows == 1 && pad_rows == 16) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int cn = static_cast<int>(std::min(kTile, cols - c0));
      one_row_into_rows16<Arch>(reinterpret_cast<const float*>(src) + c0,
                                reinterpret_cast<float*>(dst), columns_at(c0, cn), cn, stream);
    }
    if (stream) simd::store_fence();  // streamed stores visible before the task ends
    return;
  }
  // Plain columns whose dst rows are back to back (ld = rows): a column tile's dst is one run.
  const bool back_to_back_rows = [&] {
    if constexpr (kPlainColumns<ColumnsAt>) {
      return columns_at(0, 8).ld == rows;
    } else {
      return false;
    }
  }();
  if (stream && head == 0 && rows == pad_rows && rows % 16 == 0 && rows >= 32 && rows <= 64 &&
      back_to_back_rows) {
    transpose_short_columns_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows);
    return;
  }
  int64_t r0 = 0;
  if (head > 0) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), 0, head, c0, cn,
                      rows, pad_rows, stream);
    }
    r0 = head;
  }
  if (rows - r0 >= 4 * kTile) {
    r0 = row_blocks16_avx2<Arch, true>(src, src_ld, dst, columns_at, rows, cols, pad_rows,
                                       stream, r0);
  } else {
    r0 = row_blocks16_avx2<Arch, false>(src, src_ld, dst, columns_at, rows, cols, pad_rows,
                                        stream, r0);
  }
  for (; r0 < pad_rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, kTile, c0, cn,
                      rows, pad_rows, stream);
    }
  }
  if (stream) simd::store_fence();  // streamed stores visible before the task ends
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_AVX2_H_
