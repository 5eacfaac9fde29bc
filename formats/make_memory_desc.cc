#include "tessera/formats/make_memory_desc.h"

#include <algorithm>
#include <vector>

#include "tessera/formats/algebra.h"

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

namespace {

// The tag's layout with run-time dims: the layout of the dims with each run-time one set to 1,
// where a stride that changes when one run-time dim alone grows past a block (so its padded size
// changes) depends on it and becomes run-time too. Padded sizes of run-time dims are run-time.
absl::StatusOr<memory_desc> make_runtime_memory_desc(absl::Span<const dim_t> dims, data_type dt,
                                                     absl::string_view tag) {
  std::vector<dim_t> probe(dims.begin(), dims.end());
  for (dim_t& d : probe) d = d == kRuntimeDim ? 1 : d;
  absl::StatusOr<layout> base = make_layout(tag, probe);
  if (!base.ok()) return base.status();
  blocking_desc b = to_blocking(*base);
  for (size_t r = 0; r < dims.size(); ++r) {
    if (dims[r] != kRuntimeDim) continue;
    dim_t block = 1;
    for (int k = 0; k < b.inner_nblks; ++k) block *= b.inner_idxs[k] == static_cast<int>(r) ? b.inner_blks[k] : 1;
    std::vector<dim_t> grown = probe;
    grown[r] = 2 * block + 1;
    absl::StatusOr<layout> alt = make_layout(tag, grown);
    if (!alt.ok()) return alt.status();
    for (int d = 0; d < base->rank(); ++d) {
      if (alt->stride(d) != base->stride(d)) b.strides[d] = kRuntimeDim;
    }
  }
  return memory_desc::with_blocking(dims, dt, b);
}

}  // namespace

absl::StatusOr<memory_desc> make_memory_desc(absl::Span<const dim_t> dims, data_type dt,
                                             absl::string_view tag) {
  if (tag == "any") return memory_desc::any(dims, dt);
  if (std::find(dims.begin(), dims.end(), kRuntimeDim) != dims.end()) {
    return make_runtime_memory_desc(dims, dt, tag);
  }
  absl::StatusOr<layout> l = make_layout(tag, dims);
  if (!l.ok()) return l.status();
  return make_memory_desc(*l, dt);
}

absl::StatusOr<memory_desc> make_dense_like(const memory_desc& like, data_type dt) {
  absl::StatusOr<node_list> nodes = nodes_of(like);
  if (!nodes.ok()) return nodes.status();
  blocking_desc b = like.blocking();
  // The first rank nodes are the outer parts, outermost first (ties in logical order); the inner
  // tile is the product of the blocks.
  dim_t stride = 1;
  for (int k = 0; k < b.inner_nblks; ++k) stride *= b.inner_blks[k];
  for (int k = like.rank() - 1; k >= 0; --k) {
    const layout_node& n = nodes->nodes[k];
    b.strides[n.dim] = stride;
    stride *= n.size;
  }
  return memory_desc::with_blocking(like.dims(), dt, b);
}

}  // namespace tessera
