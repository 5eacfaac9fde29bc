// AVX2's fused transpose and convert (transpose_convert_fn), for 32-bit sources into 8-bit dst
// and f32/s32 <-> f16: blocks of 32 (or, streamed, 64) rows x 8 columns packed as row quads, and
// 8x8 tiles converted per dst row. Instantiated only for Archs with 8-lane register tiles
// (find_transpose_convert). Per-ISA code: included only from vector_kernels.cc.
//
// The two-pass path through scratch (transposing f32 into a block and narrowing it through a
// stack buffer) falls behind oneDNN on f32 -> s8 nchw -> nhwc. Rows in blocks of 32 x 8 columns
// (convert_block32_to_bytes) where they fit, the rest (the sum post-op, rows past the last 32,
// partial column tiles, padding rows) by 8x8 tiles converted per dst row.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX2_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX2_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tessera/primitives/reorder/internal/convert_runs.h"
#include "tessera/primitives/reorder/internal/register_tiles.h"
#include "tessera/primitives/reorder/internal/tile_columns.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/transpose.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

// How far ahead along its row each src row of a tall block is prefetched (elements; 4 cache
// lines of f32): AVX2's unstreamed 32-row byte blocks. They are 32 read streams at once, more
// than the hardware prefetcher follows: without it a block waits on its loads.
constexpr int kPrefetchAhead = 64;

// A 32-row x 8-column block of a 32-bit source converted to 8-bit lanes (eight row quads,
// pack_row_quad_to_bytes), then transposed: out[i] holds column i's 32 rows, one 32-byte dst row.
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline void convert_block32_to_bytes(const S* src, int64_t src_ld,
                                                            const Lanes& lanes, f32x<Arch>* out) {
  for (int g = 0; g < 8; ++g) {
    for (int j = 0; j < 4; ++j) {
      const S* row = src + (4 * g + j) * src_ld;
      simd::prefetch<simd::locality::l1>(row + kPrefetchAhead);
    }
    out[g] = xsimd::bitwise_cast<f32x<Arch>>(
        pack_row_quad_to_bytes<Arch, S, D>(src + 4 * g * src_ld, src_ld, 8, lanes));
  }
  simd::transpose_square(out);
}

// AVX2's convert_strip64_to_bytes: 64 rows x cols (a multiple of 8) of a 32-bit source
// converted to 8-bit lanes and transposed, in chunks of kBytes64ChunkAvx2 columns through a
// local block of packed row quads (64 KB), 16 rows (4 quads) at a time along the chunk, each src
// line prefetched (to L2) 16 rows ahead: of this chunk, or the next chunk's first rows.
// emit(c0, first, second) receives columns c0 .. c0 + 7, rows 0-31 in first[i] and 32-63 in
// second[i]. Reading 8 columns of all 64 rows in turn (two convert_block32_to_bytes) kept 64
// read streams in flight, more than the hardware prefetcher follows.
constexpr int kBytes64ChunkAvx2 = 1024;

template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline void pack_chunk64_avx2(const S* src, int64_t src_ld, int64_t cols,
                                                     int64_t k0, int groups, const Lanes& lanes,
                                                     f32x<Arch> (*block)[16]) {
  constexpr int kStepQuads = 4;
  for (int g0 = 0; g0 < 16; g0 += kStepQuads) {
    const int64_t next_k0 = g0 + kStepQuads < 16 ? k0 : k0 + kBytes64ChunkAvx2;
    const S* next =
        next_k0 < cols ? src + 4 * ((g0 + kStepQuads) % 16) * src_ld + next_k0 : nullptr;
    for (int q = 0; q < groups; ++q) {
      // Once per 64-byte line: the lines of the next 16 rows at these columns.
      if (next != nullptr && q % 2 == 0 && next_k0 + 8 * q < cols) {
        for (int j = 0; j < 4 * kStepQuads; ++j) {
          simd::prefetch<simd::locality::l2>(next + j * src_ld + 8 * q);
        }
      }
      for (int g = g0; g < g0 + kStepQuads; ++g) {
        block[q][g] = xsimd::bitwise_cast<f32x<Arch>>(pack_row_quad_to_bytes<Arch, S, D>(
            src + 4 * g * src_ld + k0 + 8 * q, src_ld, 8, lanes));
      }
    }
  }
}

template <class Arch, class S, class D, class Lanes, class Emit>
void convert_strip64_to_bytes_avx2(const S* src, int64_t src_ld, int64_t cols, const Lanes& lanes,
                                   const Emit& emit) {
  // [8-column group][row quad]; per thread, not on the stack (run_transpose's scratch is).
  thread_local std::vector<f32x<Arch>> storage(kBytes64ChunkAvx2 / 8 * 16);
  auto* block = reinterpret_cast<f32x<Arch>(*)[16]>(storage.data());
  for (int64_t k0 = 0; k0 < cols; k0 += kBytes64ChunkAvx2) {
    const int groups = static_cast<int>(std::min<int64_t>(kBytes64ChunkAvx2, cols - k0) / 8);
    pack_chunk64_avx2<Arch, S, D>(src, src_ld, cols, k0, groups, lanes, block);
    for (int q = 0; q < groups; ++q) {
      f32x<Arch> first[8], second[8];
      for (int g = 0; g < 8; ++g) first[g] = block[q][g];
      simd::transpose_square(first);
      for (int g = 0; g < 8; ++g) second[g] = block[q][8 + g];
      simd::transpose_square(second);
      emit(k0 + 8 * q, first, second);
    }
  }
}

// Calls f with the lanes of the row blocks of transpose_convert_avx2, which never have the sum
// post-op: a run_lanes without steps, or with the one scale, when that is all q has, else
// quant_lanes itself. quant_lanes::apply tests each attribute per vector, reading q through a
// reference after every store (the compiler cannot keep it in registers): in a warm f32 -> s8
// run, 5 compares with memory and 20 branches per four rows of 8 columns, against about 20
// other instructions. Choosing the steps once measured clearly faster on small warm f32 -> s8
// nchw -> nhwc (1x64x56x56, 2x64x28x28, with or without a src scale). Rows 4 KB apart
// (2x64x32x32, every row of a block in one L1 set) are bound by conflict misses instead, and do
// not gain.
template <class Arch, class F>
[[gnu::always_inline]] inline void with_block_lanes(const quant_lanes<Arch>& lanes,
                                                    const quant_ptrs& q, const F& f) {
  switch (choose_run_quant(q)) {
    case run_quant::none:
      return f(run_lanes<Arch, run_quant::none>{lanes});
    case run_quant::scale_only:
      return f(run_lanes<Arch, run_quant::scale_only>{lanes});
    default:
      return f(lanes);
  }
}

// Rows [r_begin, r_end) x columns [c_begin, c_end) in 8x8 tiles, each dst row (a column of the
// tile) converted through store_from_f32; partial tiles through a zeroed local block (nothing
// outside them is read), rows from `rows` to pad_rows zeros.
template <class Arch, class S, class D, class ColumnsAt>
void transpose_convert_tiles8(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                              int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end,
                              int64_t rows, const quant_lanes<Arch>& lanes, const quant_ptrs& q) {
  for (int64_t r0 = r_begin; r0 < r_end; r0 += 8) {
    const int rn = static_cast<int>(std::clamp<int64_t>(rows - r0, 0, 8));
    const int pn = static_cast<int>(std::min<int64_t>(8, r_end - r0));
    for (int64_t c0 = c_begin; c0 < c_end; c0 += 8) {
      const int cn = static_cast<int>(std::min<int64_t>(8, c_end - c0));
      const auto col = columns_at(c0, cn);
      // A partial tile through a zeroed local block (nothing outside it is read).
      alignas(32) S block[8][8] = {};
      const S* from = src + r0 * src_ld + c0;
      int64_t ld = src_ld;
      if (rn != 8 || cn != 8) {
        for (int r = 0; r < rn; ++r) {
          std::memcpy(block[r], src + (r0 + r) * src_ld + c0, cn * sizeof(S));
        }
        from = &block[0][0];
        ld = 8;
      }
      f32x<Arch> t[8];
      if constexpr (std::is_same_v<S, f16>) {
        // Rows of 8 f16 widened by vcvtph2ps (exact), then the f32 transpose.
        for (int i = 0; i < 8; ++i) t[i] = simd::load_f32<Arch>(from + i * ld);
        simd::transpose_square(t);
      } else {
        load_transposed8x8<Arch>(reinterpret_cast<const float*>(from), ld, t);
      }
      for (int i = 0; i < cn; ++i) {
        store_converted_column<Arch, S>(t[i], dst + col(i) + r0, rn, pn, lanes, q);
      }
    }
  }
}

// The streamed row blocks of transpose_convert_avx2: 64 rows at a time through
// convert_strip64_to_bytes_avx2 (kernels.cc gives these strips up to 4096 columns:
// byte_blocks64); each column's 64 dst bytes (a whole line when on one, as for nchw -> nhwc with
// 64 channels) are stored back to back, by two non-temporal 32-byte stores, and dst is not read
// for ownership. Faster on f32 -> s8 32x64x56x56 cold (1 and 2 threads) than two 32-row blocks
// of the same 8 columns at a time from 256-column strips (64 read streams in step); one 32-row
// block at a time writes every line in two halves a strip apart. Returns where they end.
template <class Arch, class S, class D, class ColumnsAt, class Lanes>
[[gnu::always_inline]] inline int64_t stream_blocks64_avx2(const S* src, int64_t src_ld, D* dst,
                                                           const ColumnsAt& columns_at,
                                                           int64_t block_rows, int64_t block_cols,
                                                           const Lanes& block_lanes) {
  int64_t r0 = 0;
  for (; r0 + 64 <= block_rows; r0 += 64) {
    D* d = dst + r0;
    convert_strip64_to_bytes_avx2<Arch, S, D>(
        src + r0 * src_ld, src_ld, block_cols, block_lanes,
        [&](int64_t c0, const f32x<Arch>* first, const f32x<Arch>* second) {
          const auto col = columns_at(c0, 8);
          const bool lines = col.all_aligned64(d, 8);
          for (int i = 0; i < 8; ++i) {
            auto* to = reinterpret_cast<float*>(d + col(i));
            if (lines) {
              simd::stream_store(to, first[i]);
              simd::stream_store(to + 8, second[i]);
            } else {
              first[i].store_unaligned(to);
              second[i].store_unaligned(to + 8);
            }
          }
        });
  }
  simd::store_fence();  // streamed stores visible before the task ends
  return r0;
}

template <class Arch, class S, class D>
void transpose_convert_avx2(const void* src_v, int64_t src_ld, void* dst_v,
                            const dst_columns& dst_cols, int64_t rows, int64_t cols,
                            int64_t pad_rows, const quant_ptrs& q, bool stream) {
  const auto* src = static_cast<const S*>(src_v);
  auto* dst = static_cast<D*>(dst_v);
  const quant_lanes<Arch> lanes(q);
  // The row blocks: 32-bit src into 8-bit dst only, and not with the sum post-op (it reads dst
  // in dst order). f16 pairs go through the 8x8 tiles alone.
  constexpr bool kByteBlocks = sizeof(S) == 4 && sizeof(D) == 1;
  const int64_t block_rows = q.has_sum || !kByteBlocks ? 0 : rows / 32 * 32;
  const int64_t block_cols = cols / 8 * 8;
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    // The row blocks, with the quantization's steps chosen once (block_lanes). Inlined in each
    // case, so that the captured loop state stays in registers.
    if constexpr (kByteBlocks) {
      with_block_lanes(
          lanes, q, [&](const auto& block_lanes) __attribute__((always_inline)) {
            int64_t r0 = 0;
            if (stream) {
              r0 = stream_blocks64_avx2<Arch, S>(src, src_ld, dst, columns_at, block_rows,
                                                 block_cols, block_lanes);
            }
            for (; r0 < block_rows; r0 += 32) {
              for (int64_t c0 = 0; c0 < block_cols; c0 += 8) {
                const auto col = columns_at(c0, 8);
                f32x<Arch> out[8];
                convert_block32_to_bytes<Arch, S, D>(src + r0 * src_ld + c0, src_ld, block_lanes,
                                                     out);
                for (int i = 0; i < 8; ++i)
                  out[i].store_unaligned(reinterpret_cast<float*>(dst + col(i) + r0));
              }
            }
          });
    }
    if (block_rows > 0 && block_cols < cols) {
      transpose_convert_tiles8<Arch>(src, src_ld, dst, columns_at, 0, block_rows, block_cols, cols,
                                     rows, lanes, q);
    }
    transpose_convert_tiles8<Arch>(src, src_ld, dst, columns_at, block_rows, pad_rows, 0, cols,
                                   rows, lanes, q);
  });
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_CONVERT_AVX2_H_
