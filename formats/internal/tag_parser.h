// The one format-tag parser, written as constexpr code so that the compile-time path
// (tessera::tag<"...">) and the run-time path (tessera::parse_tag) cannot disagree.
// Users include <tessera/formats/tag.h>; this header is its engine.
#ifndef TESSERA_FORMATS_INTERNAL_TAG_PARSER_H_
#define TESSERA_FORMATS_INTERNAL_TAG_PARSER_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "tessera/core/memory_desc.h"

namespace tessera {

// A tag without dims: the memory order of the logical dims and the inner blocks.
// For "aBcd16b": rank 4, order {0,1,2,3}, one block of 16 on dim 1.
struct tag_layout {
  // `any` ("choose for me") has no order and no rank of its own.
  bool is_any = false;
  int rank = 0;
  // order[k] is the logical dim at memory position k, outermost first.
  std::array<int, kMaxRank> order{};
  // Inner blocks, outermost first (blk_dims[k] is the logical dim block k splits).
  int nblks = 0;
  std::array<dim_t, kMaxRank> blk_sizes{};
  std::array<int, kMaxRank> blk_dims{};

  // Product of the inner blocks of `dim` (1 when it is not blocked).
  constexpr dim_t block_product(int dim) const {
    dim_t p = 1;
    for (int k = 0; k < nblks; ++k)
      if (blk_dims[k] == dim) p *= blk_sizes[k];
    return p;
  }
  // Product of all inner blocks: the size of one innermost tile.
  constexpr dim_t tile_size() const {
    dim_t p = 1;
    for (int k = 0; k < nblks; ++k) p *= blk_sizes[k];
    return p;
  }
  friend constexpr bool operator==(const tag_layout&, const tag_layout&) = default;
};

// Why a tag was rejected. tag_error_rule() words each as the rule that was broken.
enum class tag_error : uint8_t {
  none,
  empty,
  too_long,
  undef,
  bad_character,
  bad_domain_letter,
  duplicate_dim,
  skipped_dim,
  too_many_dims,
  uppercase_block_letter,
  block_without_letter,
  block_size_zero,
  block_size_too_large,
  block_of_unblocked_dim,
  blocked_dim_without_block,
  too_many_blocks,
  meta_x_twice,
  meta_x_uppercase,
  meta_x_needs_rank,
  meta_x_rank_too_small,
  rank_mismatch,
};

constexpr std::string_view tag_error_rule(tag_error e) {
  switch (e) {
    case tag_error::none: return "no error";
    case tag_error::empty: return "a tag must not be empty";
    case tag_error::too_long: return "a tag has at most 64 characters";
    case tag_error::undef: return "'undef' names no layout";
    case tag_error::bad_character:
      return "dims are letters a..l (uppercase when blocked), blocks are <size><letter>, "
             "domain tags use n c d h w o i g t l";
    case tag_error::bad_domain_letter:
      return "a domain tag uses the letters of one domain only: ncdhw (activations), goidhw "
             "(weights), tnc (RNN data) or ld+igo/nc (RNN weights, states)";
    case tag_error::duplicate_dim: return "each dim appears once before the blocks";
    case tag_error::skipped_dim: return "a rank-N tag names exactly the first N letters";
    case tag_error::too_many_dims: return "a tag has at most 12 dims";
    case tag_error::uppercase_block_letter: return "block letters are lowercase";
    case tag_error::block_without_letter: return "a block size must be followed by its letter";
    case tag_error::block_size_zero: return "a block size must be positive";
    case tag_error::block_size_too_large: return "block sizes (and their product) must fit 2^31";
    case tag_error::block_of_unblocked_dim:
      return "a block must split a dim written in uppercase";
    case tag_error::blocked_dim_without_block: return "an uppercase dim needs at least one block";
    case tag_error::too_many_blocks: return "a tag has at most 12 inner blocks";
    case tag_error::meta_x_twice: return "'x' may appear once";
    case tag_error::meta_x_uppercase: return "'x' stands for plain dims and cannot be blocked";
    case tag_error::meta_x_needs_rank: return "a tag with 'x' needs the rank of the dims";
    case tag_error::meta_x_rank_too_small:
      return "the rank must cover every letter the tag names besides 'x'";
    case tag_error::rank_mismatch: return "the tag's rank must equal the number of dims";
  }
  return "unknown error";
}

struct tag_parse_result {
  tag_layout layout;
  tag_error error = tag_error::none;
  int position = -1;  // index in the tag of the offending character, -1 when not positional
  int tag_rank = -1;  // the tag's own rank, for rank_mismatch
  constexpr bool ok() const { return error == tag_error::none; }
};

namespace internal {

inline constexpr int kMaxTagLength = 64;

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr char to_lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char to_upper(char c) { return is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c; }

// A tag is written with domain letters (nChw16c, OIhw16i16o, ldigo) when it has a letter that the
// abstract alphabet a..l does not: n, o, t or w (every oneDNN domain alias has one of them).
constexpr bool uses_domain_letters(std::string_view s) {
  for (char c : s) {
    char l = to_lower(c);
    if (l == 'n' || l == 'o' || l == 't' || l == 'w') return true;
  }
  return false;
}

// The logical order of each domain (oneDNN's): the letters a tag names are numbered in this
// order, so the dim count picks the meaning (ncw: w is dim 2; ncdhw: w is dim 4).
constexpr std::string_view domain_order(std::string_view outer) {
  bool has_l = false, has_t = false, has_weights = false;
  for (char c : outer) {
    char l = to_lower(c);
    has_l |= l == 'l';
    has_t |= l == 't';
    has_weights |= l == 'o' || l == 'i' || l == 'g';
  }
  if (has_l) return "ldigonc";  // RNN: ldigo, ldgoi, ldio, ldgo, ldnc
  if (has_t) return "tnc";      // RNN data: tnc, ntc, tn, nt
  if (has_weights) return "goidhw";
  return "ncdhw";
}

struct letter_form {
  std::array<char, kMaxTagLength> chars{};
  int size = 0;
  tag_error error = tag_error::none;
  int position = -1;
  constexpr std::string_view view() const { return {chars.data(), static_cast<size_t>(size)}; }
};

// nChw16c -> aBcd16b: each domain letter becomes the letter of its logical dim.
constexpr letter_form to_letter_form(std::string_view s) {
  letter_form out;
  int outer_end = 0;
  while (outer_end < static_cast<int>(s.size()) && !is_digit(s[outer_end])) ++outer_end;
  const std::string_view order = domain_order(s.substr(0, outer_end));
  bool present[26] = {};
  for (int i = 0; i < outer_end; ++i) {
    char l = to_lower(s[i]);
    if (!is_lower(l) || order.find(l) == std::string_view::npos) {
      out.error = is_lower(l) ? tag_error::bad_domain_letter : tag_error::bad_character;
      out.position = i;
      return out;
    }
    present[l - 'a'] = true;
  }
  for (int i = 0; i < static_cast<int>(s.size()); ++i) {
    char c = s[i];
    if (is_digit(c)) {
      out.chars[out.size++] = c;
      continue;
    }
    char l = to_lower(c);
    if (!is_lower(l) || order.find(l) == std::string_view::npos || !present[l - 'a']) {
      out.error = !is_lower(l)                                  ? tag_error::bad_character
                  : order.find(l) == std::string_view::npos ? tag_error::bad_domain_letter
                                                                : tag_error::block_of_unblocked_dim;
      out.position = i;
      return out;
    }
    int dim = 0;  // how many present letters come before l in the domain order
    for (char o : order) {
      if (o == l) break;
      if (present[o - 'a']) ++dim;
    }
    out.chars[out.size++] = static_cast<char>((is_upper(c) ? 'A' : 'a') + dim);
  }
  return out;
}

constexpr tag_parse_result fail(tag_error e, int position) {
  tag_parse_result r;
  r.error = e;
  r.position = position;
  return r;
}

// What parse_letter_form has read so far, passed from one step to the next.
struct letter_form_state {
  tag_layout layout;             // order[0..named) and the blocks read so far
  int named = 0;                 // letters a..l before the blocks
  int x_at = -1;                 // index in layout.order where 'x' expands; -1 without 'x'
  int dims_seen[kMaxRank] = {};  // per dim: 0 not named, 1 plain, 2 blocked (uppercase)
  int blocks_at = 0;             // index in the tag of the first block: the first digit, or the size
};

// The letters before the first digit: dims a..l (uppercase when blocked), each once, and at most
// one lowercase 'x'. Returns a failed result at the first bad letter, else an ok one with
// st.named, st.x_at, st.dims_seen, st.layout.order[0..named) and st.blocks_at set.
constexpr tag_parse_result read_outer_letters(std::string_view s, letter_form_state& st) {
  const int n = static_cast<int>(s.size());
  int i = 0;
  for (; i < n && !is_digit(s[i]); ++i) {
    char c = s[i];
    if (c == 'x') {
      if (st.x_at >= 0) return fail(tag_error::meta_x_twice, i);
      st.x_at = st.named;
      continue;
    }
    if (c == 'X') return fail(tag_error::meta_x_uppercase, i);
    char l = to_lower(c);
    if (l < 'a' || l > 'l') return fail(tag_error::bad_character, i);
    int d = l - 'a';
    if (st.dims_seen[d] != 0) return fail(tag_error::duplicate_dim, i);
    st.dims_seen[d] = is_upper(c) ? 2 : 1;
    if (st.named == kMaxRank) return fail(tag_error::too_many_dims, i);
    st.layout.order[st.named++] = d;
  }
  st.blocks_at = i;
  return {};
}

// The blocks <size><letter> from st.blocks_at to the end: each size positive, each letter a dim
// named in uppercase, each dim's block product at most 2^31, at most kMaxRank blocks. Returns a
// failed result at the first bad block, else an ok one with st.layout's blocks set.
constexpr tag_parse_result read_blocks(std::string_view s, letter_form_state& st) {
  tag_layout& t = st.layout;
  const int n = static_cast<int>(s.size());
  for (int i = st.blocks_at; i < n; ++i) {
    if (!is_digit(s[i])) {
      return fail(is_upper(s[i]) ? tag_error::uppercase_block_letter : tag_error::bad_character, i);
    }
    const int size_at = i;
    dim_t size = 0;
    for (; i < n && is_digit(s[i]); ++i) {
      size = size * 10 + (s[i] - '0');
      if (size > (dim_t{1} << 31)) return fail(tag_error::block_size_too_large, size_at);
    }
    if (size == 0) return fail(tag_error::block_size_zero, size_at);
    if (i == n) return fail(tag_error::block_without_letter, size_at);
    char c = s[i];
    if (is_upper(c)) return fail(tag_error::uppercase_block_letter, i);
    if (c < 'a' || c > 'l') return fail(tag_error::bad_character, i);
    int d = c - 'a';
    if (st.dims_seen[d] != 2) return fail(tag_error::block_of_unblocked_dim, i);
    if (t.nblks == kMaxRank) return fail(tag_error::too_many_blocks, size_at);
    t.blk_sizes[t.nblks] = size;
    t.blk_dims[t.nblks] = d;
    ++t.nblks;
    if (t.block_product(d) > (dim_t{1} << 31)) return fail(tag_error::block_size_too_large, size_at);
  }
  return {};
}

// Every dim named in uppercase has at least one block. Returns a failed result at the first such
// dim's letter (the lowest dim first), else an ok one.
constexpr tag_parse_result check_blocked_dims_have_blocks(std::string_view s, const letter_form_state& st) {
  const tag_layout& t = st.layout;
  const int n = static_cast<int>(s.size());
  for (int d = 0; d < kMaxRank; ++d) {
    if (st.dims_seen[d] == 2 && t.block_product(d) == 1) {
      bool has_block = false;
      for (int k = 0; k < t.nblks; ++k) has_block |= t.blk_dims[k] == d;
      if (!has_block) {
        int at = 0;
        while (at < n && to_lower(s[at]) != 'a' + d) ++at;
        return fail(tag_error::blocked_dim_without_block, at);
      }
    }
  }
  return {};
}

// The layout of a tag with 'x', which stands for the dims the tag does not name, in their logical
// order. Pre: st read and checked (st.x_at >= 0). Fails without a rank, with a rank above
// kMaxRank, or with one below a named dim.
constexpr tag_parse_result expand_x(const letter_form_state& st, int rank) {
  if (rank < 0) return fail(tag_error::meta_x_needs_rank, -1);
  if (rank > kMaxRank) return fail(tag_error::too_many_dims, -1);
  const tag_layout& t = st.layout;
  for (int k = 0; k < st.named; ++k) {
    if (t.order[k] >= rank) {
      auto r = fail(tag_error::meta_x_rank_too_small, -1);
      r.tag_rank = t.order[k] + 1;
      return r;
    }
  }
  std::array<int, kMaxRank> order{};
  int m = 0;
  for (int k = 0; k < st.x_at; ++k) order[m++] = t.order[k];
  for (int d = 0; d < rank; ++d)
    if (st.dims_seen[d] == 0) order[m++] = d;
  for (int k = st.x_at; k < st.named; ++k) order[m++] = t.order[k];
  tag_parse_result r;
  r.layout = t;
  r.layout.order = order;
  r.layout.rank = rank;
  return r;
}

// The layout of a tag without 'x': its rank is the number of letters, which must be exactly the
// first `named` letters, and must equal `rank` when that is given (>= 0). Pre: st read and checked.
constexpr tag_parse_result layout_of_named_dims(std::string_view s, const letter_form_state& st, int rank) {
  const int n = static_cast<int>(s.size());
  for (int d = 0; d < st.named; ++d) {
    if (st.dims_seen[d] == 0) {
      int at = 0;
      while (at < n && !is_digit(s[at]) && to_lower(s[at]) - 'a' < st.named) ++at;
      return fail(tag_error::skipped_dim, at < n ? at : 0);
    }
  }
  if (rank >= 0 && rank != st.named) {
    auto r = fail(tag_error::rank_mismatch, -1);
    r.tag_rank = st.named;
    return r;
  }
  tag_parse_result r;
  r.layout = st.layout;
  r.layout.rank = st.named;
  return r;
}

// Parses the abstract form: outer letters (a..l, uppercase when blocked, at most one 'x'),
// then blocks <size><letter>. `rank` (-1: unknown) resolves 'x' and is checked when given.
// Positions in a failed result are indices in `s`.
constexpr tag_parse_result parse_letter_form(std::string_view s, int rank) {
  letter_form_state st;
  if (auto r = read_outer_letters(s, st); !r.ok()) return r;
  if (auto r = read_blocks(s, st); !r.ok()) return r;
  if (auto r = check_blocked_dims_have_blocks(s, st); !r.ok()) return r;
  return st.x_at >= 0 ? expand_x(st, rank) : layout_of_named_dims(s, st, rank);
}

// oneDNN 2.6.3 names whose layout differs from what their spelling says: an uppercase dim with no
// block (OhwI32o), or IO spelled but OI laid out (gIOhw2i8o16i2o). A name means what oneDNN does
// with it, so these four map to oneDNN's layout (checked by onednn_diff_test).
struct onednn_quirk {
  std::string_view name;
  std::string_view letters;
};
inline constexpr onednn_quirk kOneDnnQuirks[] = {
    {"OhwI32o", "Acdb32a"},
    {"gOhwI32o", "aBdec32b"},
    {"gIOhw2i8o16i2o", "aBCde2c8b16c2b"},
    {"gIOdhw2i8o16i2o", "aBCdef2c8b16c2b"},
};

constexpr tag_parse_result parse_tag(std::string_view s, int rank) {
  for (const onednn_quirk& q : kOneDnnQuirks) {
    if (s == q.name) return parse_letter_form(q.letters, rank);
  }
  if (s.empty()) return fail(tag_error::empty, -1);
  if (static_cast<int>(s.size()) > kMaxTagLength) return fail(tag_error::too_long, -1);
  if (s == "any") {
    tag_parse_result r;
    r.layout.is_any = true;
    r.layout.rank = rank;
    return r;
  }
  if (s == "undef") return fail(tag_error::undef, -1);
  if (s == "x") s = "a";  // oneDNN's 1-D alias, not the benchdnn meta letter
  if (!uses_domain_letters(s)) return parse_letter_form(s, rank);
  letter_form lf = to_letter_form(s);
  if (lf.error != tag_error::none) return fail(lf.error, lf.position);
  // Domain and letter forms have the same length, so positions carry over unchanged.
  return parse_letter_form(lf.view(), rank);
}

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_FORMATS_INTERNAL_TAG_PARSER_H_
