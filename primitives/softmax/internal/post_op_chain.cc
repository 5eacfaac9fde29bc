#include "tessera/primitives/softmax/internal/post_op_chain.h"

#include <algorithm>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/plan.h"

namespace tessera::softmax_internal {
namespace {

bool is_plain(const memory_desc& md) {
  if (md.blocking().inner_nblks != 0) return false;
  for (int d = 0; d < md.rank(); ++d) {
    if (md.padded_offsets()[d] != 0 || md.padded_dims()[d] != md.dims()[d]) return false;
  }
  return true;
}

// The stride of `op`'s operand along dim d: 0 where it broadcasts (dim 1).
dim_t operand_stride(const post_op& op, int d) {
  return op.src1.dims()[d] == 1 ? 0 : op.src1.blocking().strides[d];
}

}  // namespace

std::string post_op_geometry(const problem& prob, kernel_kind& kind, kernel_args& g,
                             post_op_chain& chain) {
  const memory_desc& md = prob.in0;
  if (!is_plain(md) || !is_plain(prob.out)) return "post-ops on a blocked layout";
  if (md.blocking() != prob.out.blocking()) return "the tensors have different layouts";
  const int rank = md.rank();
  const int axis = prob.axis;
  const auto& strides = md.blocking().strides;
  const dim_t len = md.dims()[axis];
  int lane_dim = -1;
  if (len > 1 && strides[axis] != 1) {
    for (int d = rank - 1; d >= 0; --d) {
      if (d != axis && strides[d] == 1 && md.dims()[d] > 1) lane_dim = d;
    }
    if (lane_dim < 0) return "no dim other than the axis has stride 1";
  }
  for (const post_op& op : prob.attr.post_ops) {
    if (op.kind == post_op_kind::binary && !is_plain(op.src1)) {
      return "post-op operand with a blocked layout";
    }
  }
  kind = lane_dim < 0 ? kernel_kind::dense : kernel_kind::strided;
  g.rows = {};
  int depth = 0;
  std::array<int, kMaxRank> row_dims{};
  for (int d = 0; d < rank; ++d) {
    if (d == axis || d == lane_dim) continue;
    row_dims[depth] = d;
    g.rows.sizes[depth] = md.dims()[d];
    g.rows.strides[depth] = strides[d];
    g.rows.count *= md.dims()[d];
    ++depth;
  }
  g.rows.depth = depth;
  g.dense = {len, len, 0};
  if (lane_dim >= 0) g.strided = {len, strides[axis], md.dims()[lane_dim]};

  chain = {};
  chain.strided = lane_dim >= 0;
  chain.count = static_cast<int>(prob.attr.post_ops.size());
  for (int i = 0; i < chain.count; ++i) {
    const post_op& op = prob.attr.post_ops[i];
    post_op_step& s = chain.steps[i];
    s.kind = op.kind;
    s.eltwise = op.eltwise_algorithm;
    s.alpha = op.alpha;
    s.beta = op.beta;
    s.binary = op.binary_algorithm;
    if (op.kind != post_op_kind::binary) continue;
    s.src1_dt = op.src1.dt();
    for (int l = 0; l < depth; ++l) s.row_strides[l] = operand_stride(op, row_dims[l]);
    s.axis_stride = operand_stride(op, axis);
    if (lane_dim >= 0) s.lane_stride = operand_stride(op, lane_dim);
  }
  return "";
}

}  // namespace tessera::softmax_internal
