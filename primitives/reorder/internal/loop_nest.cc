#include "tessera/primitives/reorder/internal/loop_nest.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/status.h"
#include "tessera/formats/algebra.h"

namespace tessera::reorder_internal {
namespace {

// A per-dim value array over the dims of `mask`, row-major in logical dim order: one value per
// index of each masked dim of `dst`.
node_list mask_operand(const memory_desc& dst, const index_space& space, int mask) {
  std::array<dim_t, kMaxRank> strides{};
  dim_t s = 1;
  for (int d = dst.rank() - 1; d >= 0; --d) {
    if (!(mask & (1 << d))) continue;
    strides[d] = s;
    s *= dst.dims()[d];
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
  // An absent value array (mask < 0) has no node: stride 0 everywhere. Only the present ones are
  // built: a node_list is 1.6 KB, and every create that misses the cache normalises.
  static const node_list kAbsent;
  const int mask_of[kOperands] = {-1, -1, masks.src_scale, masks.dst_scale, masks.src_zp,
                                  masks.dst_zp, masks.oscale};
  std::array<std::optional<node_list>, kOperands> present;
  ops.nodes[kSrc] = &src_nodes;
  ops.nodes[kDst] = &dst_nodes;
  for (int op = kSrcScale; op < kOperands; ++op) {
    if (mask_of[op] < 0) {
      ops.nodes[op] = &kAbsent;
      continue;
    }
    present[op] = mask_operand(dst, ops.space, mask_of[op]);
    ops.nodes[op] = &*present[op];
  }
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
