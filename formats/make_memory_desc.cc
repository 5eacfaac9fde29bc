#include "tessera/formats/make_memory_desc.h"

namespace tessera {

blocking_desc to_blocking(const layout& l) {
  blocking_desc b;
  for (int d = 0; d < l.rank(); ++d) b.strides[d] = l.stride(d);
  const tag_layout& t = l.tag();
  b.inner_nblks = t.nblks;
  for (int k = 0; k < t.nblks; ++k) {
    b.inner_blks[k] = t.blk_sizes[k];
    b.inner_idxs[k] = t.blk_dims[k];
  }
  return b;
}

absl::StatusOr<memory_desc> make_memory_desc(const layout& l, data_type dt) {
  return memory_desc::with_blocking(l.dims(), dt, to_blocking(l));
}

absl::StatusOr<memory_desc> make_memory_desc(absl::Span<const dim_t> dims, data_type dt,
                                             absl::string_view tag) {
  if (tag == "any") return memory_desc::any(dims, dt);
  absl::StatusOr<layout> l = make_layout(tag, dims);
  if (!l.ok()) return l.status();
  return make_memory_desc(*l, dt);
}

}  // namespace tessera
