// Arguments a primitive does not read. Giving one is an error rather than silently ignored (a
// scale passed to a primitive created without scales would otherwise change nothing).
//
//   if (std::optional<arg> a = first_unread(args, [&](arg a) { return a == arg::src || ...; })) {
//     return absl::InvalidArgumentError(absl::StrCat("softmax takes no ", name_of(*a), ...));
//   }
#ifndef TESSERA_PRIMITIVES_COMMON_UNREAD_ARGS_H_
#define TESSERA_PRIMITIVES_COMMON_UNREAD_ARGS_H_

#include <optional>

#include "tessera/primitives/common/arg.h"

namespace tessera {

// The first argument, in the order of `arg`, that is given but for which reads(a) is false.
template <class Reads>
std::optional<arg> first_unread(const exec_args& args, Reads&& reads) {
  for (int i = 0; i < static_cast<int>(arg::kCount); ++i) {
    const arg a = static_cast<arg>(i);
    if (args.find(a) != nullptr && !reads(a)) return a;
  }
  return std::nullopt;
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_UNREAD_ARGS_H_
