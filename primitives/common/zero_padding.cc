#include "tessera/primitives/common/zero_padding.h"

#include <array>
#include <cstring>

#include "tessera/formats/algebra.h"

namespace tessera {
namespace {

bool contiguous_run(const nest_box<1>& box) {
  return !box.nodes.empty() && box.nodes.back().stride[0] == 1;
}

}  // namespace

padding_boxes padding_of(const memory_desc& md) {
  padding_boxes pad;
  if (md.kind() != format_kind::blocked || md.nelems() == 0) return pad;
  bool padded = false;
  for (int d = 0; d < md.rank(); ++d) padded = padded || md.padded_dims()[d] != md.dims()[d];
  if (!padded) return pad;
  const absl::StatusOr<node_list> nodes = nodes_of(md);
  if (!nodes.ok()) return pad;
  nest_operands<1> ops;
  ops.space = index_space_of(md);
  ops.nodes = {&*nodes};
  ops.base = {md.offset0()};
  // One operand: its own blocks always nest, so the normalisation cannot fail.
  absl::StatusOr<joint_nest<1>> nest = normalise(ops);
  if (!nest.ok()) return pad;
  pad.element_bytes = bits_of(md.dt()) / 8;
  pad.boxes = std::move(nest->padding);
  return pad;
}

int64_t padding_rows(const nest_box<1>& box) {
  const size_t outer = contiguous_run(box) ? box.nodes.size() - 1 : box.nodes.size();
  int64_t rows = 1;
  for (size_t k = 0; k < outer; ++k) rows *= box.nodes[k].size;
  return rows;
}

void zero_padding_rows(const padding_boxes& pad, size_t b, int64_t begin, int64_t end,
                       void* data) {
  const nest_box<1>& box = pad.boxes[b];
  const bool contiguous = contiguous_run(box);
  const int outer = static_cast<int>(contiguous ? box.nodes.size() - 1 : box.nodes.size());
  const size_t run_bytes =
      static_cast<size_t>((contiguous ? box.nodes.back().size : 1) * pad.element_bytes);
  char* base = static_cast<char*>(data);
  // The index of row `begin` in the outer nodes, then an odometer.
  std::array<dim_t, kMaxNodes> idx{};
  dim_t off = box.base[0];
  int64_t rest = begin;
  for (int k = outer - 1; k >= 0; --k) {
    idx[k] = rest % box.nodes[k].size;
    rest /= box.nodes[k].size;
    off += idx[k] * box.nodes[k].stride[0];
  }
  for (int64_t row = begin; row < end; ++row) {
    std::memset(base + off * pad.element_bytes, 0, run_bytes);
    for (int k = outer - 1; k >= 0; --k) {
      off += box.nodes[k].stride[0];
      if (++idx[k] < box.nodes[k].size) break;
      off -= idx[k] * box.nodes[k].stride[0];
      idx[k] = 0;
    }
  }
}

void zero_padding(const padding_boxes& pad, void* data) {
  for (size_t b = 0; b < pad.boxes.size(); ++b) {
    zero_padding_rows(pad, b, 0, padding_rows(pad.boxes[b]), data);
  }
}

}  // namespace tessera
