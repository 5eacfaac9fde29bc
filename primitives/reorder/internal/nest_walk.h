// The box shapes the reorder's kernels look for, and their task size. The walks over a box
// (`walk`, `product`) are formats/loop_nest.h's.
//
//   parallel_for(product(box, 0, n - 1), chunk, [&](int64_t begin, int64_t end) {
//     walk(box, n - 1, begin, end, [&](const strides_t& off) { ... off[kSrc], off[kDst] ... });
//   });
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_NEST_WALK_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_NEST_WALK_H_

#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"

namespace tessera::reorder_internal {

// Work smaller than this many elements is not worth a task.
inline constexpr int64_t kMinElementsPerTask = 16384;

inline int bytes_of(data_type dt) { return bits_of(dt) / 8; }

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
