// layout: a tag applied to dims. Maps a logical index to an element offset; every member is
// constexpr, so with static dims the numbers are constant expressions.
//
//   // Compile time (static dims): 2x17x3x3 in nChw16c, C padded to 32.
//   using L = tessera::static_layout<"nChw16c", 2, 17, 3, 3>;
//   static_assert(L::stride(1) == 144 && L::required_span_size() == 2 * 32 * 3 * 3);
//   static_assert(L::offset(1, 16, 2, 0) == 288 + 144 + 2 * 48 + 0);
//
//   // Run time (same code, same numbers):
//   absl::StatusOr<tessera::layout> l = tessera::make_layout("nChw16c", {2, 17, 3, 3});
//   int64_t off = l->offset({1, 16, 2, 0});
//
// offset(i) = sum_d (i_d / B_d) * stride(d) + offset inside the dense innermost tile, where B_d is
// the product of dim d's blocks and the tile holds the blocks in tag order, last fastest.
// Outer strides follow oneDNN: the innermost outer dim has stride tile_size(); each next one
// multiplies by padded_dim / B_d (by 1 when that is 0, so a zero-size dim keeps strides unique).
// offset() evaluates the structure core/block_structure.h derives for every blocked layout, as
// memory_desc::offset and nodes_of do (formats/offsets_test.cc checks all of them against the
// formula written out plainly, and against each other).
#ifndef TESSERA_FORMATS_LAYOUT_H_
#define TESSERA_FORMATS_LAYOUT_H_

#include <array>
#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tessera/core/block_structure.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/tag.h"

namespace tessera {

enum class layout_error : uint8_t { none, any_has_no_layout, rank_mismatch, negative_dim, overflow };

class layout;
struct layout_result;
constexpr layout_result try_make_layout(const tag_layout& t, std::span<const dim_t> dims);

class layout {
 public:
  constexpr layout() = default;

  constexpr int rank() const { return tag_.rank; }
  constexpr const tag_layout& tag() const { return tag_; }
  constexpr std::span<const dim_t> dims() const { return {dims_.data(), size_t(tag_.rank)}; }
  constexpr std::span<const dim_t> padded_dims() const {
    return {padded_.data(), size_t(tag_.rank)};
  }
  // Outer stride of dim r (mdspan's stride(r) for plain layouts; oneDNN's blocking.strides).
  constexpr dim_t stride(int r) const { return strides_[r]; }
  constexpr std::span<const dim_t> strides() const { return {strides_.data(), size_t(tag_.rank)}; }

  // Element offset of a logical index (padding included: i_d < padded_dims[d]; not checked).
  // Post-conditions: offset(i) == blocked_offset(view of stride() and the tag's blocks, i)
  // (core/block_structure.h), that is sum_d (i_d / B_d) * stride(d) + the position of i's block
  // digits in the tile (blocks in tag order, the last fastest); equal to memory_desc::offset of
  // make_memory_desc(*this, dt) and to nodes_of(*this).offset(i) on every index of padded_dims().
  constexpr dim_t offset(std::span<const dim_t> index) const {
    std::array<dim_t, kMaxRank> digits{};
    for (int d = 0; d < tag_.rank; ++d) digits[d] = index[d];
    return blocked_offset(blocks(), digits);
  }
  template <std::integral... I>
  constexpr dim_t operator()(I... i) const {
    const std::array<dim_t, sizeof...(I)> index{static_cast<dim_t>(i)...};
    return offset(index);
  }

  // Elements a buffer needs: the product of the padded dims (0 when a dim is 0).
  constexpr dim_t required_span_size() const { return span_; }
  // Tag layouts never map two indices to one offset.
  constexpr bool is_unique() const { return true; }
  // Every offset below required_span_size() is reached by a logical (unpadded) index.
  constexpr bool is_exhaustive() const {
    for (int d = 0; d < tag_.rank; ++d)
      if (padded_[d] != dims_[d]) return false;
    return true;
  }
  // Product of dim d's inner blocks.
  constexpr dim_t block_product(int d) const { return block_[d]; }
  // The outer strides and the tag's inner blocks, as core/block_structure.h reads them; points
  // into this layout.
  constexpr block_view blocks() const {
    return {tag_.rank, strides_.data(), tag_.nblks, tag_.blk_sizes.data(), tag_.blk_dims.data()};
  }

  friend constexpr bool operator==(const layout&, const layout&) = default;

 private:
  friend constexpr layout_result try_make_layout(const tag_layout& t,
                                                 std::span<const dim_t> dims);
  tag_layout tag_{};
  std::array<dim_t, kMaxRank> dims_{};
  std::array<dim_t, kMaxRank> padded_{};
  std::array<dim_t, kMaxRank> strides_{};
  std::array<dim_t, kMaxRank> block_{};
  dim_t span_ = 0;
};

struct layout_result {
  layout value;
  layout_error error = layout_error::none;
  int dim = -1;  // the offending dim, when there is one
  constexpr bool ok() const { return error == layout_error::none; }
};

constexpr layout_result try_make_layout(const tag_layout& t, std::span<const dim_t> dims) {
  layout_result r;
  auto fail = [&](layout_error e, int d) {
    r.error = e;
    r.dim = d;
    return r;
  };
  if (t.is_any) return fail(layout_error::any_has_no_layout, -1);
  if (static_cast<int>(dims.size()) != t.rank) return fail(layout_error::rank_mismatch, -1);
  layout& l = r.value;
  l.tag_ = t;
  for (int d = 0; d < t.rank; ++d) {
    if (dims[d] < 0) return fail(layout_error::negative_dim, d);
    l.dims_[d] = dims[d];
    l.block_[d] = t.block_product(d);
    const dim_t b = l.block_[d];
    const dim_t nblocks = dims[d] / b + (dims[d] % b != 0);
    if (__builtin_mul_overflow(nblocks, b, &l.padded_[d])) return fail(layout_error::overflow, d);
  }
  dim_t stride = t.tile_size();
  bool empty = false;
  for (int k = t.rank - 1; k >= 0; --k) {
    const int d = t.order[k];
    l.strides_[d] = stride;
    const dim_t outer = l.padded_[d] / l.block_[d];
    empty |= outer == 0;
    if (__builtin_mul_overflow(stride, outer == 0 ? 1 : outer, &stride)) {
      return fail(layout_error::overflow, d);
    }
  }
  l.span_ = empty ? 0 : stride;
  return r;
}

// A tag layout over dims known at compile time. Every member is a constant expression.
template <fixed_string Tag, dim_t... Dims>
struct static_layout {
 private:
  // Not constexpr: reached only when the dims do not fit the tag (rank, negative, overflow).
  static void dims_are_invalid_for_the_tag() {}
  static consteval layout make() {
    constexpr std::array<dim_t, sizeof...(Dims)> dims{Dims...};
    layout_result r = try_make_layout(tessera::tag<Tag, int(sizeof...(Dims))>, dims);
    if (!r.ok()) dims_are_invalid_for_the_tag();
    return r.value;
  }

 public:
  static constexpr layout value = make();

  static constexpr int rank() { return value.rank(); }
  static constexpr std::span<const dim_t> dims() { return value.dims(); }
  static constexpr std::span<const dim_t> padded_dims() { return value.padded_dims(); }
  static constexpr dim_t stride(int r) { return value.stride(r); }
  static constexpr dim_t offset(std::span<const dim_t> index) { return value.offset(index); }
  template <std::integral... I>
    requires(sizeof...(I) == sizeof...(Dims))
  static constexpr dim_t offset(I... i) {
    return value(i...);
  }
  static constexpr dim_t required_span_size() { return value.required_span_size(); }
  static constexpr bool is_unique() { return true; }
  static constexpr bool is_exhaustive() { return value.is_exhaustive(); }
};

// What every layout offers (in the spirit of mdspan's layout mapping).
template <class L>
concept Layout = requires(const L& l, std::span<const dim_t> index, int r) {
  { l.rank() } -> std::convertible_to<int>;
  { l.dims() } -> std::convertible_to<std::span<const dim_t>>;
  { l.offset(index) } -> std::same_as<dim_t>;
  { l.stride(r) } -> std::same_as<dim_t>;
  { l.required_span_size() } -> std::same_as<dim_t>;
  { l.is_unique() } -> std::same_as<bool>;
  { l.is_exhaustive() } -> std::same_as<bool>;
};

// A layout whose shape and size are constant expressions of the type alone.
template <class L>
concept StaticLayout = Layout<L> && requires {
  typename std::integral_constant<int, L::rank()>;
  typename std::integral_constant<dim_t, L::required_span_size()>;
  typename std::integral_constant<dim_t, L::stride(0)>;
};

static_assert(Layout<layout>);
static_assert(!StaticLayout<layout>);

// Run-time construction; errors name the tag, the dims and the rule.
absl::StatusOr<layout> make_layout(absl::string_view tag, absl::Span<const dim_t> dims);
absl::StatusOr<layout> make_layout(const tag_layout& tag, absl::Span<const dim_t> dims);

// "2x17x3x3" (benchdnn's and oneDNN verbose's dims form).
std::string dims_to_string(absl::Span<const dim_t> dims);

}  // namespace tessera

#endif  // TESSERA_FORMATS_LAYOUT_H_
