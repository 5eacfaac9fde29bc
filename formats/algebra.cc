#include "tessera/formats/algebra.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/formats/loop_nest.h"

namespace tessera {

absl::StatusOr<tag_layout> permute_tag(const tag_layout& t, absl::Span<const int> perm) {
  tag_layout r = permute(t, std::span<const int>(perm.data(), perm.size()));
  if (r.rank < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("permutation {", absl::StrJoin(perm, ","), "} of tag '", to_string(t),
                     "' is invalid: it must list each of 0..", t.rank - 1, " exactly once"));
  }
  return r;
}

absl::StatusOr<tag_layout> block_tag(const tag_layout& t, int dim, dim_t size) {
  tag_layout r = block(t, dim, size);
  if (r.rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block(", to_string(t), ", dim ", dim, ", size ", size,
        ") is invalid: dim must be in [0, ", t.rank, "), size in [1, 2^31] with the dim's block "
        "product within 2^31, and a tag holds at most ", kMaxRank, " blocks"));
  }
  return r;
}

absl::StatusOr<layout> permute(const layout& l, absl::Span<const int> perm) {
  absl::StatusOr<tag_layout> t = permute_tag(l.tag(), perm);
  if (!t.ok()) return t.status();
  std::array<dim_t, kMaxRank> dims{};
  for (int d = 0; d < l.rank(); ++d) dims[perm[d]] = l.dims()[d];
  return make_layout(*t, absl::Span<const dim_t>(dims.data(), l.rank()));
}

absl::StatusOr<node_list> nodes_of(const memory_desc& md) {
  if (md.kind() != format_kind::blocked) {
    return absl::InvalidArgumentError(
        "nodes_of: the memory_desc is not blocked (format_kind any or undef has no layout)");
  }
  const blocking_desc& b = md.blocking();
  const int rank = md.rank();
  std::array<int, kMaxRank> order{};
  for (int d = 0; d < rank; ++d) order[d] = d;
  // Memory order: larger stride outside; ties (size-1 dims) keep the logical order. A stable
  // insertion sort: std::stable_sort would allocate, and a reorder missing its cache calls this.
  for (int k = 1; k < rank; ++k) {
    const int d = order[k];
    int j = k;
    for (; j > 0 && b.strides[d] > b.strides[order[j - 1]]; --j) order[j] = order[j - 1];
    order[j] = d;
  }
  return internal::nodes_in_order(block_view_of(rank, b), md.padded_dims().data(), order.data());
}

namespace {

// The stride of the component [divisor, divisor * size) of `dim` in `nodes`, or -1 when no
// single node holds it.
dim_t stride_of(const node_list& nodes, int dim, dim_t divisor, dim_t size) {
  for (const layout_node& n : nodes.view()) {
    if (n.dim != dim || divisor < n.divisor || divisor % n.divisor != 0) continue;
    if (divisor * size > n.divisor * n.size) continue;
    return n.stride * (divisor / n.divisor);
  }
  return -1;
}

}  // namespace

absl::StatusOr<loop_nest> joint_coalesce(const node_list& src, const node_list& dst) {
  if (src.rank != dst.rank) {
    return absl::InvalidArgumentError(absl::StrCat("joint_coalesce: source rank ", src.rank,
                                                   " differs from destination rank ", dst.rank));
  }
  loop_nest nest;
  for (int d = 0; d < src.rank; ++d) {
    if (src.dims[d] != dst.dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "joint_coalesce: dim ", d, " covers ", src.dims[d], " in the source and ", dst.dims[d],
          " in the destination (padded dims must agree)"));
    }
    if (src.dims[d] == 0) {
      nest.count = 1;
      nest.loops[0] = {0, 0, 0};
      return nest;
    }
  }
  for (int d = 0; d < src.rank; ++d) {
    std::vector<dim_t> bounds = {1, src.dims[d]};
    for (const node_list* list : {&src, &dst}) {
      for (const layout_node& n : list->view()) {
        if (n.dim != d) continue;
        bounds.push_back(n.divisor);
        bounds.push_back(n.divisor * n.size);
      }
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    for (size_t j = 0; j + 1 < bounds.size(); ++j) {
      if (bounds[j + 1] % bounds[j] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "joint_coalesce: the blocks of dim ", d, " do not nest: ", bounds[j], " does not divide ",
            bounds[j + 1], " (source and destination blocks must divide each other)"));
      }
      const dim_t size = bounds[j + 1] / bounds[j];
      const dim_t s = stride_of(src, d, bounds[j], size);
      const dim_t t = stride_of(dst, d, bounds[j], size);
      if (s < 0 || t < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "joint_coalesce: dim ", d, " block [", bounds[j], ", ", bounds[j + 1],
            ") is split across nodes that are not contiguous in the ",
            s < 0 ? "source" : "destination"));
      }
    }
  }
  // Every component lies inside one node of each side: the normalisation over the padded dims
  // (no padding, so one box) is the joint loop nest.
  nest_operands<2> ops;
  ops.space.rank = src.rank;
  ops.space.dims = src.dims;
  ops.space.padded = src.dims;
  ops.nodes = {&src, &dst};
  ops.order_by = 1;
  ops.then_by = 0;
  absl::StatusOr<joint_nest<2>> joint = normalise(ops);
  if (!joint.ok()) return joint.status();
  if (joint->data.empty()) return nest;
  const std::vector<nest_node<2>>& nodes = joint->data.front().nodes;
  if (nodes.size() > static_cast<size_t>(kMaxNodes)) {
    return absl::InternalError("joint_coalesce: more than kMaxNodes loops");
  }
  for (const nest_node<2>& n : nodes) nest.loops[nest.count++] = {n.size, n.stride[0], n.stride[1]};
  return nest;
}

std::string to_string(const loop_nest& nest) {
  std::string s;
  for (const joint_loop& l : nest.view()) {
    absl::StrAppend(&s, s.empty() ? "" : " ", "{", l.size, ": ", l.src_stride, ",", l.dst_stride,
                    "}");
  }
  return s;
}

}  // namespace tessera
