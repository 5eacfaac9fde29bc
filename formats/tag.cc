#include "tessera/formats/tag.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tessera {
absl::Status tag_parse_error(absl::string_view tag, const tag_parse_result& r, int rank) {
  std::string where;
  if (r.position >= 0 && r.position < static_cast<int>(tag.size())) {
    where = absl::StrCat(" (at position ", r.position, ", '", tag.substr(r.position, 1), "')");
  }
  if (r.error == tag_error::rank_mismatch || r.error == tag_error::meta_x_rank_too_small) {
    where = absl::StrCat(" (the tag has ", r.tag_rank, " dims, the dims have ", rank, ")");
  }
  if (r.error == tag_error::meta_x_needs_rank) where = " (no rank was given)";
  return absl::InvalidArgumentError(absl::StrCat("format tag '", tag, "' is invalid: ",
                                                 absl::string_view(tag_error_rule(r.error).data(),
                                                                   tag_error_rule(r.error).size()),
                                                 where));
}

absl::StatusOr<tag_layout> parse_tag(absl::string_view tag, int rank) {
  tag_parse_result r = try_parse_tag(std::string_view(tag.data(), tag.size()), rank);
  if (!r.ok()) return tag_parse_error(tag, r, rank);
  return r.layout;
}

std::string to_string(const tag_layout& t) {
  if (t.is_any) return "any";
  std::string s;
  for (int k = 0; k < t.rank; ++k) {
    const int d = t.order[k];
    const bool blocked = t.block_product(d) != 1 || [&] {
      for (int b = 0; b < t.nblks; ++b)
        if (t.blk_dims[b] == d) return true;
      return false;
    }();
    s += static_cast<char>((blocked ? 'A' : 'a') + d);
  }
  for (int b = 0; b < t.nblks; ++b) {
    absl::StrAppend(&s, t.blk_sizes[b]);
    s += static_cast<char>('a' + t.blk_dims[b]);
  }
  return s;
}

}  // namespace tessera
