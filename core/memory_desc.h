// memory_desc: dims, data type and the blocked layout of a tensor (oneDNN's semantics).
//
//   // 2x17x3x3 f32 in nChw16c: C padded to 32, one inner block of 16 on dim 1.
//   auto md = tessera::make_memory_desc({2, 17, 3, 3}, tessera::data_type::f32, "nChw16c");  // formats/
//   int64_t off = md->offset({1, 16, 2, 0});   // element offset, inside the second C block
//   int64_t bytes = md->size_bytes();          // 2*32*3*3*4, padding included
//
//   auto t = tessera::memory_desc::with_strides({4, 5}, tessera::data_type::f32, {1, 4});  // "ba"
//
//   // A pattern: dim 0 and its stride known only at execution (oneDNN's DNNL_RUNTIME_DIM_VAL).
//   auto p = tessera::memory_desc::with_strides({tessera::kRuntimeDim, 5}, tessera::data_type::f32,
//                                               {tessera::kRuntimeDim, 1});
//   auto c = tessera::memory_desc::with_strides({7, 5}, tessera::data_type::f32, {5, 1});
//   c->check_fits(*p);   // OK: c is one of the descriptors p stands for
//
// The layout of a blocked descriptor (the only kind with memory behind it) is
//   offset(i) = offset0 + sum_d (i_d / B_d) * strides[d] + inner_offset(i mod blocks)
// where B_d is the product of the inner block sizes on dim d and the inner blocks are laid out
// densely, innermost last, in the order of `inner_idxs`. Padded dims are multiples of B_d; the
// elements in [dims, padded_dims) are padding (zero in every destination Tessera writes).
// The structure behind the formula (digits, divisors, tile strides) is derived once, by
// for_each_component in block_structure.h; offset() here, layout::offset and nodes_of (formats/)
// are views of it. formats/offsets_test.cc checks them against the formula written out plainly.
#ifndef TESSERA_CORE_MEMORY_DESC_H_
#define TESSERA_CORE_MEMORY_DESC_H_

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_extra.h"

namespace tessera {

inline constexpr int kMaxRank = 12;
using dim_t = int64_t;

// A dim or stride known only at execution: oneDNN's DNNL_RUNTIME_DIM_VAL (INT64_MIN). A
// descriptor holding one (has_runtime_dims_or_strides()) is a pattern: primitives that accept it
// at creation take the concrete descriptor at execution (check_fits). The padded size of a
// run-time dim is run-time too. Queries that need concrete values say what they return for it.
inline constexpr dim_t kRuntimeDim = std::numeric_limits<dim_t>::min();

enum class format_kind : uint8_t {
  undef,    // a default-constructed descriptor: describes nothing
  any,      // "choose for me": a primitive replaces it with a concrete layout
  blocked,  // strides + inner blocks; covers every plain, strided and blocked layout
};

struct blocking_desc {
  // Stride (in elements) of each logical dim's outer part: for dim d, index i_d contributes
  // (i_d / B_d) * strides[d].
  std::array<dim_t, kMaxRank> strides{};
  // Inner blocks, outermost first: block k has size inner_blks[k] and blocks dim inner_idxs[k].
  int inner_nblks = 0;
  std::array<dim_t, kMaxRank> inner_blks{};
  std::array<int, kMaxRank> inner_idxs{};

  friend bool operator==(const blocking_desc&, const blocking_desc&) = default;
};

class memory_desc {
 public:
  // format_kind::undef, rank 0.
  memory_desc() = default;

  // A plain (unblocked) layout from explicit strides, in elements. Rejects (with the bad value
  // named) rank > 12, negative dims, negative strides, strides that make two elements overlap
  // (the spec's rule: after sorting by stride, strides[i] >= strides[j] * dims[j]; size-1 dims
  // take any stride), sizes whose byte count overflows int64. A stride of 0 on a dim of size > 1
  // is an overlap and rejected (oneDNN 2.6.3 accepts it as a broadcast; Tessera writes through
  // descriptors, so every element needs its own address). Any dim of size 0: no elements, no
  // overlap check. Dims and strides may be kRuntimeDim; a descriptor with one is not checked for
  // overlap or size (its concrete descriptors are, when they are made).
  static absl::StatusOr<memory_desc> with_strides(absl::Span<const dim_t> dims, data_type dt,
                                                  absl::Span<const dim_t> strides);
  // A general blocked layout; padded dims are the dims rounded up to the block products.
  // Validates the blocks (each dim's block product, positive sizes, dims in range) and overlap.
  // Dims and strides may be kRuntimeDim (as with_strides; block sizes may not).
  static absl::StatusOr<memory_desc> with_blocking(absl::Span<const dim_t> dims, data_type dt,
                                                   const blocking_desc& blocking);
  // format_kind::any: dims and type only; dims may be kRuntimeDim.
  static absl::StatusOr<memory_desc> any(absl::Span<const dim_t> dims, data_type dt);

  int rank() const { return rank_; }
  data_type dt() const { return dt_; }
  format_kind kind() const { return kind_; }
  absl::Span<const dim_t> dims() const { return {dims_.data(), static_cast<size_t>(rank_)}; }
  absl::Span<const dim_t> padded_dims() const {
    return {padded_dims_.data(), static_cast<size_t>(rank_)};
  }
  absl::Span<const dim_t> padded_offsets() const {
    return {padded_offsets_.data(), static_cast<size_t>(rank_)};
  }
  dim_t offset0() const { return offset0_; }
  const blocking_desc& blocking() const { return blocking_; }

  // Whether some dim, or some stride, is kRuntimeDim.
  bool has_runtime_dims() const;
  bool has_runtime_strides() const;
  bool has_runtime_dims_or_strides() const { return runtime_; }
  // OK when this descriptor is one of those `pattern` stands for: no run-time value, the same
  // kind, type, rank, inner blocks and offset0, and equal dims, padded dims and strides wherever
  // the pattern's are not kRuntimeDim. The error names the first dim or stride that differs.
  absl::Status check_fits(const memory_desc& pattern) const;

  // Number of logical elements (product of dims), or of padded dims. kRuntimeDim when a dim is
  // run-time (and none is 0), as oneDNN's nelems().
  dim_t nelems(bool with_padding = false) const;
  // Bytes a buffer must have, padding included: oneDNN's get_size() (the largest outer extent
  // max_d(padded_dims[d] / B_d * strides[d]), or the inner block if larger) plus offset0 elements.
  // 0 when some dim is 0 and for `any`/undef. oneDNN 2.6.3 returns 0 whenever offset0 != 0
  // (submemory); Tessera counts from the start of the parent's buffer instead. Rank 0 is a
  // scalar: one element. kRuntimeDim (negative) with run-time dims or strides (oneDNN's
  // DNNL_RUNTIME_SIZE_VAL): check has_runtime_dims_or_strides() before allocating.
  // With compensation flags in extra(), the data part (data_size_bytes) is rounded up to 4 bytes
  // and the compensation buffers follow it (memory_extra.h).
  int64_t size_bytes() const;
  // The data part of size_bytes(): the same without extra()'s buffers.
  int64_t data_size_bytes() const;

  // oneDNN's extra fields (flags, compensation masks, scale adjustment); none by default.
  const memory_extra& extra() const { return extra_; }
  // This descriptor carrying `extra`. Rejects, naming the value: unknown flags, a compensation
  // mask with a bit at or past rank() (or negative), a scale_adjust that is not finite and
  // positive, compensation on a descriptor that is not blocked or has run-time dims or strides.
  absl::StatusOr<memory_desc> with_extra(const memory_extra& extra) const;
  // Byte offsets of the s8s8 and zero-point compensation buffers from the start of the buffer
  // (after offset0's elements and the data); -1 when extra() does not ask for that buffer.
  int64_t s8s8_compensation_offset_bytes() const;
  int64_t zp_compensation_offset_bytes() const;
  // The layout of a compensation buffer over `mask` (oneDNN's): s32, the masked dims in order
  // (dim d of the result is the d-th masked dim), laid out as this descriptor lays them out,
  // densely: outer dims ordered by this descriptor's strides, this descriptor's inner blocks on
  // them kept (an "Abcd4a" dst with mask 3 gives "Ab4a"). Rank 0 (one value) for mask 0.
  // Precondition: a blocked descriptor and a mask that fits it (with_extra checks both).
  memory_desc compensation_desc(int mask) const;
  // Element offset (offset0 and padded_offsets included) of a logical index; index must be within
  // padded dims (not checked). 0 for `any`/undef. Reference kernels and tests call it per element;
  // the vector kernels walk loop nests instead (formats/loop_nest.h).
  // Post-conditions, for a blocked descriptor and pos[d] = index[d] + padded_offsets[d] (missing
  // entries of a shorter index count as 0): offset(index) == offset0 +
  // blocked_offset(block_view_of(rank, blocking), pos) (block_structure.h), that is offset0 +
  // sum_d (pos_d / B_d) * strides[d] + the position of pos's block digits in the dense inner tile;
  // equal to offset0 + nodes_of(*this)->offset(index) (formats/algebra.h) over the padded dims
  // when padded_offsets are 0 (as in every descriptor Tessera builds). Precondition: no run-time
  // dims or strides (kRuntimeDim is returned for such a descriptor).
  dim_t offset(absl::Span<const dim_t> index) const;

  // No inner blocks.
  bool is_plain() const;
  // Has inner blocks.
  bool is_blocked() const;
  // Plain, and its elements fill [offset0, offset0 + nelems) without gaps (some permutation of a
  // dense tag; size-1 dims may have any stride). Stricter than oneDNN's is_dense(), which also
  // counts blocked layouts without padding. False with run-time dims or strides.
  bool is_dense() const;

  // oneDNN's submemory_desc: a view of `sub_dims` starting at `offsets`, inheriting strides;
  // offsets into a blocked dim must be multiples of its block. Errors on run-time dims or strides.
  absl::StatusOr<memory_desc> submemory(absl::Span<const dim_t> sub_dims,
                                        absl::Span<const dim_t> offsets) const;
  // oneDNN's permute_axes: logical dim d of this becomes dim perm[d] of the result (run-time
  // values move with their dims).
  absl::StatusOr<memory_desc> permute_axes(absl::Span<const int> perm) const;
  // oneDNN's reshape: adds/removes size-1 dims; splits/joins only dense, unpadded, unblocked dims.
  // Errors on run-time dims or strides.
  absl::StatusOr<memory_desc> reshape(absl::Span<const dim_t> new_dims) const;

  friend bool operator==(const memory_desc& a, const memory_desc& b);
  friend bool operator!=(const memory_desc& a, const memory_desc& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const memory_desc& md);

 private:
  // reshape's walk over groups of dims of equal volume (memory_desc_reshape.cc).
  class reshape_walk;

  // Product of the inner block sizes per dim (1 for unblocked dims), and over all blocks.
  std::array<dim_t, kMaxRank> block_products() const;
  dim_t inner_block_size() const;
  absl::Status check_no_overlap() const;
  absl::Status check_size() const;
  // For the 4-bit types: no byte holds elements of this tensor and bytes outside it, but where
  // the layout is gap-free (docs/core.md, "Sub-byte layouts").
  absl::Status check_sub_byte_layout() const;
  // Sets runtime_ from dims and strides.
  void note_runtime_values();
  // oneDNN's get_size() in elements (offset0 excluded); false on int64 overflow.
  bool max_extent(int64_t* out) const;

  int rank_ = 0;
  data_type dt_ = data_type::undef;
  format_kind kind_ = format_kind::undef;
  std::array<dim_t, kMaxRank> dims_{};
  std::array<dim_t, kMaxRank> padded_dims_{};
  std::array<dim_t, kMaxRank> padded_offsets_{};
  dim_t offset0_ = 0;
  blocking_desc blocking_{};
  memory_extra extra_{};
  bool runtime_ = false;  // derived from dims_ and strides: not part of == or the hash
};

// The variable-length parts first and their lengths last (like absl's containers), so that no
// descriptor's hash input is a suffix of another's.
template <typename H>
H AbslHashValue(H h, const memory_desc& md) {
  for (int d = 0; d < md.rank_; ++d) {
    h = H::combine(std::move(h), md.dims_[d], md.padded_dims_[d], md.padded_offsets_[d],
                   md.blocking_.strides[d]);
  }
  for (int k = 0; k < md.blocking_.inner_nblks; ++k) {
    h = H::combine(std::move(h), md.blocking_.inner_blks[k], md.blocking_.inner_idxs[k]);
  }
  return H::combine(std::move(h), md.offset0_, md.dt_, md.kind_, md.rank_, md.blocking_.inner_nblks, md.extra_);
}

}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_DESC_H_
