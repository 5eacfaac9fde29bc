// The reorder's zero padding: a blocked dst's elements outside the logical dims are zeros after
// every execution. Kernels that write them with the data say so (plan::run_writes_padding);
// otherwise build() keeps the dst's padding boxes and execute() clears them after the kernel:
//
//   if (!p.run_writes_padding) p.dst_padding = dst_padding_of(p);  // at create
//   run(p, ctx);
//   if (!p.run_writes_padding) zero_dst_padding(p, ctx.dst);       // at execute
//
// The clearing itself is primitives/common/zero_padding.h's; what is the reorder's own is where
// the boxes come from and how the rows are split over the threads.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_

#include "tessera/primitives/common/zero_padding.h"

namespace tessera::reorder_internal {

struct plan;

// padding_of(p.dst): the boxes of every dst element in [dims, padded_dims) on some dim.
padding_boxes dst_padding_of(const plan& p);

// Writes zeros into p.dst_padding in dst, each box's rows split over the threads in tasks of
// about kMinElementsPerTask elements.
void zero_dst_padding(const plan& p, char* dst);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
