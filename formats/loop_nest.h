// The joint loop nest of N operands over one index space: what a reorder walks (src, dst and its
// per-dim scale and zero-point arrays) and what a zero-padding pass walks (one dst).
//
//   // dst nChw16c with C = 17 (padded to 32): the data boxes and the padding to clear.
//   const memory_desc dst = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
//   const node_list nodes = *nodes_of(dst);
//   nest_operands<1> ops;
//   ops.space = index_space_of(dst);
//   ops.nodes = {&nodes};
//   ops.base = {dst.offset0()};
//   joint_nest<1> nest = *normalise(ops);
//   // nest.data: two boxes (c in [0, 16), then c == 16); nest.padding: one box at base 145 (c in
//   // [17, 32)) with the nodes (size:stride) 2:288 9:16 15:1 (n, then h and w merged, then c).
//
// An operand is a node_list (nodes_of a layout or a memory_desc, or strided_nodes for a plain
// array indexed by some dims, such as a reorder's per-channel scales) plus a base offset. A dim
// with no node in an operand has stride 0 there (the operand is broadcast along it).
//
// normalise
//   pre:  every operand covers the index space (its nodes reach index `padded` of every dim it
//         strides along); the divisors of each dim's nodes, over all operands, divide each other
//         (first_block_conflict returns nothing; otherwise normalise fails with kUnimplemented).
//   post: each dim is split into digits on the common refinement of every operand's block chain
//         (the sorted divisors of its nodes); a range of a dim that is not a whole number of
//         digits (a partial block) is cut into rectangular boxes, full blocks first.
//         `data` boxes cover [0, dims) exactly once; `padding` boxes cover [0, padded) minus
//         [0, dims) exactly once. For every index i of a box, operand k's offset is
//         base[k] + sum_j idx_j * stride_j[k] == base_k + nodes_k.offset(i) (every (src, dst)
//         offset pair of the index space preserved). Within a box: no size-1 node, nodes ordered
//         by order_and_merge (outermost first), no two neighbours mergeable.
//         total_elements is the number of elements of `data`.
// order_and_merge
//   pre:  none.  post: size-1 nodes dropped; stable order by stride of `order_by`, then of
//         `then_by`, outermost (largest) first; neighbours contiguous in every operand
//         (outer.stride == inner.size * inner.stride) merged, so no two are left mergeable; the
//         set of offset tuples the nodes walk is unchanged.
// Tested in loop_nest_test.cc, property by property, over random layouts.
#ifndef TESSERA_FORMATS_LOOP_NEST_H_
#define TESSERA_FORMATS_LOOP_NEST_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/algebra.h"

namespace tessera {

template <size_t N>
struct nest_node {
  dim_t size = 1;
  std::array<dim_t, N> stride{};
};

template <size_t N>
struct nest_box {
  std::array<dim_t, N> base{};       // each operand's offset of the box's first element
  std::vector<nest_node<N>> nodes;   // outermost first
  dim_t elements() const {
    dim_t n = 1;
    for (const nest_node<N>& node : nodes) n *= node.size;
    return n;
  }
};

template <size_t N>
struct joint_nest {
  std::vector<nest_box<N>> data;     // the logical elements, [0, dims)
  std::vector<nest_box<N>> padding;  // [0, padded) minus [0, dims)
  dim_t total_elements = 0;          // over `data`
};

// Data covers [0, dims); padding covers [0, padded) minus it (padded >= dims on every dim).
struct index_space {
  int rank = 0;
  std::array<dim_t, kMaxRank> dims{};
  std::array<dim_t, kMaxRank> padded{};
};

// md's logical dims and padded dims.
index_space index_space_of(const memory_desc& md);

template <size_t N>
struct nest_operands {
  index_space space;
  std::array<const node_list*, N> nodes{};
  std::array<dim_t, N> base{};
  int order_by = 0;  // nodes are ordered by this operand's stride, outermost first,
  int then_by = 0;   // ties by this one's
};

// A plain operand: dim d (for each d with strides[d] != 0) contributes i[d] * strides[d].
node_list strided_nodes(const index_space& space, std::span<const dim_t> strides);

// The first dim whose node divisors, over all operands, do not divide each other: `inner` does
// not divide `outer`, the next larger divisor.
struct block_conflict {
  int dim = 0;
  dim_t inner = 0;
  dim_t outer = 0;
};
std::optional<block_conflict> first_block_conflict(int rank,
                                                   std::span<const node_list* const> operands);

template <size_t N>
void order_and_merge(std::vector<nest_node<N>>& nodes, int order_by, int then_by);

template <size_t N>
absl::StatusOr<joint_nest<N>> normalise(const nest_operands<N>& ops);

// Visits the indices of box.nodes[0, n) in row-major order, from flat position begin to end,
// calling fn with each operand's element offset (std::array<dim_t, N>). Inline: it is the
// outer loop of the kernels that walk boxes.
template <size_t N, class F>
void walk(const nest_box<N>& box, size_t n, int64_t begin, int64_t end, F&& fn) {
  if (begin >= end) return;
  std::array<dim_t, kMaxNodes> idx{};
  std::array<dim_t, N> off = box.base;
  int64_t rest = begin;
  for (size_t k = n; k-- > 0;) {
    const nest_node<N>& node = box.nodes[k];
    idx[k] = rest % node.size;
    rest /= node.size;
    for (size_t op = 0; op < N; ++op) off[op] += idx[k] * node.stride[op];
  }
  for (int64_t it = begin; it < end; ++it) {
    fn(off);
    for (size_t k = n; k-- > 0;) {
      const nest_node<N>& node = box.nodes[k];
      ++idx[k];
      for (size_t op = 0; op < N; ++op) off[op] += node.stride[op];
      if (idx[k] < node.size) break;
      for (size_t op = 0; op < N; ++op) off[op] -= idx[k] * node.stride[op];
      idx[k] = 0;
    }
  }
}

// The number of indices of box.nodes[from, to).
template <size_t N>
int64_t product(const nest_box<N>& box, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t k = from; k < to; ++k) n *= box.nodes[k].size;
  return n;
}

// ---- implementation --------------------------------------------------------------------------

namespace nest_internal {

// The refined digits of every dim: units[d] descending, the last 1.
struct refinement {
  std::array<std::vector<dim_t>, kMaxRank> units;
};
// Fails with the first conflict (see first_block_conflict).
std::optional<block_conflict> refine(int rank, std::span<const node_list* const> operands,
                                     refinement& out);

// The stride of one step of `unit` along `dim`: from the node of `dim` with the largest divisor
// not above `unit`; 0 when `nodes` has no node of `dim`.
dim_t stride_at(const node_list& nodes, int dim, dim_t unit);

// A rectangular piece of one dim: per refined digit (outermost first), a (start, count) range.
using dim_box = std::vector<std::pair<dim_t, dim_t>>;
// [lo, hi) of a dim cut into rectangular boxes, in increasing index order.
std::vector<dim_box> boxes_of(const std::vector<dim_t>& units, dim_t lo, dim_t hi);

template <size_t N>
using digit_strides = std::array<std::vector<std::array<dim_t, N>>, kMaxRank>;

// The Cartesian product of one box per dim, appended to `out` (dims in order, so boxes come out
// in increasing index order of dim 0, then dim 1, ...).
template <size_t N>
void emit(int rank, const digit_strides<N>& strides,
          const std::array<std::vector<dim_box>, kMaxRank>& per_dim, int d, const nest_box<N>& cur,
          int order_by, int then_by, std::vector<nest_box<N>>& out) {
  if (d == rank) {
    nest_box<N> box = cur;
    order_and_merge(box.nodes, order_by, then_by);
    out.push_back(std::move(box));
    return;
  }
  for (const dim_box& b : per_dim[d]) {
    nest_box<N> next = cur;
    for (size_t j = 0; j < b.size(); ++j) {
      for (size_t op = 0; op < N; ++op) next.base[op] += b[j].first * strides[d][j][op];
      if (b[j].second != 1) next.nodes.push_back({b[j].second, strides[d][j]});
    }
    emit(rank, strides, per_dim, d + 1, next, order_by, then_by, out);
  }
}

}  // namespace nest_internal

template <size_t N>
void order_and_merge(std::vector<nest_node<N>>& nodes, int order_by, int then_by) {
  std::erase_if(nodes, [](const nest_node<N>& n) { return n.size == 1; });
  auto outer_first = [&](const nest_node<N>& a, const nest_node<N>& b) {
    if (a.stride[order_by] != b.stride[order_by]) return a.stride[order_by] > b.stride[order_by];
    return a.stride[then_by] > b.stride[then_by];
  };
  // A stable insertion sort: a box has a few dozen nodes at most, and std::stable_sort would
  // allocate a buffer on every call.
  for (size_t k = 1; k < nodes.size(); ++k) {
    const nest_node<N> n = nodes[k];
    size_t j = k;
    for (; j > 0 && outer_first(n, nodes[j - 1]); --j) nodes[j] = nodes[j - 1];
    nodes[j] = n;
  }
  // In place: `kept` nodes are final; each next node either extends the last kept one or follows.
  size_t kept = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const nest_node<N> n = nodes[k];
    if (kept > 0) {
      nest_node<N>& outer = nodes[kept - 1];
      bool contiguous = true;
      for (size_t op = 0; op < N; ++op) {
        contiguous = contiguous && outer.stride[op] == n.size * n.stride[op];
      }
      // The pair walks every operand like one longer loop with the inner stride.
      if (contiguous) {
        outer.size *= n.size;
        outer.stride = n.stride;
        continue;
      }
    }
    nodes[kept++] = n;
  }
  nodes.resize(kept);
}

template <size_t N>
absl::StatusOr<joint_nest<N>> normalise(const nest_operands<N>& ops) {
  const int rank = ops.space.rank;
  nest_internal::refinement ref;
  if (std::optional<block_conflict> c = nest_internal::refine(rank, ops.nodes, ref)) {
    return absl::UnimplementedError(
        absl::StrCat("normalise: dim ", c->dim, ": node divisors ", c->inner, " and ", c->outer,
                     " do not divide each other"));
  }
  nest_internal::digit_strides<N> strides;
  for (int d = 0; d < rank; ++d) {
    for (dim_t unit : ref.units[d]) {
      std::array<dim_t, N> st{};
      for (size_t op = 0; op < N; ++op) st[op] = nest_internal::stride_at(*ops.nodes[op], d, unit);
      strides[d].push_back(st);
    }
  }
  joint_nest<N> nest;
  nest_box<N> root;
  root.base = ops.base;
  std::array<std::vector<nest_internal::dim_box>, kMaxRank> per_dim;
  for (int d = 0; d < rank; ++d) per_dim[d] = nest_internal::boxes_of(ref.units[d], 0, ops.space.dims[d]);
  nest_internal::emit(rank, strides, per_dim, 0, root, ops.order_by, ops.then_by, nest.data);
  for (const nest_box<N>& b : nest.data) nest.total_elements += b.elements();

  // Padding: boxes where dim d is in [dims, padded), earlier dims in range, later dims anything.
  for (int d = 0; d < rank; ++d) {
    if (ops.space.padded[d] == ops.space.dims[d]) continue;
    for (int e = 0; e < rank; ++e) {
      const dim_t lo = e == d ? ops.space.dims[e] : 0;
      const dim_t hi = e < d ? ops.space.dims[e] : ops.space.padded[e];
      per_dim[e] = nest_internal::boxes_of(ref.units[e], lo, hi);
    }
    nest_internal::emit(rank, strides, per_dim, 0, root, ops.order_by, ops.then_by, nest.padding);
  }
  return nest;
}

}  // namespace tessera

#endif  // TESSERA_FORMATS_LOOP_NEST_H_
