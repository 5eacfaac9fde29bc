#include "tessera/primitives/reorder/internal/reorder_padding.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {

// A normalised plan's joint nest already holds the dst padding boxes (formats/loop_nest.h's
// post-condition: they cover the padded-but-not-logical indices once each, with their dst
// offsets, offset0 included): their dst side is padding_of(dst)'s contract. Reading it off costs
// nothing, where padding_of normalises dst again: +2.6 us on an uncached create of f32 nChw8c ->
// nChw16c 2x17x5x5 (6.2 -> 8.9 us, AVX-512 Zen 4).
padding_boxes dst_padding_of(const plan& p) {
  if (!p.normalised) return padding_of(p.dst);
  padding_boxes pad;
  pad.element_bytes = bytes_of(p.dst.dt());
  pad.boxes.reserve(p.nest.padding.size());
  for (const nest_box& box : p.nest.padding) {
    tessera::nest_box<1> dst_box;
    dst_box.base = {box.base[kDst]};
    dst_box.nodes.reserve(box.nodes.size());
    for (const nest_node& n : box.nodes) dst_box.nodes.push_back({n.size, {n.stride[kDst]}});
    tessera::order_and_merge(dst_box.nodes, 0, 0);
    pad.boxes.push_back(std::move(dst_box));
  }
  return pad;
}

void zero_dst_padding(const plan& p, char* dst) {
  const padding_boxes& pad = p.dst_padding;
  for (size_t b = 0; b < pad.boxes.size(); ++b) {
    const int64_t rows = padding_rows(pad.boxes[b]);
    if (rows == 0) continue;
    const int64_t row_elements = pad.boxes[b].elements() / rows;
    parallel_for(rows, std::max<int64_t>(1, kMinElementsPerTask / row_elements),
                 [&](int64_t begin, int64_t end) { zero_padding_rows(pad, b, begin, end, dst); });
  }
}

}  // namespace tessera::reorder_internal
