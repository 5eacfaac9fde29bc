// A created reorder: the normalised problem, the chosen kernel and what it needs at execution.
// Immutable once built; shared by every copy of a reorder and by the primitive cache.
//
// The common part (descriptors, attributes, loop nest, names) is here; each kernel's own state
// is one alternative of `kernel`, defined beside its kernel (copy_kernel.h, ...). Executing is one
// visit:
//
//   run(p, ctx);   // calls run_kernel(p, std::get<K>(p.kernel), ctx) for the chosen kernel K
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/zero_padding.h"
#include "tessera/primitives/reorder/internal/copy_kernel.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/reorder/internal/gather_kernel.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"
#include "tessera/primitives/reorder/internal/quant_row_kernel.h"
#include "tessera/primitives/reorder/internal/reference_kernel.h"
#include "tessera/primitives/reorder/internal/runtime_shape.h"
#include "tessera/primitives/reorder/internal/strided_kernel.h"
#include "tessera/primitives/reorder/internal/transpose_kernel.h"

namespace tessera::reorder_internal {

// The scale and zero-point arguments as given at execution (grouped, of their attributes'
// types; null where absent), for a kernel that reads them so (plan::grouped_quant_values).
struct given_quant {
  const void* src_scale = nullptr;
  const void* dst_scale = nullptr;
  const void* src_zp = nullptr;
  const void* dst_zp = nullptr;
};

// The buffers of one execution (quantization arrays already checked against the attributes).
struct exec_ctx {
  const char* src = nullptr;
  char* dst = nullptr;
  quant_ptrs q;       // unless plan::grouped_quant_values
  given_quant given;  // with plan::grouped_quant_values
};

// The state of the chosen kernel.
using kernel_state = std::variant<copy_state, convert_state, transpose_state, gather_state,
                                  quant_rows_state, strided_state, reference_state>;

struct plan {
  memory_desc src, dst;
  primitive_attr attr;
  operand_masks masks;
  // oneDNN's scale adjustment of a compensating dst (compensation.h): 1, or the factor folded
  // into the src scales at execution (masks.src_scale is then at least 0).
  float scale_adjust = 1.0f;
  // Equal types and no attributes: elements are copied as bits (NaN payloads, -0 kept).
  bool bit_copy = false;
  bool normalised = false;  // false: `nest` is empty and only the element-wise kernel applies
  std::string normalise_error;
  loop_nest nest;
  size_t main_box = 0;  // the data box with the most elements; kernels are chosen on it
  int64_t src_bytes = 0, dst_bytes = 0;  // size_bytes() of src and dst

  std::string impl_name;  // empty until a kernel accepted the plan
  std::vector<std::string> declined;
  kernel_state kernel;
  bool run_writes_padding = false;  // else execute() clears dst_padding after the kernel
  // The kernel reads scales and zero points as given (exec_ctx::given: grouped_value_count of
  // them, of their attributes' types); else as f32 / s32, one per index of the masked dims
  // (exec_ctx::q).
  bool grouped_quant_values = false;
  padding_boxes dst_padding;        // of dst; empty when the kernel writes the padding

  std::string descs_text;  // verbose line fields
  std::string problem_text;

  // Set when src or dst has run-time dims or strides: this plan is a pattern without a kernel,
  // and each execution runs the plan of its concrete shape (runtime_shape.h), built with
  // impl_filter.
  std::shared_ptr<shape_plans> shapes;
  std::string impl_filter;
};

// Runs the chosen kernel.
inline void run(const plan& p, const exec_ctx& ctx) {
  std::visit([&](const auto& state) { run_kernel(p, state, ctx); }, p.kernel);
}

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_
