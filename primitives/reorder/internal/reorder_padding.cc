#include "tessera/primitives/reorder/internal/reorder_padding.h"

#include <algorithm>
#include <cstdint>

#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {

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
