// The gather kernel (xsimd:<isa>:gather): small problems whose transpose tiles would be tiny.
// Its dst elements are listed at create with the src element each takes; execution gathers them
// in dst order and converts chunks with the ISA's run conversion (gather_kernel.cc says when).
//
//   absl::Status why = accept_gather(p, vk);   // ok: p.kernel holds a gather_state
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_GATHER_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_GATHER_KERNEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

struct gather_state {
  // For each dst element from dst_base on, in memory order, the src element offset it takes, or
  // -1 for padding (zero).
  std::vector<int32_t> src;
  int64_t dst_base = 0;
  convert_run_fn* convert = nullptr;  // src -> dst; null for a bit copy
  // With per-dimension quantization: each dst element's offsets into the five quantization
  // operands (kSrcScale .. kOscale, kGatherQuantOperands per element; 0 for padding), and the
  // exact conversions around the f32 arithmetic (src -> f32, dst -> f32 for the sum's old
  // values, f32 -> dst). Empty / null when the quantization is common.
  std::vector<int32_t> quant;
  convert_run_fn* src_to_f32 = nullptr;
  convert_run_fn* dst_to_f32 = nullptr;
  convert_run_fn* f32_to_dst = nullptr;
};

absl::Status accept_gather(plan& p, const vector_kernels* vk);
void run_kernel(const plan& p, const gather_state& s, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_GATHER_KERNEL_H_
