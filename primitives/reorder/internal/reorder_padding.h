// The reorder's zero padding: a blocked dst's elements outside the logical dims are zeros after
// every execution. Kernels that write them with the data say so (plan::run_writes_padding);
// otherwise execute() calls zero_padding after the kernel.
//
//   run(p, ctx);
//   if (!p.run_writes_padding) zero_padding(p, ctx.dst);
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_

namespace tessera::reorder_internal {

struct plan;

// Writes zeros into every padding box of the plan's dst.
void zero_padding(const plan& p, char* dst);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_REORDER_PADDING_H_
