// Format tags: one parser for compile time and run time.
//
//   // Compile time: a bad tag is a compile error.
//   constexpr tessera::tag_layout t = tessera::tag<"nChw16c">;     // == tag<"aBcd16b">
//   static_assert(t.rank == 4 && t.nblks == 1 && t.blk_sizes[0] == 16 && t.blk_dims[0] == 1);
//   static_assert(tessera::tag<"aBx16b", 5> == tessera::tag<"aBcde16b">);   // benchdnn meta tag
//
//   // Run time: a bad tag is a Status naming the tag and the rule it breaks.
//   absl::StatusOr<tessera::tag_layout> u = tessera::parse_tag("OIhw4i16o4i");
//   std::string s = tessera::to_string(*u);   // "ABcd4b16a4b"
//
// Grammar: letters a..l name logical dims in memory order, outermost first; an uppercase letter
// is a blocked dim whose inner blocks follow as <size><letter>, outermost block first. Domain
// aliases (nchw, nhwc, OIhw16i16o, gOIhw16i16o, tnc, ldigo, ...) are accepted as written: their
// letters are numbered in the domain's logical order (ncdhw, goidhw, tnc, ld+igo/nc), so the dim
// count decides what 'w' means. 'x' (benchdnn) stands for every dim the tag does not name, in
// logical order, and needs the rank. "x" alone is oneDNN's 1-D alias; "any" is format_kind::any.
#ifndef TESSERA_FORMATS_TAG_H_
#define TESSERA_FORMATS_TAG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tessera/formats/fixed_string.h"
#include "tessera/formats/internal/tag_parser.h"

namespace tessera {

// Parses `tag` in a constant expression or at run time; never fails to compile. rank -1 means
// unknown (then a tag with 'x' is an error); otherwise it must match the tag's own rank.
constexpr tag_parse_result try_parse_tag(std::string_view tag, int rank = -1) {
  return internal::parse_tag(tag, rank);
}

namespace internal {
// Deliberately not constexpr: reaching it while compiling is how a bad tag becomes a compile
// error; the compiler's note names the broken rule (the template argument) and the tag.
template <tag_error Why>
void format_tag_is_invalid() {}

consteval void reject_tag(tag_error why) {
  switch (why) {
#define TESSERA_REJECT_(e) \
  case tag_error::e: format_tag_is_invalid<tag_error::e>(); break;
    TESSERA_REJECT_(empty) TESSERA_REJECT_(too_long) TESSERA_REJECT_(undef)
    TESSERA_REJECT_(bad_character) TESSERA_REJECT_(bad_domain_letter)
    TESSERA_REJECT_(duplicate_dim) TESSERA_REJECT_(skipped_dim) TESSERA_REJECT_(too_many_dims)
    TESSERA_REJECT_(uppercase_block_letter) TESSERA_REJECT_(block_without_letter)
    TESSERA_REJECT_(block_size_zero) TESSERA_REJECT_(block_size_too_large)
    TESSERA_REJECT_(block_of_unblocked_dim) TESSERA_REJECT_(blocked_dim_without_block)
    TESSERA_REJECT_(too_many_blocks) TESSERA_REJECT_(meta_x_twice)
    TESSERA_REJECT_(meta_x_uppercase) TESSERA_REJECT_(meta_x_needs_rank)
    TESSERA_REJECT_(meta_x_rank_too_small) TESSERA_REJECT_(rank_mismatch)
#undef TESSERA_REJECT_
    case tag_error::none: break;
  }
}

template <fixed_string Tag, int Rank>
consteval tag_layout parse_tag_or_compile_error() {
  tag_parse_result r = parse_tag(Tag.view(), Rank);
  reject_tag(r.error);
  return r.layout;
}
}  // namespace internal

// The layout a tag names, as a constant. Rank is needed only for tags with 'x'.
template <fixed_string Tag, int Rank = -1>
inline constexpr tag_layout tag = internal::parse_tag_or_compile_error<Tag, Rank>();

// Run-time parse; the error message names the tag, the rule and the position.
absl::StatusOr<tag_layout> parse_tag(absl::string_view tag, int rank = -1);

// The abstract letter form ("aBcd16b"); "any" for any.
std::string to_string(const tag_layout& t);

// The Status for a failed try_parse_tag (used by every run-time entry point).
absl::Status tag_parse_error(absl::string_view tag, const tag_parse_result& r, int rank);

}  // namespace tessera

#endif  // TESSERA_FORMATS_TAG_H_
