// The generic strided kernel (native:any:strided): every element of every data box through
// apply_one, in the loop nest's order. It takes every normalised problem; the copy, convert and
// transpose kernels also run their boxes of another shape through run_strided_box.
//
//   for (const nest_box& box : p.nest.data) {
//     if (!fits(box)) { run_strided_box(p, ctx, box); continue; }
//     ...
//   }
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_STRIDED_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_STRIDED_KERNEL_H_

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

struct strided_state {};

absl::Status accept_strided(plan& p);
void run_kernel(const plan& p, const strided_state& s, const exec_ctx& ctx);

// One data box of plan p, element by element.
void run_strided_box(const plan& p, const exec_ctx& ctx, const nest_box& box);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_STRIDED_KERNEL_H_
