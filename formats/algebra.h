// The layout algebra: permute, block, coalesce, and the node view a reorder uses to find the
// longest contiguous run two layouts share.
//
//   constexpr tessera::tag_layout t = tessera::block(tessera::tag<"abcd">, 1, 16);  // aBcd16b
//   constexpr tessera::tag_layout p = tessera::permute(tessera::tag<"abcd">, {0, 3, 1, 2});
//   // dim d became dim perm[d]: memory order a,b,c,d reads a,d,b,c, so p == tag<"adbc">.
//
//   // A reorder nchw -> nhwc of 2x16x3x3 as a loop nest of (size, src stride, dst stride):
//   auto src = tessera::nodes_of(*tessera::make_layout("nchw", {2, 16, 3, 3}));
//   auto dst = tessera::nodes_of(*tessera::make_layout("nhwc", {2, 16, 3, 3}));
//   absl::StatusOr<tessera::loop_nest> nest = tessera::joint_coalesce(src, dst);
//   // {2: 144,144} {9: 1,16} {16: 9,1}   (h and w merged: contiguous in both)
//
// Post-conditions (each property-tested in algebra_test.cc):
//   permute  offset'(j) == offset(i) where j[perm[d]] = i[d]
//   block    a tag layout again: injective, covers exactly its (padded) size
//   coalesce (node_list) offset of every index preserved; no two adjacent nodes still mergeable
//   coalesce (strided)   offset of every row-major linear index preserved
//   joint_coalesce       the set of (src offset, dst offset) pairs over the index space preserved
#ifndef TESSERA_FORMATS_ALGEBRA_H_
#define TESSERA_FORMATS_ALGEBRA_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/tag.h"

namespace tessera {

// ---- permute and block on tags ----------------------------------------------------------------

// oneDNN's permute_axes: logical dim d becomes dim perm[d]. Invalid perm: result has rank -1.
constexpr tag_layout permute(const tag_layout& t, std::span<const int> perm) {
  tag_layout r = t;
  bool seen[kMaxRank] = {};
  if (static_cast<int>(perm.size()) != t.rank || t.is_any) {
    r.rank = -1;
    return r;
  }
  for (int p : perm) {
    if (p < 0 || p >= t.rank || seen[p]) {
      r.rank = -1;
      return r;
    }
    seen[p] = true;
  }
  for (int k = 0; k < t.rank; ++k) r.order[k] = perm[t.order[k]];
  for (int k = 0; k < t.nblks; ++k) r.blk_dims[k] = perm[t.blk_dims[k]];
  return r;
}
constexpr tag_layout permute(const tag_layout& t, std::initializer_list<int> perm) {
  return permute(t, std::span<const int>(perm.begin(), perm.size()));
}

// Adds an innermost block of `size` on `dim` (abcd, 1, 16 -> aBcd16b; aBcd16b, 0, 4 -> ABcd16b4a).
// Invalid dim or size, or a 13th block: result has rank -1.
constexpr tag_layout block(const tag_layout& t, int dim, dim_t size) {
  tag_layout r = t;
  if (t.is_any || dim < 0 || dim >= t.rank || size <= 0 || size > (dim_t{1} << 31) ||
      t.nblks == kMaxRank || t.block_product(dim) * size > (dim_t{1} << 31)) {
    r.rank = -1;
    return r;
  }
  r.blk_sizes[r.nblks] = size;
  r.blk_dims[r.nblks] = dim;
  ++r.nblks;
  return r;
}

// Run-time forms with Status (message names the bad value).
absl::StatusOr<tag_layout> permute_tag(const tag_layout& t, absl::Span<const int> perm);
absl::StatusOr<tag_layout> block_tag(const tag_layout& t, int dim, dim_t size);
// The layout over permuted dims: dims'[perm[d]] = dims[d].
absl::StatusOr<layout> permute(const layout& l, absl::Span<const int> perm);

// ---- nodes: a layout as a flat list of index components --------------------------------------

// One component of a logical index: (i[dim] / divisor) % size, contributing that times stride.
struct layout_node {
  dim_t size = 1;
  dim_t stride = 0;
  int dim = 0;
  dim_t divisor = 1;
  friend constexpr bool operator==(const layout_node&, const layout_node&) = default;
};

inline constexpr int kMaxNodes = 4 * kMaxRank;

// Nodes in memory order, outermost (largest stride) first, over the padded index space `dims`.
// offset() sums the components; the loop nests (loop_nest.h) and axis views (axis_view.h) are
// derived from these nodes.
struct node_list {
  int rank = 0;
  std::array<dim_t, kMaxRank> dims{};  // the index space: padded dims
  int count = 0;
  std::array<layout_node, kMaxNodes> nodes{};

  constexpr std::span<const layout_node> view() const { return {nodes.data(), size_t(count)}; }
  constexpr dim_t offset(std::span<const dim_t> index) const {
    dim_t off = 0;
    for (int k = 0; k < count; ++k) {
      const layout_node& n = nodes[k];
      off += (index[n.dim] / n.divisor) % n.size * n.stride;
    }
    return off;
  }
};

namespace internal {
// The node list of a blocked layout over the padded dims `padded`: the outer part of each dim in
// `memory_order` (outermost first), then the inner blocks outermost first, each node read from
// core/block_structure.h's components. Both nodes_of overloads are this with their own order.
constexpr node_list nodes_in_order(const block_view& v, const dim_t* padded,
                                   const int* memory_order) {
  node_list r;
  r.rank = v.rank;
  std::array<int, kMaxRank> position{};
  for (int k = 0; k < v.rank; ++k) position[memory_order[k]] = k;
  for (int d = 0; d < v.rank; ++d) r.dims[d] = padded[d];
  for_each_component(
      v,
      [&](const inner_component& c) {
        r.nodes[v.rank + c.block] = {c.size, c.stride, c.dim, c.divisor};
      },
      [&](const outer_component& c) {
        r.nodes[position[c.dim]] = {padded[c.dim] / c.block_product, c.stride, c.dim,
                                    c.block_product};
      });
  r.count = v.rank + v.nblks;
  return r;
}
}  // namespace internal

// The nodes of a tag layout: the outer parts in the tag's memory order, then its blocks.
// Post-conditions: count == rank + nblks; node k < rank is dim order[k]'s outer part
// {padded / B_d, stride(d), d, B_d}; node rank + k is block k {size, tile stride, dim, divisor}
// as core/block_structure.h defines them; offset(i) == l.offset(i) on every index of the padded
// dims (formats/offsets_test.cc).
constexpr node_list nodes_of(const layout& l) {
  return internal::nodes_in_order(l.blocks(), l.padded_dims().data(), l.tag().order.data());
}

// The nodes of a blocked memory_desc (offset0 and padded_offsets are not included). `any` and
// undef give InvalidArgument "nodes_of: the memory_desc is not blocked (...)".
// Post-conditions: as nodes_of(layout), with the outer parts ordered by decreasing stride, ties
// (size-1 dims) in logical order; offset(i) + offset0 == md.offset(i) on every index of the padded
// dims when padded_offsets are 0.
absl::StatusOr<node_list> nodes_of(const memory_desc& md);

// Drops size-1 nodes and merges memory-adjacent nodes of the same dim that stay contiguous
// (outer.stride == inner.stride * inner.size and outer.divisor == inner.divisor * inner.size).
constexpr node_list coalesce(const node_list& in) {
  node_list r = in;
  r.count = 0;
  for (int k = 0; k < in.count; ++k) {
    const layout_node& n = in.nodes[k];
    if (n.size == 1) continue;
    if (r.count > 0) {
      layout_node& prev = r.nodes[r.count - 1];
      if (prev.dim == n.dim && prev.stride == n.stride * n.size &&
          prev.divisor == n.divisor * n.size) {
        prev = {prev.size * n.size, n.stride, n.dim, n.divisor};
        continue;
      }
    }
    r.nodes[r.count++] = n;
  }
  return r;
}

// ---- coalesce of plain strided dims (CuTe's coalesce) -----------------------------------------

// dims and strides of a plain layout; the index is read row-major over dims.
struct strided_dims {
  int rank = 0;
  std::array<dim_t, kMaxRank> dims{};
  std::array<dim_t, kMaxRank> strides{};
  constexpr dim_t offset_of_linear(dim_t linear) const {
    dim_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += linear % dims[d] * strides[d];
      linear /= dims[d];
    }
    return off;
  }
};

// Drops size-1 dims and merges dims d, d+1 when strides[d] == strides[d+1] * dims[d+1]: fewer dims,
// same offset for every row-major linear index. A tensor with a 0 dim becomes rank 1, size 0.
constexpr strided_dims coalesce(const strided_dims& in) {
  strided_dims r;
  for (int d = 0; d < in.rank; ++d) {
    if (in.dims[d] == 0) {
      r.rank = 1;
      r.dims[0] = 0;
      r.strides[0] = 0;
      return r;
    }
  }
  for (int d = 0; d < in.rank; ++d) {
    if (in.dims[d] == 1) continue;
    if (r.rank > 0 && r.strides[r.rank - 1] == in.strides[d] * in.dims[d]) {
      r.dims[r.rank - 1] *= in.dims[d];
      r.strides[r.rank - 1] = in.strides[d];
      continue;
    }
    r.dims[r.rank] = in.dims[d];
    r.strides[r.rank] = in.strides[d];
    ++r.rank;
  }
  return r;
}

// ---- joint coalesce: what a reorder iterates --------------------------------------------------

struct joint_loop {
  dim_t size = 1;
  dim_t src_stride = 0;
  dim_t dst_stride = 0;
  friend bool operator==(const joint_loop&, const joint_loop&) = default;
};

// Loops outermost first (in the destination's memory order); the innermost loop is the longest
// run both layouts walk with fixed strides. A zero-size index space is one loop of size 0.
struct loop_nest {
  int count = 0;
  std::array<joint_loop, kMaxNodes> loops{};
  std::span<const joint_loop> view() const { return {loops.data(), size_t(count)}; }
  dim_t total() const {
    dim_t n = 1;
    for (int k = 0; k < count; ++k) n *= loops[k].size;
    return n;
  }
};

// Splits both node lists at every block boundary either one has, pairs the components, orders
// them by destination stride and merges loops contiguous in both: after checking its inputs, the
// normalisation of formats/loop_nest.h over the padded dims (one data box, no padding). Both
// must cover the same padded dims, and the blocks of each dim must nest (e.g. 16 and 4, not 16
// and 6); the error names the dim and the sizes otherwise.
absl::StatusOr<loop_nest> joint_coalesce(const node_list& src, const node_list& dst);

std::string to_string(const loop_nest& nest);

}  // namespace tessera

#endif  // TESSERA_FORMATS_ALGEBRA_H_
