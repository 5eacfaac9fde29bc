#include "tessera/core/memory_extra.h"

#include "absl/strings/str_cat.h"

namespace tessera {

int64_t compensation_count(absl::Span<const int64_t> padded_dims, int mask) {
  int64_t n = 1;
  for (size_t d = 0; d < padded_dims.size(); ++d) {
    if (mask & (1 << d)) n *= padded_dims[d];
  }
  return n;
}

std::string extra_string(const memory_extra& e) {
  std::string s = absl::StrCat("f", e.flags);
  if (e.has_s8s8_compensation()) absl::StrAppend(&s, ":s8m", e.compensation_mask);
  if (e.has_zp_compensation()) absl::StrAppend(&s, ":zpm", e.asymm_compensation_mask);
  if ((e.flags & extra_flags::scale_adjust) && e.scale_adjust != 1.0f) absl::StrAppend(&s, ":sa", e.scale_adjust);
  return s;
}

}  // namespace tessera
