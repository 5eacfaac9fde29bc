// Binding an execution argument to its buffer, checked against the descriptor the primitive was
// created with. The rule is shared; the wording of each failure is the primitive's (its messages
// are part of its interface), so bind_arg reports which rule failed and the caller words it.
//
//   bound_arg src;
//   switch (bind_arg(args, arg::src, created_src, created_src_bytes, src)) {
//     case bind_failure::none: break;
//     case bind_failure::missing: return absl::InvalidArgumentError("missing argument src");
//     case bind_failure::other_descriptor: ...   // src.given holds the descriptor given
//     case bind_failure::null_data: ...
//   }
//   run(src.data, ...);
#ifndef TESSERA_PRIMITIVES_COMMON_BINDING_H_
#define TESSERA_PRIMITIVES_COMMON_BINDING_H_

#include <cstdint>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"

namespace tessera {

// A bound argument: its buffer and the bytes the created descriptor spans there.
struct bound_arg {
  void* data = nullptr;
  int64_t bytes = 0;
  const memory_desc* given = nullptr;  // the descriptor passed with the argument, when given
};

enum class bind_failure {
  none,
  missing,           // the argument was not given
  other_descriptor,  // given with a descriptor other than the created one
  null_data,         // a null buffer for a descriptor that spans bytes
};

// Checks, in this order: given, with a descriptor equal to `expected`, with a non-null buffer
// unless `expected_bytes` (expected.size_bytes(), computed once by the caller) is 0. `out` is
// filled as far as the checks went. Inline: it is on the path of every execution.
inline bind_failure bind_arg(const exec_args& args, arg which, const memory_desc& expected,
                             int64_t expected_bytes, bound_arg& out) {
  const memory* m = args.find(which);
  if (m == nullptr) return bind_failure::missing;
  out.given = &m->desc;
  if (m->desc != expected) return bind_failure::other_descriptor;
  if (m->data == nullptr && expected_bytes > 0) return bind_failure::null_data;
  out.data = m->data;
  out.bytes = expected_bytes;
  return bind_failure::none;
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_BINDING_H_
