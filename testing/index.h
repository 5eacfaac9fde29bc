// Walking logical indices, and where an index lives in memory (an independent re-statement of
// oneDNN's blocked layout formula, so tests do not check memory_desc::offset against itself).
//
//   tessera::testing::for_each_index(md.dims(), [&](absl::Span<const tessera::dim_t> idx) {
//     float got = static_cast<const float*>(dst)[tessera::testing::offset_of(md, idx)];
//     ...
//   });
#ifndef TESSERA_TESTING_INDEX_H_
#define TESSERA_TESTING_INDEX_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"

namespace tessera::testing {

// Calls fn(index) for every index of `dims` in row-major order (last dim fastest). No call when a
// dim is 0; one call with an empty index for rank 0.
template <class Fn>
void for_each_index(absl::Span<const dim_t> dims, Fn&& fn) {
  for (dim_t d : dims) {
    if (d <= 0) return;
  }
  std::array<dim_t, kMaxRank> idx{};
  const int rank = static_cast<int>(dims.size());
  const absl::Span<const dim_t> view(idx.data(), dims.size());
  while (true) {
    fn(view);
    int d = rank - 1;
    while (d >= 0 && ++idx[d] == dims[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

// The element offset (offset0 included) of a logical index within the padded dims of a blocked
// descriptor: oneDNN's memory_desc_wrapper::off_v, padded_offsets included.
inline dim_t offset_of(const memory_desc& md, absl::Span<const dim_t> index) {
  const blocking_desc& b = md.blocking();
  std::array<dim_t, kMaxRank> pos{};
  for (int d = 0; d < md.rank(); ++d) pos[d] = index[d] + md.padded_offsets()[d];
  dim_t off = md.offset0();
  dim_t block_stride = 1;
  for (int k = b.inner_nblks - 1; k >= 0; --k) {
    const int d = b.inner_idxs[k];
    off += (pos[d] % b.inner_blks[k]) * block_stride;
    pos[d] /= b.inner_blks[k];
    block_stride *= b.inner_blks[k];
  }
  for (int d = 0; d < md.rank(); ++d) off += pos[d] * b.strides[d];
  return off;
}

// Row-major position of index in dims: the "logical linear index" fills are keyed on.
inline int64_t linear_index(absl::Span<const dim_t> dims, absl::Span<const dim_t> index) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

// "[1,16,2,0]"
inline std::string index_string(absl::Span<const dim_t> index) {
  return "[" + absl::StrJoin(index, ",") + "]";
}

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_INDEX_H_
