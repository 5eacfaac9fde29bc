// Clearing the padding of a blocked memory: the elements at indices in [dims, padded_dims) on some
// dim, which oneDNN's blocked formats keep at zero.
//
//   const padding_boxes pad = padding_of(dst_md);  // at create time
//   ...
//   zero_padding(pad, dst_buffer);                  // after each execution that wrote dst
//
// The boxes are formats/loop_nest.h's padding boxes of the one operand `md` (normalise's
// post-condition: they cover exactly the padded-but-not-logical elements, each once), so a pass
// writes every padding element once and nothing else. Within a box the innermost node, when it has
// stride 1, is one memset.
//
// A primitive that splits the clearing between threads walks the rows of each box itself:
//   for (size_t b = 0; b < pad.boxes.size(); ++b)
//     parallel_for(padding_rows(pad.boxes[b]), ..., [&](int64_t begin, int64_t end) {
//       zero_padding_rows(pad, b, begin, end, dst_buffer);
//     });
#ifndef TESSERA_PRIMITIVES_COMMON_ZERO_PADDING_H_
#define TESSERA_PRIMITIVES_COMMON_ZERO_PADDING_H_

#include <cstdint>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/formats/loop_nest.h"

namespace tessera {

struct padding_boxes {
  dim_t element_bytes = 0;
  std::vector<nest_box<1>> boxes;  // element offsets, offset0 included; empty: no padding
};

// md's padding boxes. Empty for a memory without padding, with no element, or not blocked. The
// offsets are those of memory_desc::offset for a descriptor whose padded_offsets are 0 (every
// descriptor Tessera builds).
padding_boxes padding_of(const memory_desc& md);

// The rows of a box: its nodes but the innermost one when that one has stride 1 (one memset).
int64_t padding_rows(const nest_box<1>& box);

// Clears rows [begin, end) of box `box` of `pad` in the buffer `data` (offset 0 of the memory).
void zero_padding_rows(const padding_boxes& pad, size_t box, int64_t begin, int64_t end, void* data);

// Clears every padding element of the buffer `data`, on the calling thread.
void zero_padding(const padding_boxes& pad, void* data);

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_ZERO_PADDING_H_
