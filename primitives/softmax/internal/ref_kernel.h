// ref:any:scalar — the kernel for every problem the vector kernels refuse: any layout (each element
// found through memory_desc::offset), any supported type pair, int8 scales. Computes in f64 and
// rounds once to f32 (then to the destination type), so it is also the most accurate kernel.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_REF_KERNEL_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_REF_KERNEL_H_

#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/softmax/internal/plan.h"

namespace tessera::softmax_internal {

struct ref_buffers {
  const void* in0 = nullptr;
  const void* in1 = nullptr;
  void* out = nullptr;
  // Forward: y * out_scale without post-ops; with them
  // post_ops(y * out_scale) * post_op_scale (out_scale: src_scale (or the output scale),
  // post_op_scale: 1 / dst_scale), as oneDNN 3.x orders them.
  double out_scale = 1.0;
  double post_op_scale = 1.0;
  // The binary post-ops' operands, one per post-op (nullptr for an eltwise one).
  std::vector<const void*> post_op_src1;
};

// Number of independent rows: product of the dims other than the axis.
dim_t ref_row_count(const problem& prob);

// Rows [begin, end) in the order of the logical index (the axis left out).
void ref_rows(const problem& prob, const ref_buffers& buffers, dim_t begin, dim_t end);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_REF_KERNEL_H_
