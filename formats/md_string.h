// String forms of a memory_desc: oneDNN's verbose style and benchdnn's options.
//
//   auto md = *tessera::make_memory_desc({2, 17, 3, 3}, tessera::data_type::f32, "nChw16c");
//   tessera::verbose_md_string(md);   // "f32:p:blocked:aBcd16b:f0"  (p: has padding)
//   tessera::dims_to_string(md.dims());  // "2x17x3x3"
//   auto back = tessera::parse_verbose_md("f32:p:blocked:aBcd16b:f0", "2x17x3x3");  // == md
//   tessera::benchdnn_args(md);       // "--sdt=f32 --stag=aBcd16b 2x17x3x3"
//   auto b2 = tessera::parse_benchdnn_args("--sdt=f32 --stag=aBcd16b 2x17x3x3");   // == md
//
// The layout field is the tag when the blocking is exactly what that tag gives for these dims
// (the tag's letters are inferred from the strides: larger stride outside); otherwise it is the
// inferred tag followed by '@' and the outer strides ("ab@10x1" for a 2x3 with a leading dim 10),
// which oneDNN's verbose would not print but which round-trips. A non-zero offset0 is printed as
// a last field ":off=N" for information; parsing it back is refused (only submemory creates one).
#ifndef TESSERA_FORMATS_MD_STRING_H_
#define TESSERA_FORMATS_MD_STRING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tessera/core/memory_desc.h"

namespace tessera {

// The tag (letter form) of a blocked memory_desc when its blocking is what that tag gives;
// NotFound otherwise (e.g. a leading dimension larger than dense, or offset0 != 0).
absl::StatusOr<std::string> tag_of(const memory_desc& md);

// "f32::blocked:abcd:f0", "f32:p:blocked:aBcd16b:f0", "f32::blocked:ab@10x1:f0", "f32::any:any:f0".
std::string verbose_md_string(const memory_desc& md);
absl::StatusOr<memory_desc> parse_verbose_md(absl::string_view md, absl::string_view dims);

// One tensor of a ONEDNN_VERBOSE (oneDNN 3.x, verbose format v1) line:
// "<arg>:<dt>:<properties>:<format kind>:<tag>:<strides>:f0", e.g. "src:f32::blocked:abcd::f0",
// "dst:f32:p:blocked:aBcd16b::f0" (p: padded dims), "src:f32::blocked:ab:10x1:f0" (strides only
// when the layout is not dense), "dst:f32::any:any::f0". Properties: 'p' padded dims, 'o' padded
// offsets, '0' a non-zero offset0 (oneDNN's 'a', created with `any`, is not known here).
std::string onednn_verbose_md_string(absl::string_view arg, const memory_desc& md);

// "2x17x3x3" -> {2, 17, 3, 3}; errors name the bad field.
absl::StatusOr<std::vector<dim_t>> parse_dims(absl::string_view dims);

// benchdnn's form; `role` is the option prefix ("s" source, "d" destination). Needs a tag-
// expressible (or any) memory_desc.
absl::StatusOr<std::string> benchdnn_args(const memory_desc& md, absl::string_view role = "s");
absl::StatusOr<memory_desc> parse_benchdnn_args(absl::string_view args);

}  // namespace tessera

#endif  // TESSERA_FORMATS_MD_STRING_H_
