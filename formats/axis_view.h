// A tensor seen along one axis, as a softmax (or any reduction along a dim) walks it: the axis as
// nodes, and every other dim folded into one loop nest over the rows.
//
//   // nChw16c, 2x32x3x3, along C: axis nodes {2: 144, /16} {16: 1, /1}; others {2: 288} {9: 16}.
//   const axis_view v = *axis_view_of(*make_memory_desc({2, 32, 3, 3}, data_type::f32, "nChw16c"), 1);
//
// pre:  md is blocked and 0 <= axis < md.rank(); no dim but the axis has inner blocks (otherwise
//       `others` describes only the outer part of those dims).
// post: `axis` holds md's nodes of the axis (nodes_of(md) filtered, memory order, outer first,
//       size-1 nodes kept): the offset of axis index a is axis.offset(a) (relative to index 0).
//       `others` is the dims other than the axis with a logical size above 1, ordered by stride,
//       largest first (ties in logical order), then coalesced (strided_dims coalesce: neighbours
//       contiguous in memory merged): for row r in [0, product of others.dims), the offset of the
//       row's index 0 along the axis is others.offset_of_linear(r), and rows enumerate every index
//       of the other dims once. Tested in axis_view_test.cc over random layouts.
#ifndef TESSERA_FORMATS_AXIS_VIEW_H_
#define TESSERA_FORMATS_AXIS_VIEW_H_

#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/algebra.h"

namespace tessera {

struct axis_view {
  node_list axis;
  strided_dims others;
};

// Error when md is not blocked or the axis is out of range.
absl::StatusOr<axis_view> axis_view_of(const memory_desc& md, int axis);

}  // namespace tessera

#endif  // TESSERA_FORMATS_AXIS_VIEW_H_
