// memory_desc::reshape (oneDNN's dnnl_memory_desc_reshape): the argument checks, the empty case
// and the walk that matches groups of dims of equal volume.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "tessera/core/internal/desc_checks.h"
#include "tessera/core/memory_desc.h"
#include "tessera/core/status.h"

namespace tessera {
namespace {

using internal::check_rank;
using internal::dims_str;
using internal::mul_overflows;

// reshape's argument checks, in this order: the new rank, an undef descriptor, negative new dims,
// an element count of the new dims that overflows int64, a count different from md's.
// Post: OK means that new_dims holds exactly md.nelems() elements.
absl::Status check_reshape_dims(const memory_desc& md, absl::Span<const dim_t> new_dims) {
  const int o_rank = static_cast<int>(new_dims.size());
  TESSERA_RETURN_IF_ERROR(check_rank(o_rank, "reshape"));
  if (md.kind() == format_kind::undef) return absl::InvalidArgumentError("reshape: the descriptor is undef");
  for (int d = 0; d < o_rank; ++d) {
    if (new_dims[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("reshape: new dims[", d, "] = ", new_dims[d], " is negative in ", dims_str(new_dims)));
    }
  }
  // Zero-size dims first, so that the order of the dims does not decide whether the product overflows.
  const bool empty = std::find(new_dims.begin(), new_dims.end(), 0) != new_dims.end();
  dim_t volume = empty ? 0 : 1;
  for (int d = 0; d < o_rank && !empty; ++d) {
    if (mul_overflows(volume, new_dims[d], &volume)) {
      return absl::InvalidArgumentError(absl::StrCat("reshape: new dims ", dims_str(new_dims), " overflow int64"));
    }
  }
  if (volume != md.nelems()) {
    return absl::InvalidArgumentError(absl::StrCat("reshape: new dims ", dims_str(new_dims), " hold ", volume,
                                                   " elements but dims ", dims_str(md.dims()), " hold ",
                                                   md.nelems()));
  }
  return absl::OkStatus();
}

// The reshape of an empty tensor. No element keeps an offset, and an empty tensor accepts any
// strides (whose products may not fit int64): the result is the dense row-major layout of the new
// dims. Pre: new_dims passed check_reshape_dims and holds no element.
absl::StatusOr<memory_desc> dense_reshape_of_empty(absl::Span<const dim_t> new_dims, data_type dt) {
  const int o_rank = static_cast<int>(new_dims.size());
  std::array<dim_t, kMaxRank> strides{};
  dim_t stride = 1;
  for (int d = o_rank - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d > 0 && mul_overflows(stride, std::max<dim_t>(new_dims[d], 1), &stride)) {
      return absl::InvalidArgumentError(
          absl::StrCat("reshape: the dense strides of new dims ", dims_str(new_dims), " overflow int64"));
    }
  }
  return memory_desc::with_strides(new_dims, dt, {strides.data(), static_cast<size_t>(o_rank)});
}

}  // namespace

// reshape's walk over both shapes, as oneDNN's dnnl_memory_desc_reshape does it: from the
// innermost dim outwards, it cuts src's dims and the new dims into consecutive groups of equal
// volume, src dims [i_begin, i_end) against new dims [o_begin, o_end), and gives each group one
// action, which writes the group's new dims into the result. The first group that cannot be
// reshaped ends the walk with the reason.
class memory_desc::reshape_walk {
 public:
  // Pre: src is blocked and holds elements; new_dims passed check_reshape_dims.
  reshape_walk(const memory_desc& src, absl::Span<const dim_t> new_dims);
  // Post: src's type, kind, offset0 and inner blocks (their dims renumbered), the new dims, and per
  // new dim the padded dim, padded offset and stride that keep every element's offset.
  absl::StatusOr<memory_desc> run();

 private:
  enum class action {
    remove_1,   // an unpadded src dim of size 1, with no new dim
    add_1,      // a new dim of size 1, with no src dim
    keep_dim,   // one src dim becomes one new dim of the same size
    rearrange,  // src dims split or merged into new dims of the same volume
  };
  struct group {
    int i_begin, i_end, o_begin, o_end;
    action act;
  };

  absl::StatusOr<group> next_group(int i_end, int o_end) const;
  absl::StatusOr<group> match_volumes(int i_end, int o_end) const;
  absl::Status apply(const group& g);
  absl::Status add_unit_dim(const group& g);
  void keep_dim(const group& g);
  absl::Status rearrange(const group& g);
  absl::Status fail(absl::string_view why) const;

  const memory_desc& src_;
  absl::Span<const dim_t> new_dims_;
  std::array<dim_t, kMaxRank> blocks_;  // src's inner block product per dim
  memory_desc out_;
};

memory_desc::reshape_walk::reshape_walk(const memory_desc& src, absl::Span<const dim_t> new_dims)
    : src_(src), new_dims_(new_dims), blocks_(src.block_products()), out_(src) {
  out_.rank_ = static_cast<int>(new_dims.size());
  out_.dims_.fill(0);
  out_.padded_dims_.fill(0);
  out_.padded_offsets_.fill(0);
  out_.blocking_.strides.fill(0);
}

absl::StatusOr<memory_desc> memory_desc::reshape_walk::run() {
  int i_end = src_.rank_, o_end = out_.rank_;
  while (i_end != 0 || o_end != 0) {
    TESSERA_ASSIGN_OR_RETURN(const group g, next_group(i_end, o_end));
    TESSERA_RETURN_IF_ERROR(apply(g));
    i_end = g.i_begin;
    o_end = g.o_begin;
  }
  return out_;
}

// The group that ends at src dim i_end and new dim o_end (not both 0). Size-1 dims come first: a
// src one is removed (or kept, when padded, against a new one), a new one is added.
// Post: i_begin <= i_end, o_begin <= o_end, one of them strictly; or the reason no group ends here.
absl::StatusOr<memory_desc::reshape_walk::group> memory_desc::reshape_walk::next_group(int i_end,
                                                                                      int o_end) const {
  const bool new_dim_is_1 = o_end > 0 && new_dims_[o_end - 1] == 1;
  if (i_end > 0 && src_.dims_[i_end - 1] == 1) {
    const dim_t padded = src_.padded_dims_[i_end - 1];
    if (padded == 1) return group{i_end - 1, i_end, o_end, o_end, action::remove_1};
    if (new_dim_is_1) return group{i_end - 1, i_end, o_end - 1, o_end, action::keep_dim};
    return fail(absl::StrCat("dim ", i_end - 1, " has size 1 but is padded to ", padded, " and is not kept"));
  }
  if (new_dim_is_1) return group{i_end, i_end, o_end - 1, o_end, action::add_1};
  if (i_end == 0 || o_end == 0) return fail("the dims do not pair up");
  return match_volumes(i_end, o_end);
}

// Pre: i_end > 0, o_end > 0, and neither dim before them has size 1.
// Post: the fewest dims ending there whose volumes are equal on both sides: keep_dim for one dim on
// each side, rearrange otherwise.
absl::StatusOr<memory_desc::reshape_walk::group> memory_desc::reshape_walk::match_volumes(int i_end,
                                                                                         int o_end) const {
  int i_begin = i_end - 1, o_begin = o_end - 1;
  dim_t i_vol = src_.dims_[i_begin], o_vol = new_dims_[o_begin];
  while (i_vol != o_vol) {
    if (i_vol < o_vol) {
      if (i_begin == 0) return fail("no group of dims has matching volume");
      if (mul_overflows(i_vol, src_.dims_[--i_begin], &i_vol)) return fail("a group of dims overflows int64");
      if (i_vol == 0) return fail("a zero-size dim can only be kept, not merged");
    } else {
      if (o_begin == 0) return fail("no group of dims has matching volume");
      if (mul_overflows(o_vol, new_dims_[--o_begin], &o_vol)) return fail("a group of new dims overflows int64");
      if (o_vol == 0) return fail("a zero-size dim can only be kept, not merged");
    }
  }
  const bool one_each = i_begin + 1 == i_end && o_begin + 1 == o_end;
  return group{i_begin, i_end, o_begin, o_end, one_each ? action::keep_dim : action::rearrange};
}

// Post: out_'s new dims [g.o_begin, g.o_end) written; or the reason the group cannot be reshaped.
absl::Status memory_desc::reshape_walk::apply(const group& g) {
  switch (g.act) {
    case action::remove_1:
      return absl::OkStatus();
    case action::add_1:
      return add_unit_dim(g);
    case action::keep_dim:
      keep_dim(g);
      return absl::OkStatus();
    case action::rearrange:
      return rearrange(g);
  }
  return absl::OkStatus();
}

// The new size-1 dim g.o_begin, unpadded, with the stride of a dim just outside src dim g.i_begin
// (that dim's stride times its size in blocks), or the inner block size when no src dim is inside.
absl::Status memory_desc::reshape_walk::add_unit_dim(const group& g) {
  dim_t stride = 1;
  if (g.i_begin == src_.rank_) {
    stride = src_.inner_block_size();
  } else {
    // Only an empty tensor (any strides are accepted there) can overflow this.
    if (mul_overflows(src_.blocking_.strides[g.i_begin], src_.dims_[g.i_begin], &stride)) {
      return fail(absl::StrCat("stride ", src_.blocking_.strides[g.i_begin], " of dim ", g.i_begin,
                               " overflows int64"));
    }
    stride /= blocks_[g.i_begin];
  }
  out_.dims_[g.o_begin] = 1;
  out_.padded_dims_[g.o_begin] = 1;
  out_.padded_offsets_[g.o_begin] = 0;
  out_.blocking_.strides[g.o_begin] = stride;
  return absl::OkStatus();
}

// Src dim g.i_begin becomes new dim g.o_begin with its padding, stride and inner blocks.
void memory_desc::reshape_walk::keep_dim(const group& g) {
  out_.dims_[g.o_begin] = src_.dims_[g.i_begin];
  out_.padded_dims_[g.o_begin] = src_.padded_dims_[g.i_begin];
  out_.padded_offsets_[g.o_begin] = src_.padded_offsets_[g.i_begin];
  out_.blocking_.strides[g.o_begin] = src_.blocking_.strides[g.i_begin];
  for (int k = 0; k < src_.blocking_.inner_nblks; ++k) {
    if (src_.blocking_.inner_idxs[k] == g.i_begin) out_.blocking_.inner_idxs[k] = g.o_begin;
  }
}

// Splits or merges src dims [g.i_begin, g.i_end) into new dims [g.o_begin, g.o_end), unpadded and
// dense from the stride of the innermost src dim. Pre: equal volumes. Fails unless the src dims are
// dense, in logical order in memory and unblocked.
absl::Status memory_desc::reshape_walk::rearrange(const group& g) {
  const auto& i_dims = src_.dims_;
  const auto& i_strides = src_.blocking_.strides;
  for (int d = g.i_end - 1; d > g.i_begin; --d) {
    if (i_dims[d] * i_strides[d] != i_strides[d - 1]) {
      return fail(absl::StrCat("dims ", g.i_begin, "..", g.i_end - 1,
                               " are not dense and in logical order in memory (dim ", d - 1, " has stride ",
                               i_strides[d - 1], ", expected ", i_dims[d] * i_strides[d], ")"));
    }
  }
  for (int d = g.i_begin; d < g.i_end; ++d) {
    if (blocks_[d] != 1) return fail(absl::StrCat("dim ", d, " is blocked and cannot be split or merged"));
  }
  dim_t stride = i_strides[g.i_end - 1];
  for (int d = g.o_end - 1; d >= g.o_begin; --d) {
    out_.dims_[d] = new_dims_[d];
    out_.padded_dims_[d] = new_dims_[d];
    out_.padded_offsets_[d] = 0;
    out_.blocking_.strides[d] = stride;
    stride *= new_dims_[d];
  }
  return absl::OkStatus();
}

absl::Status memory_desc::reshape_walk::fail(absl::string_view why) const {
  return absl::InvalidArgumentError(absl::StrCat("reshape: cannot reshape dims ", dims_str(src_.dims()), " to ",
                                                 dims_str(new_dims_), ": ", why));
}

absl::StatusOr<memory_desc> memory_desc::reshape(absl::Span<const dim_t> new_dims) const {
  if (runtime_) {
    return absl::InvalidArgumentError(
        "reshape: the descriptor has run-time dims or strides; reshape needs concrete ones");
  }
  TESSERA_RETURN_IF_ERROR(check_reshape_dims(*this, new_dims));
  if (kind_ == format_kind::any) return any(new_dims, dt_);
  if (nelems() == 0) return dense_reshape_of_empty(new_dims, dt_);
  return reshape_walk(*this, new_dims).run();
}

}  // namespace tessera
