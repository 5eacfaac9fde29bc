#include "tessera/primitives/common/zero_padding.h"

#include <array>
#include <cstring>

#include "tessera/formats/algebra.h"

namespace tessera {
namespace {

bool contiguous_run(const nest_box<1>& box) {
  return !box.nodes.empty() && box.nodes.back().stride[0] == 1;
}

// The nodes a row is made of: all but the innermost when that one is the memset.
size_t outer_nodes(const nest_box<1>& box) {
  return contiguous_run(box) ? box.nodes.size() - 1 : box.nodes.size();
}

}  // namespace

padding_boxes padding_of(const memory_desc& md) {
  padding_boxes pad;
  // No element, or as many padded elements as logical ones: nothing to clear.
  if (md.kind() != format_kind::blocked || md.nelems() == 0 ||
      md.nelems(/*with_padding=*/true) == md.nelems()) {
    return pad;
  }
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

int64_t padding_rows(const nest_box<1>& box) { return product(box, 0, outer_nodes(box)); }

void zero_padding_rows(const padding_boxes& pad, size_t b, int64_t begin, int64_t end,
                       void* data) {
  const nest_box<1>& box = pad.boxes[b];
  const size_t run_bytes =
      static_cast<size_t>((contiguous_run(box) ? box.nodes.back().size : 1) * pad.element_bytes);
  char* base = static_cast<char*>(data);
  walk(box, outer_nodes(box), begin, end, [&](const std::array<dim_t, 1>& off) {
    std::memset(base + off[0] * pad.element_bytes, 0, run_bytes);
  });
}

void zero_padding(const padding_boxes& pad, void* data) {
  for (size_t b = 0; b < pad.boxes.size(); ++b) {
    zero_padding_rows(pad, b, 0, padding_rows(pad.boxes[b]), data);
  }
}

}  // namespace tessera
