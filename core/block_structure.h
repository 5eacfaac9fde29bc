// The structure of a blocked layout, derived in one place. memory_desc::offset, layout::offset
// (formats/layout.h) and nodes_of (formats/algebra.h: the node lists the loop nests, axis views and
// zero padding are built from) all read a layout through for_each_component.
//
//   tessera::blocking_desc b;                          // nChw16c: one block of 16 on dim 1
//   b.strides = {288, 144, 48, 16};
//   b.inner_nblks = 1; b.inner_blks[0] = 16; b.inner_idxs[0] = 1;
//   std::array<tessera::dim_t, tessera::kMaxRank> i = {1, 16, 2, 0};
//   tessera::blocked_offset(tessera::block_view_of(4, b), i);  // 288 + 144 + 96 = 528
//
// A blocked layout writes each logical index i_d as digits: one per inner block on d (the
// innermost block takes the lowest digit) and the outer part i_d / B_d, where B_d is the product
// of d's blocks. The inner blocks form one dense tile, outermost block first, so
//   offset(i) = sum_d (i_d / B_d) * strides[d]
//             + sum_k ((i_{dim_k} / divisor_k) % size_k) * tile_stride_k
// where tile_stride_k is the product of the sizes of the blocks after k, and divisor_k the product
// of the sizes of dim_k's blocks after k. offset0 and padded offsets are the descriptor's business.
#ifndef TESSERA_CORE_BLOCK_STRUCTURE_H_
#define TESSERA_CORE_BLOCK_STRUCTURE_H_

#include <array>
#include <cstdint>

#include "tessera/core/memory_desc.h"

namespace tessera {

// Outer strides and inner blocks (outermost first) of a blocked layout, without its dims. It
// points into a blocking_desc or into a layout's tag and strides, and is valid while they are.
// Expected valid (as memory_desc::with_blocking and the tag parser ensure): rank and nblks in
// [0, kMaxRank], block sizes >= 1, block dims in [0, rank).
struct block_view {
  int rank = 0;
  const dim_t* strides = nullptr;
  int nblks = 0;
  const dim_t* blk_sizes = nullptr;
  const int* blk_dims = nullptr;
};

constexpr block_view block_view_of(int rank, const blocking_desc& b) {
  return {rank, b.strides.data(), b.inner_nblks, b.inner_blks.data(), b.inner_idxs.data()};
}

// Inner block `block` as an index component: contributes ((i[dim] / divisor) % size) * stride.
struct inner_component {
  int block = 0;
  int dim = 0;
  dim_t size = 1;
  dim_t divisor = 1;  // product of the sizes of dim's blocks inside this one
  dim_t stride = 1;   // in the tile: product of the sizes of every block inside this one
};

// The outer part of dim `dim`: contributes (i[dim] / block_product) * stride.
struct outer_component {
  int dim = 0;
  dim_t block_product = 1;  // B_dim, 1 for an unblocked dim
  dim_t stride = 0;
};

// Calls on_inner for every inner block, from the innermost (block nblks - 1) to the outermost
// (block 0), then on_outer for every dim in logical order (0 .. rank - 1).
// Post-conditions: on_inner sees block k exactly once, with size blk_sizes[k], dim blk_dims[k],
// divisor = prod of blk_sizes[j] over j > k with blk_dims[j] == dim, stride = prod of
// blk_sizes[j] over j > k; on_outer sees dim d exactly once, with block_product = prod of
// blk_sizes[k] over blk_dims[k] == d (1 when there is none) and stride strides[d]. Together the
// components are every digit of the layout, and they visit the digits of each dim lowest first.
// The divisors and block products are computed where they are passed (no per-dim state), so a
// caller that does not read them (blocked_offset) compiles to the loop over the blocks alone.
template <class OnInner, class OnOuter>
constexpr void for_each_component(const block_view& v, OnInner&& on_inner, OnOuter&& on_outer) {
  dim_t tile_stride = 1;
  for (int k = v.nblks - 1; k >= 0; --k) {
    const int d = v.blk_dims[k];
    dim_t divisor = 1;
    for (int j = k + 1; j < v.nblks; ++j) {
      if (v.blk_dims[j] == d) divisor *= v.blk_sizes[j];
    }
    on_inner(inner_component{k, d, v.blk_sizes[k], divisor, tile_stride});
    tile_stride *= v.blk_sizes[k];
  }
  for (int d = 0; d < v.rank; ++d) {
    dim_t block_product = 1;
    for (int k = 0; k < v.nblks; ++k) {
      if (v.blk_dims[k] == d) block_product *= v.blk_sizes[k];
    }
    on_outer(outer_component{d, block_product, v.strides[d]});
  }
}

// The element offset, without offset0, of the index held in `digits` (one entry per dim, within
// the padded dims: not checked): the formula at the top of this file. `digits` is worked on in
// place (each dim's block digits are peeled off, lowest first); on return digits[d] is dim d's
// outer index i_d / B_d.
// Post-condition: returns sum_d (i_d / B_d) * strides[d] + sum_k ((i_{dim_k} / divisor_k) %
// size_k) * tile_stride_k (peeling divides by the same divisors, one block at a time).
constexpr dim_t blocked_offset(const block_view& v, std::array<dim_t, kMaxRank>& digits) {
  dim_t off = 0;
  for_each_component(
      v,
      [&](const inner_component& c) {
        off += (digits[c.dim] % c.size) * c.stride;
        digits[c.dim] /= c.size;
      },
      [&](const outer_component& c) { off += digits[c.dim] * c.stride; });
  return off;
}

}  // namespace tessera

#endif  // TESSERA_CORE_BLOCK_STRUCTURE_H_
