// The walks over a transpose's tiles (transpose_fn): banding with prefetches, streamed line
// bands of 8- and 16-bit elements, tall strips, the aligning heads, grouped strips through a
// local block, and transpose<Arch, T> that picks among them. AVX2's 32-bit walks are in
// tile_walk_avx2.h. Per-ISA code: included only from vector_kernels.cc.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/primitives/reorder/internal/register_tiles.h"
#include "tessera/primitives/reorder/internal/tile_columns.h"
#include "tessera/primitives/reorder/internal/tile_walk_avx2.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"
#include "tessera/simd/lines.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// transpose_tiles in bands of kBandRows rows (banded_transpose): column blocks outermost within
// a band, so that each dst row gets a run of 256 bytes (f32) at once, and the next band's src
// lines prefetched in row order while a band moves.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles_banded(const T* src, int64_t src_ld, T* dst,
                                              const ColumnsAt& columns_at, int64_t rows,
                                              int64_t cols, int64_t pad_rows, bool stream,
                                              int64_t head, int64_t col_head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  constexpr int64_t kBandBlocks = kBandRows / kTile;
  const int64_t first_height = head > 0 ? head : kTile;
  const int64_t first_width = col_head > 0 ? col_head : kTile;
  const int64_t blocks =
      pad_rows <= first_height ? 1 : 1 + (pad_rows - first_height + kTile - 1) / kTile;
  const int64_t col_blocks = cols <= first_width ? 1 : 1 + (cols - first_width + kTile - 1) / kTile;
  auto block_start = [&](int64_t k) { return k == 0 ? 0 : first_height + (k - 1) * kTile; };
  for (int64_t b0 = 0; b0 < blocks; b0 += kBandBlocks) {
    const int64_t b1 = std::min(blocks, b0 + kBandBlocks);
    // Rows past `rows` are padding only: their src address is never formed.
    band_prefetcher<T> ahead(src, src_ld, cols, std::min(rows, block_start(b1)),
                             std::min(rows, block_start(b1 + kBandBlocks)));
    const int64_t tiles = (b1 - b0) * col_blocks;
    const int64_t per_tile = (ahead.total() + tiles - 1) / tiles;
    for (int64_t c0 = 0, width = first_width; c0 < cols; c0 += width, width = kTile) {
      const int64_t cn = std::min(width, cols - c0);
      const auto col = columns_at(c0, static_cast<int>(cn));
      for (int64_t k = b0; k < b1; ++k) {
        ahead.next(per_tile);
        move_tile<Arch>(src, src_ld, dst, col, block_start(k), k == 0 ? first_height : kTile, c0,
                        cn, rows, pad_rows, stream);
      }
    }
  }
}

// A streamed transpose of 8- or 16-bit elements, plain columns whose dst lines all start on
// row 0: kLineRows (64 bytes of dst) rows at a time across the whole strip. Each 16-column step
// transposes the band's 16x16 register tiles into a local block of 16 dst lines, in L1, and
// streams each line from there, so every dst line is written once and whole. The row-block loop
// of transpose_tiles stores each dst line in 16-byte pieces, one per row block, plainly: 16-bit
// nchw -> nhwc 32x64x56x56 (C = 64: 128-byte dst rows, 4 row blocks) runs there far behind
// the f32 transpose that moves twice the bytes. src is read in kLineRows runs the width
// of the strip, each line prefetched (to L2) kRowAheadBytes ahead along its row; in a tall strip
// (rows of at most kTallStripBytes: nhwc -> nchw), where the next band's rows follow in memory,
// each line of the next band is prefetched to L1 instead, as AVX2's 32-bit tall strips do. Both
// the bands and the next-band prefetch measured faster on f16 nhwc -> nchw 32x64x56x56 cold, at
// 1 and 2 threads.
// Rows past the last whole band, padding rows and a partial last column tile go through
// move_tile, plainly.
// Returns false (nothing done) for strips it does not take.
template <class Arch, class T, class ColumnsAt>
bool transpose_line_bands_streamed(const T* src, int64_t src_ld, T* dst,
                                   const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                   int64_t pad_rows) {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>);
  constexpr int64_t kTile = 16, kLineRows = 64 / sizeof(T), kRowAheadBytes = 256;
  constexpr int64_t kTallStripBytes = 512;
  if constexpr (!std::is_same_v<std::decay_t<decltype(columns_at(0, 16))>, plain_tile_columns>) {
    return false;
  } else {
    if (rows < kLineRows || !columns_at(0, 16).all_aligned64(dst, 16)) return false;
    const int64_t full_cols = cols / kTile * kTile;
    const int64_t bands_end = rows / kLineRows * kLineRows;
    alignas(64) T block[kTile * kLineRows];
    const bool tall = cols * int64_t{sizeof(T)} <= kTallStripBytes;
    const auto next_band_bytes = static_cast<uintptr_t>(kLineRows * src_ld * int64_t{sizeof(T)});
    for (int64_t b0 = 0; b0 < bands_end; b0 += kLineRows) {
      const T* from = src + b0 * src_ld;
      for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
        if ((c0 * sizeof(T)) % 64 == 0) {  // one prefetch per line of each row
          for (int64_t r = 0; r < kLineRows; ++r) {
            const T* line = from + r * src_ld + c0;
            if (tall) {  // the same line of the next band, as an address (it may be past the end)
              simd::prefetch<simd::locality::l1>(reinterpret_cast<const void*>(
                  reinterpret_cast<uintptr_t>(line) + next_band_bytes));
            } else {
              prefetch_l2_ahead(line, kRowAheadBytes);
            }
          }
        }
        for (int64_t r0 = 0; r0 < kLineRows; r0 += kTile) {
          if constexpr (sizeof(T) == 1) {
            transpose16x16_bytes<Arch>(from + r0 * src_ld + c0, src_ld, block + r0,
                                       plain_tile_columns{0, kLineRows});
          } else {
            transpose16x16_words<Arch>(from + r0 * src_ld + c0, src_ld, block + r0,
                                       plain_tile_columns{0, kLineRows});
          }
        }
        const auto col = columns_at(c0, static_cast<int>(kTile));
        for (int i = 0; i < kTile; ++i) {
          simd::stream_line_copy<Arch>(dst + col(i) + b0, block + i * kLineRows);
        }
      }
    }
    auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
      move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                              pad_rows);
    };
    plain_rows(bands_end, pad_rows, 0, cols);   // rows past the bands, padding
    plain_rows(0, bands_end, full_cols, cols);  // the partial column tile's other rows
    simd::store_fence();                        // streamed stores visible before the task ends
    return true;
  }
}

// transpose_tiles for a tall, narrow strip of 32-bit elements on AVX-512 (nhwc -> nchw: 3136
// rows of 64 columns): each tile prefetches (to L1) the next row block's src lines of its
// columns, one per row, as AVX2's row blocks do. A block's 16 src rows are read one line each
// per tile while 64 dst rows are written, and without the prefetch the loads wait on DRAM. Not
// for strips one tile wide (nChw16c -> nchw: 16 columns, one contiguous run per block that the
// hardware prefetcher follows; slower with it) nor for short ones (nchw -> nhwc: 64 rows). A
// function of its own: with the prefetch in transpose_tiles' loop, the strips without it run a
// few % slower.
// Each tile also prefetches (to L2) the same lines of the row block kTallL2AheadBlocks ahead:
// one block ahead to L1 alone leaves about one block's lines in flight, and the strip then runs
// at memcpy's speed while nChw16c -> nchw (the same stores, contiguous src) runs much faster.
// 3 to 8 blocks ahead measured within noise of each other.
constexpr int64_t kTallL2AheadBlocks = 4;
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tall_strip(const T* src, int64_t src_ld, T* dst,
                                            const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                            int64_t pad_rows, bool stream, int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  for (int64_t r0 = 0, height = head > 0 ? head : kTile; r0 < pad_rows;
       r0 += height, height = kTile) {
    const int64_t next = r0 + height;
    const int64_t next_rows = std::clamp<int64_t>(rows - next, 0, kTile);
    const int64_t far = next + (kTallL2AheadBlocks - 1) * kTile;
    const int64_t far_rows = std::clamp<int64_t>(rows - far, 0, kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      for (int64_t r = 0; r < next_rows; ++r) {
        simd::prefetch<simd::locality::l1>(src + (next + r) * src_ld + c0);
      }
      for (int64_t r = 0; r < far_rows; ++r) {
        simd::prefetch<simd::locality::l2>(src + (far + r) * src_ld + c0);
      }
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, height, c0, cn,
                      rows, pad_rows, stream);
    }
  }
}

// The row blocks of transpose_tiles when it neither bands nor takes a tall strip. A large strip
// of several row blocks (nchw -> nhwc: 64 rows) reads each block's rows as runs along the strip,
// more than the hardware prefetcher follows at once: each tile prefetches (to L2) its rows
// kRowsAheadBytes further along (512 and 1024 bytes ahead measured slower than 256 or within
// noise of it). On AVX-512, full row blocks of a strip a whole number of tiles wide take its
// columns before src's first line and after its last one as one wrapped tile.
template <class Arch, class T, class ColumnsAt>
[[gnu::always_inline]] inline void transpose_row_blocks(const T* src, int64_t src_ld, T* dst,
                                                        const ColumnsAt& columns_at, int64_t rows,
                                                        int64_t cols, int64_t pad_rows, bool stream,
                                                        int64_t head, int64_t col_head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  constexpr bool kWraps = sizeof(T) == 4 && kRegisterTile<Arch> == 16;
  constexpr int64_t kRowsAheadBytes = 256;
  const bool fetch_along_rows = stream && rows > kTile;
  [[maybe_unused]] const int64_t tail =
      kWraps && col_head > 0 && cols % kTile == 0 ? kTile - col_head : 0;
  for (int64_t r0 = 0, height = head > 0 ? head : kTile; r0 < pad_rows;
       r0 += height, height = kTile) {
    int64_t c_begin = 0, c_end = cols;
    if constexpr (kWraps) {
      if (tail > 0 && height == kTile && r0 + kTile <= rows) {
        const T* s = src + r0 * src_ld;
        transpose_wrapped16x16<Arch>(
            reinterpret_cast<const float*>(s), reinterpret_cast<const float*>(s + cols - tail),
            src_ld, reinterpret_cast<float*>(dst + r0),
            wrapped_tile_columns(columns_at(cols - tail, static_cast<int>(tail)),
                                 columns_at(0, static_cast<int>(col_head)), static_cast<int>(tail)),
            static_cast<int>(tail), stream);
        c_begin = col_head;
        c_end = cols - tail;
      }
    }
    for (int64_t c0 = c_begin, width = c0 == 0 && col_head > 0 ? col_head : kTile; c0 < c_end;
         c0 += width, width = kTile) {
      const int64_t cn = std::min(width, c_end - c0);
      if (fetch_along_rows) {
        for (int64_t r = r0; r < std::min(rows, r0 + height); ++r) {
          prefetch_l2_ahead(src + r * src_ld + c0, kRowsAheadBytes);
        }
      }
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, height, c0, cn,
                      rows, pad_rows, stream);
    }
  }
}

// Moves a tile block by block: 32-bit elements through registers (kRegisterTile; on AVX-512 the
// edges too, with masked loads and stores), the rest element by element within 16x16 blocks.
// A partial block's padding rows are written with its data (pad_rows > rows), in the same tile
// pass: zero lanes of the register tile, or zeros after the element loop.
// Row blocks outermost, so that each src row is read once and the dst rows advance together;
// except when src's rows are a page or more apart and there are several bands of rows
// (transpose_tiles_banded). The hardware prefetcher follows none of 16 rows 16 KB apart (ab -> ba
// 4096), so there the loads wait on DRAM: the bands with their prefetch measure faster than
// bands without it, and both much faster than row blocks outermost with the prefetch (256 dst
// rows advancing at once).
// Not inlined: each column mapping gets a function of its own (inlined together into
// transpose(), the plain tiles measured slower on nhwc -> nchw).
// head (< kTile): the first row block's height, so that the later ones start on a cache line.
// col_head (< kTile): the first column block's width, so that the later ones start on src's
// cache lines.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles(const T* src, int64_t src_ld, T* dst,
                                       const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                       int64_t pad_rows, bool stream, int64_t head,
                                       int64_t col_head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  constexpr bool kTiles16 = sizeof(T) == 4 && kRegisterTile<Arch> == 16;
  const bool banded = banded_transpose(src_ld * static_cast<int64_t>(sizeof(T)), pad_rows);
  if constexpr (kTiles16) {
    if (rows == 1 && pad_rows == 16) {  // C = 1 into nChw16c
      const auto* s = reinterpret_cast<const float*>(src);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int cn = static_cast<int>(std::min(kTile, cols - c0));
        one_row_into_lines16<Arch>(s + c0, reinterpret_cast<float*>(dst), columns_at(c0, cn), cn,
                                   stream);
      }
      if (stream) simd::store_fence();  // streamed stores visible before the task ends
      return;
    }
  }
  if constexpr (sizeof(T) == 4 && kRegisterTile<Arch> == 8) {
    if (!banded) {
      transpose_tiles_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head);
      return;
    }
    if (stream) {
      transpose_tiles_banded_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, head);
      return;
    }
  }
  if constexpr (sizeof(T) <= 2) {
    if (stream && !banded && head == 0 && col_head == 0 &&
        transpose_line_bands_streamed<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows)) {
      return;
    }
  }
  if (banded) {
    transpose_tiles_banded<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head,
                                 col_head);
  } else if (kTiles16 && col_head == 0 && rows >= 8 * kTile && cols > kTile && cols <= 4 * kTile) {
    transpose_tall_strip<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head);
  } else {
    transpose_row_blocks<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head,
                               col_head);
  }
  if constexpr (kTiles16) {
    if (stream) simd::store_fence();  // streamed stores visible before the task ends
  }
}

// Rows before the first 64-byte boundary of dst, when every column shares that boundary and
// partial tiles are cheap (AVX-512 masks): the other tiles' rows are then whole cache lines, not
// two halves (malloc gives 16-byte alignment), and may be streamed (faster on ab -> ba 4096).
// Only for long columns: with 64 rows (nchw -> nhwc, C = 64) the extra partial row block makes
// the tile count 5/4 and measured much slower.
template <class Arch, class T>
int64_t aligning_head(const void* dst, const dst_columns& m, int64_t rows) {
  constexpr int64_t kMinRows = 128;
  if (!(sizeof(T) == 4 && kRegisterTile<Arch> == 16) || rows < kMinRows) return 0;
  const bool shared = (m.ld * sizeof(T)) % 64 == 0 && (m.group_ld * sizeof(T)) % 64 == 0;
  const auto misaligned = reinterpret_cast<uintptr_t>(dst) % 64;
  if (!shared || misaligned % sizeof(T) != 0) return 0;
  return static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
}

// Columns before the first 64-byte boundary of src, when every row shares it: the other tiles'
// 16-lane row loads are then whole cache lines instead of two halves (a split load waits for
// two lines). Only with at least 64 columns after the head (the strips of run_transpose start on
// src's lines after the first, so only a strip's first tile is partial): nhwc -> nchw with 64
// columns in all measured much slower with a head (5 column tiles instead of 4). Grouped columns
// only when the strip is a whole number of tiles wide, so that transpose_tiles wraps the head
// and the tail into one tile (oihw's 144: a head alone, 10 tiles instead of 9, gains nothing).
template <class Arch, class T>
int64_t aligning_col_head(const void* src, int64_t src_ld, const dst_columns& m, int64_t rows,
                          int64_t cols) {
  constexpr int64_t kMinCols = 64, kMinRows = 16;
  if (!(sizeof(T) == 4 && kRegisterTile<Arch> == 16) || rows < kMinRows ||
      (m.group > 0 && m.group < cols && cols % kRegisterTile<Arch> != 0)) {
    return 0;
  }
  const auto misaligned = reinterpret_cast<uintptr_t>(src) % 64;
  if ((src_ld * sizeof(T)) % 64 != 0 || misaligned % sizeof(T) != 0) return 0;
  const auto head = static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
  return cols >= kMinCols + head ? head : 0;
}

// AVX2's aligning_head: the rows before dst's first line, when the later 16-row blocks can then
// stream whole lines (a large dst, long columns sharing the line offset: nhwc -> nchw). The head
// goes through the scalar partial tile, a few rows of each strip.
template <class Arch, class T>
int64_t aligning_head_avx2(const void* dst, const dst_columns& m, int64_t rows, bool stream) {
  constexpr int64_t kMinRows = 128;
  if (!stream || rows < kMinRows) return 0;
  const bool shared = (m.ld * sizeof(T)) % 64 == 0 && (m.group_ld * sizeof(T)) % 64 == 0;
  const auto misaligned = reinterpret_cast<uintptr_t>(dst) % 64;
  if (!shared || misaligned % sizeof(T) != 0) return 0;
  return static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
}

// A strip of exactly 16 rows of grouped columns (oihw -> OIhw16i16o: 16 o x 144 (i, hw) per
// (O, I) block), without streaming. Its tiles in src column order wrote the dst rows of a tile's
// columns 1 KB apart each (column (i, hw) goes to hw * 256 + i * 16), 9 interleaved store streams
// on top of the 16 src rows. Instead the strip is transposed into a local block (its column
// order, 64-byte rows, in L1) and then copied to dst in dst order, one sequential run of whole
// rows. Each src row is prefetched (to L2) kGroupedPrefetchBytes ahead, which for oihw runs on
// into the next strip's columns of the same rows. When the strip's dst rows are back to back
// (oihw's 9 KB), each tile also prefetches its share of them to L2, so that the copy's stores
// find their lines there instead of each waiting for its read for ownership.
// Returns false (nothing done) for other strips.
// Measured faster than the tiles in src column order, cold and warm, on AVX2 Zen 3 and AVX-512
// Zen 4, and ahead of oneDNN cold; the dst prefetch is part of the cold gain:
// bazel run -c opt //bench/reorder:reorder_bench -- --benchmark_filter=f32_oihw_OIhw16i16o
constexpr int64_t kGroupedBlockCols = 256, kGroupedPrefetchBytes = 256;
template <class Arch>
bool grouped_strip(const float* src, int64_t src_ld, float* dst, const dst_columns& m, int64_t rows,
                   int64_t cols, int64_t pad_rows, bool stream) {
  constexpr int kTile = kRegisterTile<Arch>;  // columns per step: 8 (AVX2) or 16 (AVX-512)
  if (stream || rows != 16 || pad_rows != 16 || !(m.group > 0 && m.group < cols) ||
      cols % m.group != 0 || cols % kTile != 0 || cols > kGroupedBlockCols || m.group_ld > m.ld) {
    return false;
  }
  const int64_t groups = cols / m.group;
  const bool one_dst_run = m.group_ld == 16 && m.ld == groups * m.group_ld;
  alignas(64) float block[kGroupedBlockCols * 16];
  for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
    if (c0 % 16 == 0) {  // one prefetch per 64 bytes of each row
      for (int64_t r = 0; r < 16; ++r) {
        prefetch_l2_ahead(src + r * src_ld + c0, kGroupedPrefetchBytes);
      }
    }
    if (one_dst_run) {
      for (int i = 0; i < kTile; ++i) {
        simd::prefetch<simd::locality::l2>(dst + (c0 + i) * 16);
      }
    }
    if constexpr (kTile == 16) {
      f32x<Arch> t[16];
      load_transposed<Arch>(src + c0, src_ld, 16, 16, t);
      for (int i = 0; i < 16; ++i) t[i].store_aligned(block + (c0 + i) * 16);
    } else {
      transpose16x8<Arch>(src + c0, src_ld, block + c0 * 16, plain_tile_columns{0, 16}, false);
    }
  }
  // Column c = g * group + k goes to g * group_ld + k * ld: k outermost is dst order
  // (group_ld <= ld). m's fields are read into locals first: the vector stores may alias
  // anything, so the loop would reload them (and redo its multiplications) every 64 bytes
  // (measured slower warm on AVX2 Zen 3, oihw -> OIhw16i16o).
  const int64_t group = m.group, group_ld = m.group_ld, ld = m.ld;
  for (int64_t k = 0; k < group; ++k) {
    for (int64_t g = 0; g < groups; ++g) {
      const float* from = block + (g * group + k) * 16;
      float* to = dst + g * group_ld + k * ld;
      for (int j = 0; j < 16; j += kTile) {  // one 64-byte row: 1 (AVX-512) or 2 (AVX2) vectors
        f32x<Arch>::load_aligned(from + j).store_unaligned(to + j);
      }
    }
  }
  return true;
}

template <class Arch, class T>
void transpose(const void* src, int64_t src_ld, void* dst, const dst_columns& dst_cols,
               int64_t rows, int64_t cols, int64_t pad_rows, bool stream) {
  if constexpr (sizeof(T) == 4 && kRegisterTile<Arch> != 0) {
    if (grouped_strip<Arch>(static_cast<const float*>(src), src_ld, static_cast<float*>(dst),
                            dst_cols, rows, cols, pad_rows, stream)) {
      return;
    }
  }
  const int64_t head = sizeof(T) == 4 && kRegisterTile<Arch> == 8
                           ? aligning_head_avx2<Arch, T>(dst, dst_cols, rows, stream)
                           : aligning_head<Arch, T>(dst, dst_cols, rows);
  const int64_t col_head = aligning_col_head<Arch, T>(src, src_ld, dst_cols, rows, cols);
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    transpose_tiles<Arch>(static_cast<const T*>(src), src_ld, static_cast<T*>(dst), columns_at,
                          rows, cols, pad_rows, stream, head, col_head);
  });
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TILE_WALK_H_
