// The copy and convert kernels: contiguous runs on both sides, moved with memcpy (native:any:copy,
// equal types, no attributes) or with the chosen ISA's run conversion (xsimd:<isa>:convert).
// A box whose innermost node is not contiguous runs through the strided kernel.
//
//   absl::Status why = accept_copy(p);          // ok: p.kernel holds a copy_state
//   absl::Status why = accept_convert(p, vk);   // ok: p.kernel holds a convert_state
//   run_kernel(p, std::get<convert_state>(p.kernel), ctx);
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_COPY_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_COPY_KERNEL_H_

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

struct copy_state {};

struct convert_state {
  convert_run_fn* convert = nullptr;  // the chosen ISA's
  bool stream_stores = false;         // dst large enough that caching its lines only evicts src
};

absl::Status accept_copy(plan& p);
absl::Status accept_convert(plan& p, const vector_kernels* vk);

void run_kernel(const plan& p, const copy_state& s, const exec_ctx& ctx);
void run_kernel(const plan& p, const convert_state& s, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_COPY_KERNEL_H_
