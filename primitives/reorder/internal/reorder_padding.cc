#include "tessera/primitives/reorder/internal/reorder_padding.h"

#include <algorithm>
#include <cstring>

#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {

void zero_padding(const plan& p, char* dst) {
  const int es = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.padding) {
    const size_t n = box.nodes.size();
    const bool contiguous = n == 0 || box.nodes.back().stride[kDst] == 1;
    const size_t outer = contiguous && n > 0 ? n - 1 : n;
    const int64_t run = contiguous && n > 0 ? box.nodes.back().size : 1;
    parallel_for(product(box, 0, outer), std::max<int64_t>(1, kMinElementsPerTask / run),
                 [&](int64_t begin, int64_t end) {
                   walk(box, outer, begin, end, [&](const strides_t& off) {
                     std::memset(dst + off[kDst] * es, 0, run * es);
                   });
                 });
  }
}

}  // namespace tessera::reorder_internal
