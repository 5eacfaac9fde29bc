// The per-ISA inner loops of the reorder kernels (xsimd), looked up by element types.
//
//   convert_run_fn* cvt = find_convert_run<xsimd::avx2>(data_type::f32, data_type::s8);
//   if (cvt) cvt(src, dst, n, quant, /*stream=*/false);  // n contiguous elements, common quantization
//   transpose_fn* t = find_transpose<xsimd::avx2>(4);
//   t(src, src_ld, dst, dst_columns{dst_ld}, rows, cols, /*pad_rows=*/rows, /*stream=*/false);
//   // dst[c * dst_ld + r] = src[r * src_ld + c]; with pad_rows > rows, dst rows [rows, pad_rows)
//   // of every column get zeros (the padding of a partial block, written with its data)
//   quant_row_fn* row = find_quant_row<xsimd::avx2>(data_type::f32, data_type::u4);
//   row(src, dst, n, row_q, /*stream=*/false);  // one row, scales and zero points per column
//
// Each ISA's instantiation lives in its own translation unit (simd/build_defs.bzl).
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_VECTOR_KERNELS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_VECTOR_KERNELS_H_

#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/primitives/reorder/internal/element_math.h"

namespace tessera::reorder_internal {

// Where each column of a transposed tile starts in dst, relative to column 0. Plain: c * ld.
// Grouped (group > 0): the columns are the src-contiguous run of two loop nodes, `group` columns
// per group, c -> (c / group) * group_ld + (c % group) * ld (oihw -> OIhw16i16o: the 16 i x 9 hw
// of one src row are 144 contiguous columns, so tiles load whole vectors instead of 9 lanes).
struct dst_columns {
  int64_t ld = 0;
  int64_t group = 0;
  int64_t group_ld = 0;
};

// Transposes whose src rows lie in different pages (the hardware prefetcher follows each page
// on its own) and that span more than one band of kBandRows rows move band by band, prefetching
// the next band (transpose_tiles; AVX2 with a large dst streams each band through a local block
// instead, without the prefetch); run_transpose gives them strips of kBandCols columns, so a
// band's src rows are read in runs of 1 KB (f32) and its dst rows written in runs of 256 bytes.
// AVX2's streamed 32-bit bit copies take strips of kWideBandCols columns instead (plan's
// wide_bands), which its kernel moves 16 rows at a time across the strip.
inline constexpr int64_t kBandRows = 64, kBandCols = 256, kWideBandCols = 1024,
                         kFarRowBytes = 4096;
inline bool banded_transpose(int64_t src_row_step_bytes, int64_t rows) {
  return src_row_step_bytes >= kFarRowBytes && rows > kBandRows;
}

// n contiguous elements; quantization values (if any) at index 0 of each array. stream: the
// vector stores may go around the cache (a large destination).
using convert_run_fn = void(const void* src, void* dst, int64_t n, const quant_ptrs& q,
                            bool stream);
// A rows x cols tile of elements moved without conversion (element size fixed by the lookup).
// pad_rows (>= rows): dst rows [rows, pad_rows) of each column are zeroed.
// stream: full, aligned register tiles may use non-temporal stores (large destinations).
using transpose_fn = void(const void* src, int64_t src_ld, void* dst, const dst_columns& dst_cols,
                          int64_t rows, int64_t cols, int64_t pad_rows, bool stream);
// The same tile moved and converted in one pass (common quantization, as convert_run_fn); the
// zeroed rows are plain zeros, not quantized ones. stream: as transpose_fn (8-bit dst rows of
// 64 bytes written as whole lines).
using transpose_convert_fn = void(const void* src, int64_t src_ld, void* dst,
                                  const dst_columns& dst_cols, int64_t rows, int64_t cols,
                                  int64_t pad_rows, const quant_ptrs& q, bool stream);

// A scale or zero point of a row, as f32: values[j] for column j (per_column), else values[0]
// for every column; values == nullptr: the attribute is absent.
struct row_operand {
  const float* values = nullptr;
  bool per_column = false;
};
// The quantization of one row, applied in apply_one's order (element_math.h; zero points as
// f32, as apply_one converts them).
struct row_quant {
  row_operand src_zp, src_scale, dst_scale, dst_zp;
};
// One row of n contiguous elements, each side dense; a 4-bit side starts on a byte and n is even.
// stream: dst is large (its stores may go around the cache).
using quant_row_fn = void(const void* src, void* dst, int64_t n, const row_quant& q, bool stream);

// nullptr when this ISA has no vector conversion for the pair (f64, f16 and f8 types).
template <class Arch>
convert_run_fn* find_convert_run(data_type s, data_type d);
// nullptr for element sizes other than 1, 2, 4, 8 bytes.
template <class Arch>
transpose_fn* find_transpose(int element_bytes);
// nullptr unless this ISA fuses the pair (AVX-512: f32 or s32 sources to vector-convertible types).
template <class Arch>
transpose_convert_fn* find_transpose_convert(data_type s, data_type d);
// nullptr unless one side is s4 or u4 and the other f32, bf16 or f16 (weight compression and
// decompression).
template <class Arch>
quant_row_fn* find_quant_row(data_type s, data_type d);
// The tile edge of find_transpose (elements), for the implementation name.
template <class Arch>
int transpose_tile();

// The per-ISA lookups of one instantiation, so that the dispatcher keeps one pointer.
struct vector_kernels {
  convert_run_fn* (*find_convert_run)(data_type, data_type);
  transpose_fn* (*find_transpose)(int);
  int (*transpose_tile)();
  transpose_convert_fn* (*find_transpose_convert)(data_type, data_type);
  quant_row_fn* (*find_quant_row)(data_type, data_type);
};
template <class Arch>
const vector_kernels* vector_kernels_for();

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_VECTOR_KERNELS_H_
