// A created softmax primitive: the validated problem, the chosen kernel and its normalised
// geometry. Immutable once built; shared between copies of a primitive and the creation cache.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_PLAN_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_PLAN_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/zero_padding.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/post_op_chain.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::softmax_internal {

enum class direction { forward, backward };

struct problem {
  direction dir = direction::forward;
  softmax_alg alg = softmax_alg::softmax;
  int axis = 0;
  // Forward: in0 = src, out = dst (in1 unused). Backward: in0 = dst, in1 = diff_dst,
  // out = diff_src. `any` is already resolved.
  memory_desc in0, in1, out;
  primitive_attr attr;

  // The creation cache's key (with the ISA cap and the kernel filter: common/plan_cache.h).
  friend bool operator==(const problem&, const problem&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const problem& p) {
    return H::combine(std::move(h), p.dir, p.alg, p.axis, p.in0, p.in1, p.out, p.attr);
  }
};

enum class kernel_kind { ref, dense, strided };

struct plan {
  problem prob;
  std::string impl_name;
  std::vector<std::string> declined;  // "<kernel>: <reason>" for each kernel tried before
  kernel_kind kind = kernel_kind::ref;
  kernel_fn fn = nullptr;      // vector kernels only
  kernel_args geometry;         // rows and geometry; pointers filled per execution
  dim_t work_per_item = 1;      // elements one row (group) touches, to size thread chunks
  padding_boxes out_padding;    // of prob.out, cleared after each execution
  post_op_chain post_ops;       // vector kernels with post-ops; operand pointers per execution
};

// Validates and builds. `options.impl_filter` restricts the candidate kernels.
absl::StatusOr<plan> make_plan(const problem& prob, const softmax_options& options);

// The kernels in the order they are tried.
std::vector<std::string> kernel_names();

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_PLAN_H_
