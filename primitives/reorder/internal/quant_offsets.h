// Where the element-wise kernels (reference_kernel.cc, low_precision_kernel.cc) find an element's
// scales and zero points.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_OFFSETS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_OFFSETS_H_

#include <array>

#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"

namespace tessera::reorder_internal {

// The element offsets, in each per-dim operand, of logical index `idx` of `dims`: the index over
// the operand's masked dims, row-major (0 for an absent operand).
inline strides_t quant_offsets(const operand_masks& m, absl::Span<const dim_t> dims,
                               const std::array<dim_t, kMaxRank>& idx) {
  auto offset = [&](int mask) {
    dim_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (mask > 0 && (mask & (1 << d))) off = off * dims[d] + idx[d];
    }
    return off;
  };
  strides_t off{};
  off[kSrcScale] = offset(m.src_scale);
  off[kDstScale] = offset(m.dst_scale);
  off[kSrcZp] = offset(m.src_zp);
  off[kDstZp] = offset(m.dst_zp);
  off[kOscale] = offset(m.oscale);
  return off;
}

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_QUANT_OFFSETS_H_
