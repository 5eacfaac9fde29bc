#include "tessera/core/memory_desc.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/block_structure.h"
#include "tessera/core/internal/desc_checks.h"
#include "tessera/core/status.h"

namespace tessera {
namespace {

using internal::check_rank;
using internal::dims_str;
using internal::mul_overflows;

absl::Status check_dims(absl::Span<const dim_t> dims, data_type dt) {
  TESSERA_RETURN_IF_ERROR(check_rank(static_cast<int>(dims.size()), "memory_desc"));
  if (dt == data_type::undef) {
    return absl::InvalidArgumentError("memory_desc: data type is undef: a tensor needs an element type");
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0 && dims[d] != kRuntimeDim) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: dims[", d, "] = ", dims[d],
                                                     " is negative in dims ", dims_str(dims)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// ---------- construction ----------

absl::StatusOr<memory_desc> memory_desc::with_strides(absl::Span<const dim_t> dims, data_type dt,
                                                      absl::Span<const dim_t> strides) {
  if (strides.size() != dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("memory_desc: strides ", dims_str(strides),
                                                   " have ", strides.size(), " entries but dims ",
                                                   dims_str(dims), " have ", dims.size()));
  }
  TESSERA_RETURN_IF_ERROR(check_dims(dims, dt));
  blocking_desc b;
  std::copy(strides.begin(), strides.end(), b.strides.begin());
  return with_blocking(dims, dt, b);
}

absl::StatusOr<memory_desc> memory_desc::with_blocking(absl::Span<const dim_t> dims, data_type dt,
                                                       const blocking_desc& blocking) {
  TESSERA_RETURN_IF_ERROR(check_dims(dims, dt));
  const int rank = static_cast<int>(dims.size());
  memory_desc md;
  md.rank_ = rank;
  md.dt_ = dt;
  md.kind_ = format_kind::blocked;
  std::copy(dims.begin(), dims.end(), md.dims_.begin());
  md.blocking_.inner_nblks = blocking.inner_nblks;

  if (blocking.inner_nblks < 0 || blocking.inner_nblks > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat("memory_desc: inner_nblks = ", blocking.inner_nblks,
                                                   " is out of range: must be in [0, ", kMaxRank, "]"));
  }
  std::array<dim_t, kMaxRank> block_of{};
  block_of.fill(1);
  for (int k = 0; k < blocking.inner_nblks; ++k) {
    const dim_t size = blocking.inner_blks[k];
    const int idx = blocking.inner_idxs[k];
    if (size < 1) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: inner block ", k, " has size ", size,
                                                     ": block sizes must be positive"));
    }
    if (idx < 0 || idx >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: inner block ", k, " blocks dim ", idx,
                                                     ", which is not a dim of a rank-", rank, " tensor"));
    }
    if (mul_overflows(block_of[idx], size, &block_of[idx])) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory_desc: the inner blocks of dim ", idx, " multiply past 2^63"));
    }
    md.blocking_.inner_blks[k] = size;
    md.blocking_.inner_idxs[k] = idx;
  }
  for (int d = 0; d < rank; ++d) {
    const dim_t stride = blocking.strides[d];
    if (stride < 0 && stride != kRuntimeDim) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: strides[", d, "] = ", stride,
                                                     " is negative; strides must be >= 0"));
    }
    md.blocking_.strides[d] = stride;
    if (dims[d] == kRuntimeDim) {
      md.padded_dims_[d] = kRuntimeDim;
      continue;
    }
    // Padded dims: the dims rounded up to a multiple of their block product. The bound is checked
    // before the rounding sum, which would itself overflow.
    if (dims[d] > std::numeric_limits<dim_t>::max() - block_of[d] ||
        mul_overflows((dims[d] + block_of[d] - 1) / block_of[d], block_of[d], &md.padded_dims_[d])) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: dims[", d, "] = ", dims[d],
                                                     " padded to a multiple of ", block_of[d],
                                                     " overflows int64"));
    }
  }
  md.note_runtime_values();
  if (md.runtime_) return md;  // overlap and size are checked on the concrete descriptors
  TESSERA_RETURN_IF_ERROR(md.check_no_overlap());
  TESSERA_RETURN_IF_ERROR(md.check_size());
  TESSERA_RETURN_IF_ERROR(md.check_sub_byte_layout());
  return md;
}

absl::StatusOr<memory_desc> memory_desc::any(absl::Span<const dim_t> dims, data_type dt) {
  TESSERA_RETURN_IF_ERROR(check_dims(dims, dt));
  memory_desc md;
  md.rank_ = static_cast<int>(dims.size());
  md.dt_ = dt;
  md.kind_ = format_kind::any;
  std::copy(dims.begin(), dims.end(), md.dims_.begin());
  std::copy(dims.begin(), dims.end(), md.padded_dims_.begin());
  const bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();  // nothing to count
  dim_t n = 1;
  for (dim_t d : empty ? absl::Span<const dim_t>() : dims) {
    if (d == kRuntimeDim) continue;
    if (mul_overflows(n, d, &n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory_desc: the element count of dims ", dims_str(dims), " overflows int64"));
    }
  }
  md.note_runtime_values();
  return md;
}

void memory_desc::note_runtime_values() { runtime_ = has_runtime_dims() || has_runtime_strides(); }

// ---------- validation helpers ----------

std::array<dim_t, kMaxRank> memory_desc::block_products() const {
  std::array<dim_t, kMaxRank> b{};
  b.fill(1);
  for_each_component(
      block_view_of(rank_, blocking_), [](const inner_component&) {},
      [&](const outer_component& c) { b[c.dim] = c.block_product; });
  return b;
}

dim_t memory_desc::inner_block_size() const {
  dim_t s = 1;
  for (int k = 0; k < blocking_.inner_nblks; ++k) s *= blocking_.inner_blks[k];
  return s;
}

absl::Status memory_desc::check_no_overlap() const {
  // A tensor with no element cannot overlap itself.
  for (int d = 0; d < rank_; ++d) {
    if (dims_[d] == 0) return absl::OkStatus();
  }
  const auto blocks = block_products();
  // Walk the dims from the smallest stride up; each outer dim must start past the extent of
  // everything inside it. Dims with one outer position do not constrain (any stride is fine).
  std::array<int, kMaxRank> order{};
  int n = 0;
  for (int d = 0; d < rank_; ++d) {
    if (padded_dims_[d] / blocks[d] > 1) order[n++] = d;
  }
  std::sort(order.begin(), order.begin() + n, [&](int a, int b) {
    return blocking_.strides[a] != blocking_.strides[b] ? blocking_.strides[a] < blocking_.strides[b]
                                                        : a > b;
  });
  dim_t extent = inner_block_size();  // the dense inner block comes first
  int inside = -1;
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const dim_t stride = blocking_.strides[d];
    if (stride < extent) {
      std::string inner =
          inside < 0 ? absl::StrCat("the inner block of ", extent, " elements")
                     : absl::StrCat("dim ", inside, " (stride ", blocking_.strides[inside], " x ",
                                    padded_dims_[inside] / blocks[inside], " positions)");
      return absl::InvalidArgumentError(absl::StrCat(
          "memory_desc: strides[", d, "] = ", stride, " overlaps ", inner, ": after sorting by stride ",
          "each dim's stride must be >= the extent ", extent, " of the dims inside it (strides ",
          dims_str(absl::MakeConstSpan(blocking_.strides.data(), rank_)), ", dims ", dims_str(dims()), ")"));
    }
    if (mul_overflows(stride, padded_dims_[d] / blocks[d], &extent)) {
      return absl::InvalidArgumentError(absl::StrCat("memory_desc: strides[", d, "] = ", stride, " times ",
                                                     padded_dims_[d] / blocks[d],
                                                     " outer positions overflows int64"));
    }
    inside = d;
  }
  return absl::OkStatus();
}

absl::Status memory_desc::check_size() const {
  int64_t elems = 0;
  if (!max_extent(&elems)) {
    return absl::InvalidArgumentError(absl::StrCat("memory_desc: the size of dims ", dims_str(dims()),
                                                   " with strides ",
                                                   dims_str(absl::MakeConstSpan(blocking_.strides.data(), rank_)),
                                                   " overflows int64"));
  }
  int64_t total = 0, bits = 0;
  if (__builtin_add_overflow(elems, offset0_, &total) || mul_overflows(total, bits_of(dt_), &bits)) {
    return absl::InvalidArgumentError(absl::StrCat("memory_desc: ", total, " elements of ", name_of(dt_),
                                                   " (dims ", dims_str(dims()),
                                                   ") is more bytes than int64 can count"));
  }
  if (nelems() == 0) return absl::OkStatus();  // empty: no element count to overflow
  dim_t n = 1;
  for (int d = 0; d < rank_; ++d) {
    if (mul_overflows(n, padded_dims_[d], &n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory_desc: the element count of padded dims ", dims_str(padded_dims()),
                       " overflows int64"));
    }
  }
  return absl::OkStatus();
}

// Two elements share a byte, so a layout with gaps (a view, a padded stride) must not place an
// element of the tensor in the same byte as a position outside it: the tensor starts on a byte,
// every stride that moves between outer positions is 1 or even, and each contiguous run (the
// inner block times the positions of the dim stepping over it) holds an even number of elements.
// A gap-free layout (its elements, padding included, fill its extent, like every tag) may have
// odd strides: its bytes hold only its own elements, whatever the split.
absl::Status memory_desc::check_sub_byte_layout() const {
  if (bits_of(dt_) != 4 || kind_ != format_kind::blocked || runtime_ || nelems() == 0) {
    return absl::OkStatus();
  }
  if (offset0_ % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory_desc: a ", name_of(dt_), " tensor starts at element offset ", offset0_,
        ", inside a byte: 4-bit views must start at an even element offset (two per byte)"));
  }
  int64_t extent = 0;
  max_extent(&extent);  // validated by check_size
  if (extent == nelems(/*with_padding=*/true)) return absl::OkStatus();
  const auto blocks = block_products();
  const dim_t block = inner_block_size();
  int64_t run = block;
  for (int d = 0; d < rank_; ++d) {
    const dim_t stride = blocking_.strides[d];
    const dim_t positions = padded_dims_[d] / blocks[d];
    if (positions <= 1) continue;
    if (stride != 1 && stride % 2 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "memory_desc: ", name_of(dt_), " dim ", d, " has odd stride ", stride,
          " in a layout with gaps (dims ", dims_str(dims()), "): a byte would hold elements of "
          "two positions of dim ", d, " and a gap; 4-bit layouts with gaps need strides of 1 or "
          "even"));
    }
    if (stride == block) run = block * positions;
  }
  if (run % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory_desc: ", name_of(dt_), " layout with gaps (dims ", dims_str(dims()),
        ") has contiguous runs of ", run, " elements: a byte would hold its last element and a "
        "gap; 4-bit layouts with gaps need runs of an even number of elements"));
  }
  return absl::OkStatus();
}

// oneDNN's get_size() in elements: the largest (outer positions x stride) over the dims whose
// padded size is not 1, and never less than the dense inner block. oneDNN only takes the block
// when every product is <= 1; but a dim held entirely by its blocks (one outer position) may carry
// any stride, smaller than the block, and the block's elements are still all reachable.
bool memory_desc::max_extent(int64_t* out) const {
  *out = 0;
  if (kind_ != format_kind::blocked) return true;
  if (rank_ == 0) {
    *out = 1;
    return true;
  }
  const auto blocks = block_products();
  int64_t max_size = 0;
  for (int d = 0; d < rank_; ++d) {
    if (padded_dims_[d] == 0) {
      *out = 0;
      return true;
    }
  }
  for (int d = 0; d < rank_; ++d) {
    if (padded_dims_[d] == 1) continue;  // its stride is never used
    int64_t s = 0;
    if (mul_overflows(padded_dims_[d] / blocks[d], blocking_.strides[d], &s)) return false;
    max_size = std::max(max_size, s);
  }
  max_size = std::max(max_size, inner_block_size());
  *out = max_size;
  return true;
}

// ---------- queries ----------

bool memory_desc::has_runtime_dims() const {
  return std::find(dims_.begin(), dims_.begin() + rank_, kRuntimeDim) != dims_.begin() + rank_;
}

bool memory_desc::has_runtime_strides() const {
  if (kind_ != format_kind::blocked) return false;
  const auto& s = blocking_.strides;
  return std::find(s.begin(), s.begin() + rank_, kRuntimeDim) != s.begin() + rank_;
}

namespace {

// Dims with run-time ones as '*' (oneDNN's verbose spelling).
std::string pattern_dims_str(absl::Span<const dim_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ",", [](std::string* out, dim_t v) {
    absl::StrAppend(out, v == kRuntimeDim ? "*" : absl::StrCat(v));
  }), "}");
}

const char* kind_name(format_kind k) {
  switch (k) {
    case format_kind::undef: return "undef";
    case format_kind::any: return "any";
    case format_kind::blocked: return "blocked";
  }
  return "?";
}

}  // namespace

absl::Status memory_desc::check_fits(const memory_desc& pattern) const {
  auto differs = [](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("memory_desc: ", what));
  };
  if (runtime_) return differs("has run-time dims or strides itself; only a concrete descriptor fits a pattern");
  if (kind_ != pattern.kind_ || dt_ != pattern.dt_ || rank_ != pattern.rank_) {
    return differs(absl::StrCat(kind_name(kind_), " ", name_of(dt_), " of rank ", rank_, " does not fit the pattern's ",
                                kind_name(pattern.kind_), " ", name_of(pattern.dt_), " of rank ", pattern.rank_));
  }
  if (blocking_.inner_nblks != pattern.blocking_.inner_nblks ||
      !std::equal(blocking_.inner_blks.begin(), blocking_.inner_blks.begin() + blocking_.inner_nblks,
                  pattern.blocking_.inner_blks.begin()) ||
      !std::equal(blocking_.inner_idxs.begin(), blocking_.inner_idxs.begin() + blocking_.inner_nblks,
                  pattern.blocking_.inner_idxs.begin())) {
    return differs("inner blocks differ from the pattern's (only dims and strides may be run-time)");
  }
  if (offset0_ != pattern.offset0_) {
    return differs(absl::StrCat("offset0 = ", offset0_, " does not fit the pattern's ", pattern.offset0_));
  }
  // Dims first: a dim that differs explains the padded dims and strides that differ with it.
  const struct {
    const char* name;
    const dim_t *value, *want;
  } fields[] = {{"dims", dims_.data(), pattern.dims_.data()},
                {"padded_dims", padded_dims_.data(), pattern.padded_dims_.data()},
                {"padded_offsets", padded_offsets_.data(), pattern.padded_offsets_.data()},
                {"strides", blocking_.strides.data(), pattern.blocking_.strides.data()}};
  for (const auto& f : fields) {
    for (int d = 0; d < rank_; ++d) {
      if (f.want[d] != kRuntimeDim && f.value[d] != f.want[d]) {
        return differs(absl::StrCat(f.name, "[", d, "] = ", f.value[d], " does not fit the pattern's ", f.name, "[",
                                    d, "] = ", f.want[d], " (only run-time values may differ; pattern dims ",
                                    pattern_dims_str(pattern.dims()), ")"));
      }
    }
  }
  return absl::OkStatus();
}

dim_t memory_desc::nelems(bool with_padding) const {
  if (kind_ == format_kind::undef) return 0;
  // A zero-size dim first: the other dims' product may exceed int64 (only non-empty element counts
  // are checked at construction), and the order of the dims must not matter (permute_axes).
  for (int d = 0; d < rank_; ++d) {
    if (dims_[d] == 0) return 0;
  }
  if (runtime_ && has_runtime_dims()) return kRuntimeDim;
  dim_t n = 1;
  for (int d = 0; d < rank_; ++d) n *= with_padding ? padded_dims_[d] : dims_[d];
  return n;
}

int64_t memory_desc::data_size_bytes() const {
  if (runtime_) return kRuntimeDim;
  if (kind_ != format_kind::blocked || nelems() == 0) return 0;
  int64_t elems = 0;
  max_extent(&elems);  // validated at construction
  const int64_t bits = (elems + offset0_) * bits_of(dt_);
  return (bits + 7) / 8;
}

dim_t memory_desc::offset(absl::Span<const dim_t> index) const {
  if (kind_ != format_kind::blocked) return 0;
  if (runtime_) return kRuntimeDim;
  std::array<dim_t, kMaxRank> pos{};
  for (int d = 0; d < rank_ && d < static_cast<int>(index.size()); ++d) pos[d] = index[d] + padded_offsets_[d];
  return offset0_ + blocked_offset(block_view_of(rank_, blocking_), pos);
}

bool memory_desc::is_plain() const { return kind_ == format_kind::blocked && blocking_.inner_nblks == 0; }

bool memory_desc::is_blocked() const { return kind_ == format_kind::blocked && blocking_.inner_nblks > 0; }

bool memory_desc::is_dense() const {
  if (!is_plain() || runtime_) return false;
  if (nelems() == 0) return true;
  std::array<int, kMaxRank> order{};
  int n = 0;
  for (int d = 0; d < rank_; ++d) {
    if (dims_[d] > 1) order[n++] = d;
  }
  std::sort(order.begin(), order.begin() + n,
            [&](int a, int b) { return blocking_.strides[a] < blocking_.strides[b]; });
  dim_t expected = 1;
  for (int i = 0; i < n; ++i) {
    if (blocking_.strides[order[i]] != expected) return false;
    expected *= dims_[order[i]];
  }
  return true;
}

// ---------- operations ----------

absl::StatusOr<memory_desc> memory_desc::submemory(absl::Span<const dim_t> sub_dims,
                                                   absl::Span<const dim_t> offsets) const {
  if (kind_ != format_kind::blocked) {
    return absl::InvalidArgumentError(
        "submemory: the parent must have a concrete (blocked) layout, not 'any' or undef");
  }
  if (runtime_) {
    return absl::InvalidArgumentError(absl::StrCat("submemory: the parent has run-time dims or strides (dims ",
                                                   pattern_dims_str(dims()), "): a view needs concrete ones"));
  }
  if (static_cast<int>(sub_dims.size()) != rank_ || static_cast<int>(offsets.size()) != rank_) {
    return absl::InvalidArgumentError(absl::StrCat("submemory: dims ", dims_str(sub_dims), " and offsets ",
                                                   dims_str(offsets), " must both have rank ", rank_,
                                                   " like the parent ", dims_str(dims())));
  }
  const auto blocks = block_products();
  memory_desc md = *this;
  for (int d = 0; d < rank_; ++d) {
    if (sub_dims[d] < 0 || offsets[d] < 0 || sub_dims[d] > dims_[d] - offsets[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "submemory: dim ", d, " with size ", sub_dims[d], " at offset ", offsets[d],
          " does not fit in the parent's [0, ", dims_[d], "): need size >= 0, offset >= 0, size + offset <= ",
          dims_[d]));
    }
    if (offsets[d] % blocks[d] != 0) {
      return absl::InvalidArgumentError(absl::StrCat("submemory: offset ", offsets[d], " on dim ", d,
                                                     " is not a multiple of its inner block ", blocks[d]));
    }
    if (padded_offsets_[d] != 0) {
      return absl::InvalidArgumentError(absl::StrCat("submemory: dim ", d, " of the parent has padded offset ",
                                                     padded_offsets_[d], ", which oneDNN does not support"));
    }
    if (sub_dims[d] % blocks[d] != 0 && sub_dims[d] >= blocks[d] &&
        offsets[d] + sub_dims[d] != dims_[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "submemory: size ", sub_dims[d], " on dim ", d, " is not a multiple of its inner block ", blocks[d],
          " (allowed only when smaller than the block or reaching the parent's end)"));
    }
    const bool right_border = offsets[d] + sub_dims[d] == dims_[d];
    md.dims_[d] = sub_dims[d];
    md.padded_dims_[d] = right_border ? padded_dims_[d] - offsets[d] : sub_dims[d];
    // Only an empty parent (a zero-size dim accepts any strides) can push this past int64.
    dim_t shift = 0;
    if (mul_overflows(offsets[d] / blocks[d], blocking_.strides[d], &shift) ||
        __builtin_add_overflow(md.offset0_, shift, &md.offset0_)) {
      return absl::InvalidArgumentError(absl::StrCat("submemory: offset ", offsets[d], " on dim ", d,
                                                     " times stride ", blocking_.strides[d],
                                                     " moves offset0 past int64"));
    }
  }
  TESSERA_RETURN_IF_ERROR(md.check_sub_byte_layout());
  return md;
}

absl::StatusOr<memory_desc> memory_desc::permute_axes(absl::Span<const int> perm) const {
  if (kind_ == format_kind::undef) {
    return absl::InvalidArgumentError("permute_axes: the descriptor is undef");
  }
  if (static_cast<int>(perm.size()) != rank_) {
    return absl::InvalidArgumentError(absl::StrCat("permute_axes: permutation {", absl::StrJoin(perm, ","),
                                                   "} has ", perm.size(), " entries, the rank is ", rank_));
  }
  std::array<bool, kMaxRank> seen{};
  for (int d = 0; d < rank_; ++d) {
    if (perm[d] < 0 || perm[d] >= rank_ || seen[perm[d]]) {
      return absl::InvalidArgumentError(absl::StrCat("permute_axes: {", absl::StrJoin(perm, ","),
                                                     "} is not a permutation of 0..", rank_ - 1, ": entry ", d,
                                                     " = ", perm[d], " is out of range or repeated"));
    }
    seen[perm[d]] = true;
  }
  memory_desc md = *this;
  for (int d = 0; d < rank_; ++d) {
    md.dims_[perm[d]] = dims_[d];
    md.padded_dims_[perm[d]] = padded_dims_[d];
    md.padded_offsets_[perm[d]] = padded_offsets_[d];
    md.blocking_.strides[perm[d]] = blocking_.strides[d];
  }
  for (int k = 0; k < blocking_.inner_nblks; ++k) md.blocking_.inner_idxs[k] = perm[blocking_.inner_idxs[k]];
  return md;
}

bool operator==(const memory_desc& a, const memory_desc& b) {
  if (a.rank_ != b.rank_ || a.dt_ != b.dt_ || a.kind_ != b.kind_ || a.offset0_ != b.offset0_ ||
      a.blocking_.inner_nblks != b.blocking_.inner_nblks || a.extra_ != b.extra_) {
    return false;
  }
  for (int d = 0; d < a.rank_; ++d) {
    if (a.dims_[d] != b.dims_[d] || a.padded_dims_[d] != b.padded_dims_[d] ||
        a.padded_offsets_[d] != b.padded_offsets_[d] || a.blocking_.strides[d] != b.blocking_.strides[d]) {
      return false;
    }
  }
  for (int k = 0; k < a.blocking_.inner_nblks; ++k) {
    if (a.blocking_.inner_blks[k] != b.blocking_.inner_blks[k] ||
        a.blocking_.inner_idxs[k] != b.blocking_.inner_idxs[k]) {
      return false;
    }
  }
  return true;
}

}  // namespace tessera
