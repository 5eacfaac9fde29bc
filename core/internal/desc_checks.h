// What the sources of memory_desc share: the text of a dims list in messages, int64 overflow of a
// product, and the rank check. Not for users.
#ifndef TESSERA_CORE_INTERNAL_DESC_CHECKS_H_
#define TESSERA_CORE_INTERNAL_DESC_CHECKS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"

namespace tessera {
namespace internal {

// "{2,3,4}": dims (or strides) as every memory_desc message writes them.
inline std::string dims_str(absl::Span<const dim_t> v) { return absl::StrCat("{", absl::StrJoin(v, ","), "}"); }

// *out = a * b; true when the product does not fit int64 (*out is then the wrapped value).
inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

// OK for rank in [0, kMaxRank]; otherwise the message "<what>: rank ... is out of range".
inline absl::Status check_rank(int rank, absl::string_view what) {
  if (rank < 0 || rank > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": rank ", rank, " is out of range: must be in [0, ", kMaxRank, "]"));
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_CORE_INTERNAL_DESC_CHECKS_H_
