// The element-wise reference kernel (ref:any:scalar): logical index by logical index through
// memory_desc::offset, over the padded dst (padding written as zeros). It accepts every valid
// problem, normalised or not: the last candidate, and the only one for the low-precision types
// (low_precision_kernel.h).
//
//   absl::Status ok = accept_reference(p);   // always ok
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_REFERENCE_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_REFERENCE_KERNEL_H_

#include "absl/status/status.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

struct reference_state {};

absl::Status accept_reference(plan& p);
void run_kernel(const plan& p, const reference_state& s, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_REFERENCE_KERNEL_H_
