#include "tessera/primitives/reorder/internal/loop_nest.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/status.h"
#include "tessera/formats/algebra.h"

namespace tessera::reorder_internal {
namespace {

// A per-dim value array over the dims of `mask`, row-major in logical dim order: one value per
// index of each masked dim of `dst`. Absent (mask < 0): no node, stride 0 everywhere.
node_list mask_operand(const memory_desc& dst, const index_space& space, int mask) {
  std::array<dim_t, kMaxRank> strides{};
  if (mask >= 0) {
    dim_t s = 1;
    for (int d = dst.rank() - 1; d >= 0; --d) {
      if (!(mask & (1 << d))) continue;
      strides[d] = s;
      s *= dst.dims()[d];
    }
  }
  return strided_nodes(space, {strides.data(), static_cast<size_t>(dst.rank())});
}

}  // namespace

absl::StatusOr<loop_nest> normalise(const memory_desc& src, const memory_desc& dst,
                                    const operand_masks& masks) {
  TESSERA_ASSIGN_OR_RETURN(const node_list src_nodes, nodes_of(src));
  TESSERA_ASSIGN_OR_RETURN(const node_list dst_nodes, nodes_of(dst));
  nest_operands<kOperands> ops;
  ops.space = index_space_of(dst);
  const node_list src_scale = mask_operand(dst, ops.space, masks.src_scale);
  const node_list dst_scale = mask_operand(dst, ops.space, masks.dst_scale);
  const node_list src_zp = mask_operand(dst, ops.space, masks.src_zp);
  const node_list dst_zp = mask_operand(dst, ops.space, masks.dst_zp);
  const node_list oscale = mask_operand(dst, ops.space, masks.oscale);
  ops.nodes = {&src_nodes, &dst_nodes, &src_scale, &dst_scale, &src_zp, &dst_zp, &oscale};
  ops.base[kSrc] = src.offset0();
  ops.base[kDst] = dst.offset0();
  ops.order_by = kDst;
  ops.then_by = kSrc;
  absl::StatusOr<loop_nest> nest = tessera::normalise(ops);
  if (nest.ok()) return nest;
  // normalise fails only on a block conflict, and the value arrays have no blocks: name the
  // conflict between src and dst in the reorder's words.
  const node_list* const sides[] = {&src_nodes, &dst_nodes};
  const std::optional<block_conflict> c = first_block_conflict(dst.rank(), sides);
  if (!c) return nest.status();
  return absl::UnimplementedError(absl::StrCat("dim ", c->dim, ": block products ", c->inner,
                                               " and ", c->outer,
                                               " of src and dst do not divide each other"));
}

std::string to_string(const nest_box& box) {
  return absl::StrJoin(box.nodes, " ", [](std::string* out, const nest_node& n) {
    absl::StrAppend(out, n.size, ":", n.stride[kSrc], "/", n.stride[kDst]);
  });
}

}  // namespace tessera::reorder_internal
