// The ops of <tessera/simd/transpose.h>, <tessera/simd/narrow.h>, <tessera/simd/lines.h>,
// <tessera/simd/nibbles.h> and tail.h's load_joined, each run in its ISA version and its portable
// version on pseudo-random inputs (tile_ops_kernels.cc, instantiated per ISA), for //simd:tile_ops_test.
#ifndef TESSERA_SIMD_INTERNAL_TILE_OPS_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_TILE_OPS_KERNELS_H_

#include <cstdint>

namespace tessera::simd::internal {

enum class tile_op {
  transpose_square,
  transpose_4x4_blocks,
  load_halves,
  transpose_16x16_u8,
  transpose_8x8_u16,
  store_narrowed_s8,
  store_narrowed_u8,
  store_narrowed_u16,
  stream_narrowed_s8,
  stream_narrowed_u16,
  pack_low_words,
  pack_rows4_s8,
  pack_rows4_u8,
  store_halves,
  store_quarters,
  stream_quarters,
  load_scalar,
  stream_line_copy,
  line_writer,
  load_joined,
  store_nibbles,
  load_nibbles_s4,
  load_nibbles_u4,
  count,
};
inline constexpr int kTileOpCount = static_cast<int>(tile_op::count);

// How many output bytes (or lanes) of `op` differ between the ISA version and the portable one
// (or a plain scalar expectation where the portable version is a plain store), over a few rounds
// of inputs drawn from `seed`. 0 when they agree.
template <class Arch>
int tile_op_mismatches(tile_op op, uint32_t seed);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_TILE_OPS_KERNELS_H_
