// The post-op chain as the vector kernels read it: each post-op's parameters and, for a binary
// one, its operand's element strides along the kernel's loops (0 where the operand broadcasts),
// so that a kernel finds the operand of any dst element from its row, axis step and lane.
// Built by plan.cc for plain layouts (post_op_geometry); the operand pointers are filled per
// execution (softmax.cc).
//
//   kernel_args g;
//   post_op_chain chain;
//   std::string why = post_op_geometry(prob, kind, g, chain);   // "" when a kernel can take it
//   chain.steps[i].src1 = operand_pointer;                        // per execution
//   g.post_ops = &chain;
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_CHAIN_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_CHAIN_H_

#include <array>
#include <string>

#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/post_ops.h"

namespace tessera::softmax_internal {

struct post_op_step {
  post_op_kind kind = post_op_kind::eltwise;
  eltwise_alg eltwise = eltwise_alg::linear;
  float alpha = 0.f, beta = 0.f;
  binary_alg binary = binary_alg::add;
  data_type src1_dt = data_type::f32;
  const void* src1 = nullptr;  // offset0 included; set per execution
  // Operand element strides: per row loop (kernel_args::rows, same order), per axis step, per
  // lane of a strided group. 0 where the operand broadcasts.
  std::array<dim_t, kMaxRank> row_strides{};
  dim_t axis_stride = 0;
  dim_t lane_stride = 0;
};

struct post_op_chain {
  int count = 0;
  // The kernel vectorises across the lanes of strided groups (else along the axis).
  bool strided = false;
  std::array<post_op_step, kMaxPostOps> steps{};
};

struct kernel_args;
struct problem;
enum class kernel_kind;

// The geometry of a forward problem with post-ops for the post-op kernels: `kind` dense (the axis
// has stride 1) or strided (another dim has stride 1: the lanes), the rows over the other dims in
// logical order, and the chain. Returns why no vector kernel can take it ("" when one can):
// blocked or unequal layouts of src and dst, a blocked operand, or no dim with stride 1.
std::string post_op_geometry(const problem& prob, kernel_kind& kind, kernel_args& g,
                             post_op_chain& chain);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_CHAIN_H_
