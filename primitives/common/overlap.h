// Whether two bound buffers overlap, for the rule every primitive applies between an input and an
// output: either the same buffer (in place, which then needs equal descriptors) or disjoint byte
// ranges. A primitive that cannot run in place rejects anything but `disjoint`.
//
//   switch (overlap_of(src, dst)) {
//     case buffer_overlap::disjoint: break;
//     case buffer_overlap::same_start: if (src_md != dst_md) return ...; break;   // in place
//     case buffer_overlap::partial: return absl::InvalidArgumentError("... overlap ...");
//   }
#ifndef TESSERA_PRIMITIVES_COMMON_OVERLAP_H_
#define TESSERA_PRIMITIVES_COMMON_OVERLAP_H_

#include "tessera/primitives/common/binding.h"

namespace tessera {

enum class buffer_overlap {
  disjoint,    // no byte in common (or either spans no bytes)
  same_start,  // both start at the same address
  partial,     // they share bytes but start at different addresses
};

inline buffer_overlap overlap_of(const bound_arg& a, const bound_arg& b) {
  if (a.bytes == 0 || b.bytes == 0) return buffer_overlap::disjoint;
  const char* pa = static_cast<const char*>(a.data);
  const char* pb = static_cast<const char*>(b.data);
  if (pa == pb) return buffer_overlap::same_start;
  if (pa < pb + b.bytes && pb < pa + a.bytes) return buffer_overlap::partial;
  return buffer_overlap::disjoint;
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_OVERLAP_H_
