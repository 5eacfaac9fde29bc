// The ordered list of reorder kernels. Each candidate either accepts a plan (and puts its state
// in plan::kernel) or says why not; create() takes the first that accepts.
//
//   for (const candidate& c : candidates()) {
//     absl::Status why = c.accept(p);
//     if (why.ok()) { p.impl_name = c.name; break; }
//     p.declined.push_back(absl::StrCat(c.name, ": ", why.message()));
//   }
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNELS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNELS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/plan.h"

namespace tessera::reorder_internal {

struct candidate {
  std::string name;  // "<engine>:<isa>:<kernel>" (common/impl_name.h)
  std::function<absl::Status(plan&)> accept;
};

// Best first: copy, then per ISA (from simd::max_isa() down) convert, gather and transpose, then
// the generic strided kernel, then the element-wise scalar kernel (accepts everything; the only
// one that takes s4, u4, f4_e2m1, f4_e3m0 and e8m0, which the others decline).
std::vector<candidate> candidates();

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_KERNELS_H_
