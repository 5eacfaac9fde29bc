// The reorder's zero padding: a blocked dst's elements outside the logical dims are zeros after
// every execution. Kernels that write them with the data say so (plan::run_writes_padding);
// otherwise build() keeps the dst's padding boxes and execute() clears them after the kernel:
//
//   if (!p.run_writes_padding) p.dst_padding = padding_of(p.dst);  // at create
//   run(p, ctx);
//   if (!p.run_writes_padding) zero_dst_padding(p, ctx.dst);       // at execute
//
// The boxes and the clearing are primitives/common/zero_padding.h's; what is the reorder's own is
// how the rows are split over the threads.
//
// padding_of normalises dst alone, a second normalisation at create (f32 nChw8c -> nChw16c
// 2x17x5x5, copy kernel: 58.6k -> 78.8k instructions per uncached create, callgrind). Its boxes
// follow dst's block chain only, where the joint nest's follow the common refinement of src's
// and dst's: one pass of 60-byte memsets over each line of 8x17x28x28 instead of two of 28 and
// 32 bytes, 240 -> 212 us at 1 thread (AVX-512 Zen 4). Execution is what a cached reorder pays.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_

#include "tessera/primitives/common/zero_padding.h"

namespace tessera::reorder_internal {

struct plan;

// Writes zeros into p.dst_padding in dst, each box's rows split over the threads in tasks of
// about kMinElementsPerTask elements.
void zero_dst_padding(const plan& p, char* dst);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
