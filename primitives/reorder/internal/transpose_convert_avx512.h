// AVX-512's fused transpose and convert (transpose_convert_fn): 16x16 register tiles converted
// per dst row, and 64-row strips of 32-bit sources into 8-bit dst packed as row quads.
// Instantiated only for Archs with 16-lane register tiles (find_transpose_convert).
// Per-ISA code: included only from vector_kernels.cc.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX512_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX512_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tessera/primitives/reorder/internal/convert_runs.h"
#include "tessera/primitives/reorder/internal/register_tiles.h"
#include "tessera/primitives/reorder/internal/tile_columns.h"
#include "tessera/simd/lines.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/narrow.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/tail.h"
#include "tessera/simd/transpose.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// 16 packed row quads (rows 4g .. 4g + 3 in quads[g], pack_row_quad_to_bytes) transposed by
// 4-byte groups: out[i] holds column i's 64 rows, one 64-byte dst row.
template <class Arch>
[[gnu::always_inline]] inline void transpose_row_quads(const s32x<Arch>* quads, s32x<Arch>* out) {
  f32x<Arch> groups[16];
  for (int g = 0; g < 16; ++g) groups[g] = xsimd::bitwise_cast<f32x<Arch>>(quads[g]);
  simd::transpose_square(groups);
  for (int i = 0; i < 16; ++i) out[i] = xsimd::bitwise_cast<s32x<Arch>>(groups[i]);
}

// A 64-row strip's columns are taken in chunks of kBytes64Chunk through a local block of packed
// row quads (64 KB), 16 rows (4 quads) at a time along the chunk; each load prefetches the line
// of the next 16 rows at the same column to L2. Reading one line from each of the 64 rows in
// turn keeps 64 read streams in flight, more than the hardware prefetcher follows (a read-only
// loop over this src runs far below the sequential rate that way); 16 rows along a chunk
// read at about the rate of a plain sequential read. Chunks of 1024 columns (4 KB runs of each
// row) measured faster than 256 on f32 -> s8 nchw -> nhwc cold, 1 and 2 threads.
constexpr int kBytes64Chunk = 1024;
constexpr int kBytes64StepQuads = 4;

// Packs one chunk's row quads into block[16-column group][row quad], 16 rows at a time, each
// load prefetching the next 16 rows' line at its column (of this chunk, or the next chunk's
// first rows after the last).
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline void pack_chunk64(const S* src, int64_t src_ld, int64_t cols,
                                                int64_t k0, int kn, const Lanes& lanes,
                                                s32x<Arch> (*block)[16]) {
  const int groups = (kn + 15) / 16;
  for (int g0 = 0; g0 < 16; g0 += kBytes64StepQuads) {
    const int64_t next_k0 = g0 + kBytes64StepQuads < 16 ? k0 : k0 + kBytes64Chunk;
    const S* next =
        next_k0 < cols ? src + 4 * ((g0 + kBytes64StepQuads) % 16) * src_ld + next_k0 : nullptr;
    for (int q = 0; q < groups; ++q) {
      const bool fetch = next != nullptr && next_k0 + 16 * q < cols;
      for (int g = g0; g < g0 + kBytes64StepQuads; ++g) {
        if (fetch) {
          for (int j = 0; j < 4; ++j) {
            simd::prefetch<simd::locality::l2>(next + (4 * (g - g0) + j) * src_ld + 16 * q);
          }
        }
        block[q][g] = pack_row_quad_to_bytes<Arch, S, D>(src + 4 * g * src_ld + k0 + 16 * q, src_ld,
                                                         std::min(16, kn - 16 * q), lanes);
      }
    }
  }
}

// 64 rows x cols of a 32-bit source converted to 8-bit lanes and transposed, in chunks of
// kBytes64Chunk columns through a local byte block; emit(c0, cn, out) receives the 64-byte dst
// rows of columns c0 .. c0 + cn - 1 in column order.
template <class Arch, class S, class D, class Lanes, class Emit>
void convert_strip64_to_bytes(const S* src, int64_t src_ld, int64_t cols, const Lanes& lanes,
                              const Emit& emit) {
  // [16-column group][row quad]; per thread, not on the stack (run_transpose's scratch is).
  thread_local std::vector<s32x<Arch>> storage(kBytes64Chunk);
  auto* block = reinterpret_cast<s32x<Arch>(*)[16]>(storage.data());
  s32x<Arch> out[16];
  for (int64_t k0 = 0; k0 < cols; k0 += kBytes64Chunk) {
    const int kn = static_cast<int>(std::min<int64_t>(kBytes64Chunk, cols - k0));
    const int groups = (kn + 15) / 16;
    pack_chunk64<Arch, S, D>(src, src_ld, cols, k0, kn, lanes, block);
    for (int q = 0; q < groups; ++q) {
      transpose_row_quads<Arch>(block[q], out);
      emit(k0 + 16 * q, std::min(16, kn - 16 * q), out);
    }
  }
}

// Rows [0, rows / 64 * 64) of an 8-bit destination, 64 at a time (convert_strip64_to_bytes).
// contiguous: the dst rows of the strip's columns follow each other (64 rows, ld 64: nchw ->
// nhwc with 64 channels), written through simd::line_writer.
template <class Arch, class S, class D, class ColumnsAt, class Lanes>
void transpose_convert_bytes64(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                               int64_t rows, int64_t cols, const Lanes& lanes, bool contiguous,
                               bool stream) {
  using writer = simd::line_writer<Arch>;
  if (contiguous && writer::fits(dst)) {
    writer w(reinterpret_cast<unsigned char*>(dst), stream);
    convert_strip64_to_bytes<Arch, S, D>(src, src_ld, cols, lanes,
                                         [&](int64_t, int cn, const s32x<Arch>* out) {
                                           for (int i = 0; i < cn; ++i) w.push(out + i);
                                         });
    w.finish();
  } else {
    for (int64_t r0 = 0; r0 + 64 <= rows; r0 += 64) {
      D* d = dst + r0;
      convert_strip64_to_bytes<Arch, S, D>(
          src + r0 * src_ld, src_ld, cols, lanes, [&](int64_t c0, int cn, const s32x<Arch>* out) {
            const auto col = columns_at(c0, cn);
            if (stream && col.all_aligned64(d, cn)) {
              for (int i = 0; i < cn; ++i) {
                simd::stream_store(reinterpret_cast<int32_t*>(d + col(i)), out[i]);
              }
            } else {
              for (int i = 0; i < cn; ++i)
                out[i].store_unaligned(reinterpret_cast<int32_t*>(d + col(i)));
            }
          });
    }
  }
  if (stream) simd::store_fence();  // streamed stores visible before the task ends
}

// The 16x16 tiles of transpose_convert_tiles from row first_row on: each tile transposed in
// registers (f16 widened first), each dst row converted (store_converted_column), or for
// f16 -> f32 (kStreamedRows), whole 64-byte f32 rows on lines streamed, as the f32 bit copies'.
template <class Arch, class S, class D, class ColumnsAt>
[[gnu::always_inline]] inline void convert_tiles16(const S* src, int64_t src_ld, D* dst,
                                                   const ColumnsAt& columns_at, int64_t first_row,
                                                   int64_t rows, int64_t cols, int64_t pad_rows,
                                                   const quant_lanes<Arch>& lanes,
                                                   const quant_ptrs& q, bool stream) {
  constexpr bool kStreamedRows = std::is_same_v<S, f16> && std::is_same_v<D, float>;
  for (int64_t r0 = first_row; r0 < pad_rows; r0 += 16) {
    const int rn = static_cast<int>(std::clamp<int64_t>(rows - r0, 0, 16));
    const int pn = static_cast<int>(std::min<int64_t>(16, pad_rows - r0));
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      const int cn = static_cast<int>(std::min<int64_t>(16, cols - c0));
      const auto col = columns_at(c0, cn);
      f32x<Arch> r[16];
      const S* s = rn > 0 ? src + r0 * src_ld + c0 : src;  // padding rows: no src address
      if constexpr (std::is_same_v<S, f16>) {
        load_transposed<Arch>(s, src_ld, rn, cn, r);
      } else {
        load_transposed<Arch>(reinterpret_cast<const float*>(s), src_ld, rn, cn, r);
      }
      if constexpr (kStreamedRows) {
        if (stream && rn == 16 && col.all_aligned64(dst + r0, cn)) {
          for (int i = 0; i < cn; ++i) {
            float* out = dst + col(i) + r0;
            simd::stream_store(out, lanes.apply(r[i], out));
          }
          continue;
        }
      }
      for (int i = 0; i < cn; ++i) {
        store_converted_column<Arch, S>(r[i], dst + col(i) + r0, rn, pn, lanes, q);
      }
    }
  }
}

template <class Arch, class S, class D, class ColumnsAt>
void transpose_convert_tiles(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                             int64_t rows, int64_t cols, int64_t pad_rows, const quant_ptrs& q,
                             bool contiguous, bool stream) {
  const quant_lanes<Arch> lanes(q);
  // f16 -> f32 (widening: dst is twice src's bytes) streams its rows when the plan streams dst.
  constexpr bool kStreamedRows = std::is_same_v<S, f16> && std::is_same_v<D, float>;
  stream = stream && !q.has_sum;  // the sum reads the old dst lines into the cache anyway
  int64_t first_row = 0;
  if constexpr (sizeof(D) == 1) {
    // 8-bit rows are 16 bytes per 16x16 tile: whole 64-byte rows from 64-row blocks instead.
    // Not with the sum post-op (it reads dst in dst order).
    // The attributes' steps chosen once (run_lanes), not tested per vector: those tests would be
    // most of this loop's instructions.
    if (!q.has_sum && rows >= 64) {
      with_run_quant(q, [&](auto kind) {
        transpose_convert_bytes64<Arch>(src, src_ld, dst, columns_at, rows, cols,
                                        run_lanes<Arch, decltype(kind)::value>{lanes},
                                        contiguous && rows == 64 && pad_rows == 64, stream);
      });
      first_row = rows / 64 * 64;
    }
  }
  convert_tiles16<Arch>(src, src_ld, dst, columns_at, first_row, rows, cols, pad_rows, lanes, q,
                        stream);
  if constexpr (kStreamedRows) {
    if (stream) simd::store_fence();  // streamed stores visible before the task ends
  }
}

// Transpose and convert in one pass (AVX-512; 32-bit sources, and f16 into f32): each 16x16 tile
// is transposed in registers (f16 widened first) and every transposed row goes through
// quant_lanes and store_from_f32; the row edges through a small buffer so that nothing past the
// tile is touched.
template <class Arch, class S, class D>
void transpose_convert(const void* src, int64_t src_ld, void* dst, const dst_columns& dst_cols,
                       int64_t rows, int64_t cols, int64_t pad_rows, const quant_ptrs& q,
                       bool stream) {
  // Plain columns (with_tile_columns) whose dst rows are 64 bytes back to back.
  const bool contiguous =
      (dst_cols.group == 0 || dst_cols.group >= cols) && dst_cols.ld * int64_t{sizeof(D)} == 64;
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    transpose_convert_tiles<Arch>(static_cast<const S*>(src), src_ld, static_cast<D*>(dst),
                                  columns_at, rows, cols, pad_rows, q, contiguous, stream);
  });
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX512_H_
