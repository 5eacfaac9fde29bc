// What several kernels' acceptance rules ask of a plan: the box kernels are chosen on, whether
// the quantization is common, whether the problem was normalised, whether dst is large.
//
//   TESSERA_RETURN_IF_ERROR(need_nest(p));
//   const nest_box* box = main_box(p);   // null without data boxes
//   if (!all_quant_common(p)) return absl::FailedPreconditionError("per-dimension ...");
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNEL_RULES_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNEL_RULES_H_

#include <cstdint>

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/plan.h"

namespace tessera::reorder_internal {

inline const nest_box* main_box(const plan& p) {
  if (!p.normalised) return nullptr;
  if (p.nest.data.empty()) return nullptr;
  return &p.nest.data[p.main_box];
}

inline bool all_quant_common(const plan& p) {
  const operand_masks& m = p.masks;
  return m.src_scale <= 0 && m.dst_scale <= 0 && m.src_zp <= 0 && m.dst_zp <= 0 && m.oscale <= 0;
}

// Every kernel but the element-wise one walks the loop nest: the normaliser's error otherwise.
inline absl::Status need_nest(const plan& p) {
  if (!p.normalised) return absl::FailedPreconditionError(p.normalise_error);
  return absl::OkStatus();
}

// Beyond a few MiB the dst does not stay in cache anyway: write it around the cache.
inline constexpr int64_t kStreamBytes = int64_t{8} << 20;
inline bool large_dst(const plan& p) { return p.dst.size_bytes() >= kStreamBytes; }

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNEL_RULES_H_
