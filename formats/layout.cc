#include "tessera/formats/layout.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {

std::string dims_to_string(absl::Span<const dim_t> dims) { return absl::StrJoin(dims, "x"); }

namespace {
absl::Status layout_status(absl::string_view tag, absl::Span<const dim_t> dims,
                           const layout_result& r, int tag_rank) {
  const std::string what = absl::StrCat("format tag '", tag, "' with dims ",
                                        dims.empty() ? "(rank 0)" : dims_to_string(dims));
  switch (r.error) {
    case layout_error::any_has_no_layout:
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": 'any' has no layout until a primitive picks one"));
    case layout_error::rank_mismatch:
      return absl::InvalidArgumentError(absl::StrCat(what, ": the tag has ", tag_rank,
                                                     " dims but the dims have ", dims.size()));
    case layout_error::negative_dim:
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": dim ", r.dim, " is ", dims[r.dim], ", dims must be >= 0"));
    case layout_error::overflow:
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the padded size overflows int64 at dim ", r.dim, " (", dims[r.dim], ")"));
    case layout_error::none: break;
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<layout> make_layout(const tag_layout& t, absl::Span<const dim_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(absl::StrCat("dims ", dims_to_string(dims), " have rank ",
                                                   dims.size(), ", the limit is ", kMaxRank));
  }
  layout_result r = try_make_layout(t, std::span<const dim_t>(dims.data(), dims.size()));
  if (!r.ok()) return layout_status(to_string(t), dims, r, t.rank);
  return r.value;
}

absl::StatusOr<layout> make_layout(absl::string_view tag, absl::Span<const dim_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(absl::StrCat("dims ", dims_to_string(dims), " have rank ",
                                                   dims.size(), ", the limit is ", kMaxRank));
  }
  const int rank = static_cast<int>(dims.size());
  tag_parse_result p = try_parse_tag(std::string_view(tag.data(), tag.size()), rank);
  if (!p.ok()) return tag_parse_error(tag, p, rank);
  layout_result r = try_make_layout(p.layout, std::span<const dim_t>(dims.data(), dims.size()));
  if (!r.ok()) return layout_status(tag, dims, r, p.layout.rank);
  return r.value;
}

}  // namespace tessera
