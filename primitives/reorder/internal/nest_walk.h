// Walking the boxes of a loop nest, and the box shapes the kernels look for. Inline: the walks
// are the kernels' outer loops.
//
//   parallel_for(product(box, 0, n - 1), chunk, [&](int64_t begin, int64_t end) {
//     walk(box, n - 1, begin, end, [&](const strides_t& off) { ... off[kSrc], off[kDst] ... });
//   });
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_NEST_WALK_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_NEST_WALK_H_

#include <array>
#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"

namespace tessera::reorder_internal {

// Work smaller than this many elements is not worth a task.
inline constexpr int64_t kMinElementsPerTask = 16384;

inline int bytes_of(data_type dt) { return bits_of(dt) / 8; }

// Visits every index of nodes[0, n) in row-major order from flat position begin to end, calling
// fn with the element offsets of each operand.
template <class F>
void walk(const nest_box& box, size_t n, int64_t begin, int64_t end, F&& fn) {
  if (begin >= end) return;
  std::array<dim_t, 4 * kMaxRank> idx{};
  strides_t off = box.base;
  int64_t rest = begin;
  for (size_t k = n; k-- > 0;) {
    const nest_node& node = box.nodes[k];
    idx[k] = rest % node.size;
    rest /= node.size;
    for (int op = 0; op < kOperands; ++op) off[op] += idx[k] * node.stride[op];
  }
  for (int64_t it = begin; it < end; ++it) {
    fn(off);
    for (size_t k = n; k-- > 0;) {
      const nest_node& node = box.nodes[k];
      ++idx[k];
      for (int op = 0; op < kOperands; ++op) off[op] += node.stride[op];
      if (idx[k] < node.size) break;
      for (int op = 0; op < kOperands; ++op) off[op] -= idx[k] * node.stride[op];
      idx[k] = 0;
    }
  }
}

// The number of indices of nodes[from, to).
inline int64_t product(const nest_box& box, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t k = from; k < to; ++k) n *= box.nodes[k].size;
  return n;
}

// Whether the innermost node is contiguous in both src and dst (a box without nodes is one
// element: it is).
inline bool innermost_contiguous(const nest_box& box) {
  return box.nodes.empty() ||
         (box.nodes.back().stride[kSrc] == 1 && box.nodes.back().stride[kDst] == 1);
}

// Index of the node contiguous in src (not the innermost), when the innermost is contiguous in
// dst; else -1. The pair a transpose moves.
inline int src_contiguous_node(const nest_box& box) {
  if (box.nodes.size() < 2 || box.nodes.back().stride[kDst] != 1) return -1;
  for (size_t k = 0; k + 1 < box.nodes.size(); ++k) {
    if (box.nodes[k].stride[kSrc] == 1) return static_cast<int>(k);
  }
  return -1;
}

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_NEST_WALK_H_
