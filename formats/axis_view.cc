#include "tessera/formats/axis_view.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tessera {

absl::StatusOr<axis_view> axis_view_of(const memory_desc& md, int axis) {
  if (axis < 0 || axis >= md.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis_view_of: axis ", axis, " is outside [0, ", md.rank(), ")"));
  }
  absl::StatusOr<node_list> nodes = nodes_of(md);
  if (!nodes.ok()) return nodes.status();
  axis_view v;
  v.axis.rank = nodes->rank;
  v.axis.dims = nodes->dims;
  for (const layout_node& n : nodes->view()) {
    if (n.dim == axis) v.axis.nodes[v.axis.count++] = n;
  }
  // The other dims, largest stride first; a stable insertion sort keeps ties in logical order.
  const auto& strides = md.blocking().strides;
  std::array<int, kMaxRank> order{};
  int count = 0;
  for (int d = 0; d < md.rank(); ++d) {
    if (d == axis || md.dims()[d] <= 1) continue;
    int j = count++;
    for (; j > 0 && strides[d] > strides[order[j - 1]]; --j) order[j] = order[j - 1];
    order[j] = d;
  }
  strided_dims others;
  others.rank = count;
  for (int k = 0; k < count; ++k) {
    others.dims[k] = md.dims()[order[k]];
    others.strides[k] = strides[order[k]];
  }
  v.others = coalesce(others);
  return v;
}

}  // namespace tessera
