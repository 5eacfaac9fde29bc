// make_memory_desc: a memory_desc from dims, a data type and a format tag.
//
//   absl::StatusOr<tessera::memory_desc> md =
//       tessera::make_memory_desc({2, 17, 3, 3}, tessera::data_type::f32, "nChw16c");
//   // md->padded_dims() == {2, 32, 3, 3}; md->blocking().strides == {288, 144, 48, 16, ...}
//   auto a = tessera::make_memory_desc({2, 17}, tessera::data_type::f32, "any");  // kind any
//
// Errors (rank mismatch, bad tag, negative dims, sizes overflowing int64) name the bad value.
#ifndef TESSERA_FORMATS_MAKE_MEMORY_DESC_H_
#define TESSERA_FORMATS_MAKE_MEMORY_DESC_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/layout.h"

namespace tessera {

absl::StatusOr<memory_desc> make_memory_desc(absl::Span<const dim_t> dims, data_type dt,
                                             absl::string_view tag);
absl::StatusOr<memory_desc> make_memory_desc(const layout& l, data_type dt);

// The oneDNN blocking_desc of a layout (outer strides and inner blocks).
blocking_desc to_blocking(const layout& l);

// `like`'s dims, inner blocks and dim order (its outer nodes in memory order, nodes_of), packed
// without gaps, with type dt: what a `format_kind::any` output next to `like` resolves to.
// like must be blocked (nodes_of's error otherwise).
absl::StatusOr<memory_desc> make_dense_like(const memory_desc& like, data_type dt);

}  // namespace tessera

#endif  // TESSERA_FORMATS_MAKE_MEMORY_DESC_H_
