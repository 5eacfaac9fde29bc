// The verbose record of a softmax (runtime/verbose.h), as oneDNN's softmax lines print it: forward
// "src dst", backward "src (the diff_src) dst diff_dst"; the auxiliary field names oneDNN's
// algorithm and the axis, and adds Tessera's axis_parts when a single group is split along its
// axis.
//
//   verbose_record r = describe(plan, plan.impl_name);
//   // r.aux: "alg:softmax_accurate axis:1", "alg:softmax_log axis:0 axis_parts:8"
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_DESCRIBE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_DESCRIBE_H_

#include <string>

#include "tessera/primitives/runtime/verbose.h"
#include "tessera/primitives/softmax/internal/plan.h"

namespace tessera::softmax_internal {

// `impl`: the kernel the line names (the plan's, or a kernel that declined it).
verbose_record describe(const plan& pl, const std::string& impl);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_DESCRIBE_H_
