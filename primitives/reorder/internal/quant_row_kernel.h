// The 4-bit weight kernel (xsimd:<isa>:quant_rows): f32, bf16 or f16 to s4 or u4 (weight
// compression) and back (decompression), between two dense row-major layouts of the same dims,
// with scales and zero points of any mask and groups. One row of the last dim at a time through
// the chosen ISA's quant_row_fn; each row's scales and zero points are read from the values as
// given (grouped, not expanded: plan::grouped_quant_values), so a 4096x4096 matrix with groups of
// 32 along its rows reads 128 rows of values, not 16 Mi of them.
//
//   absl::Status why = accept_quant_rows(p, vk);  // ok: p.kernel holds a quant_rows_state
//   run_kernel(p, std::get<quant_rows_state>(p.kernel), ctx);
//
// Declines (the element-wise kernel then runs): other types, blocked or strided layouts, an odd
// last dim (4-bit rows would split bytes), stochastic rounding, the output scale, the sum
// post-op, compensation.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROW_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROW_KERNEL_H_

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

struct quant_rows_state {
  quant_row_fn* row = nullptr;  // the chosen ISA's, for the plan's type pair
  bool stream_stores = false;   // dst large enough that caching its lines only evicts src
};

absl::Status accept_quant_rows(plan& p, const vector_kernels* vk);

void run_kernel(const plan& p, const quant_rows_state& s, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_ROW_KERNEL_H_
