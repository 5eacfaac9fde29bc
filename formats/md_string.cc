#include "tessera/formats/md_string.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tessera/core/status.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/tag.h"

namespace tessera {
namespace {

// The tag whose letters follow the strides (larger outside; ties keep logical order) and whose
// blocks are md's inner blocks.
std::string inferred_tag(const memory_desc& md) {
  const blocking_desc& b = md.blocking();
  std::array<int, kMaxRank> order{};
  for (int d = 0; d < md.rank(); ++d) order[d] = d;
  std::array<bool, kMaxRank> blocked{};
  std::array<dim_t, kMaxRank> block_product{};
  block_product.fill(1);
  for (int k = 0; k < b.inner_nblks; ++k) {
    blocked[b.inner_idxs[k]] = true;
    block_product[b.inner_idxs[k]] *= b.inner_blks[k];
  }
  // Equal strides: a dim with a single outer position (size 0 or 1, or held by its blocks) takes
  // the stride of the dim inside it, so it is the inner one ("ba" with dims 1x10 has strides 1,1).
  auto single = [&](int d) { return md.padded_dims()[d] / block_product[d] <= 1; };
  std::stable_sort(order.begin(), order.begin() + md.rank(), [&](int x, int y) {
    if (b.strides[x] != b.strides[y]) return b.strides[x] > b.strides[y];
    return !single(x) && single(y);
  });
  std::string s;
  for (int k = 0; k < md.rank(); ++k) {
    s += static_cast<char>((blocked[order[k]] ? 'A' : 'a') + order[k]);
  }
  for (int k = 0; k < b.inner_nblks; ++k) {
    absl::StrAppend(&s, b.inner_blks[k]);
    s += static_cast<char>('a' + b.inner_idxs[k]);
  }
  return s;
}

bool has_padding(const memory_desc& md) {
  for (int d = 0; d < md.rank(); ++d)
    if (md.padded_dims()[d] != md.dims()[d]) return true;
  return false;
}

}  // namespace

absl::StatusOr<std::string> tag_of(const memory_desc& md) {
  if (md.kind() == format_kind::any) return std::string("any");
  if (md.kind() != format_kind::blocked) {
    return absl::NotFoundError("tag_of: an undef memory_desc has no tag");
  }
  const std::string tag = inferred_tag(md);
  absl::StatusOr<layout> l = make_layout(tag, md.dims());
  if (l.ok() && md.offset0() == 0) {
    bool same = true;
    for (int d = 0; d < md.rank(); ++d) {
      same &= l->stride(d) == md.blocking().strides[d] &&
              l->padded_dims()[d] == md.padded_dims()[d] && md.padded_offsets()[d] == 0;
    }
    if (same) return tag;
  }
  return absl::NotFoundError(absl::StrCat("tag_of: the blocking of ", dims_to_string(md.dims()),
                                          " with strides ",
                                          dims_to_string(absl::Span<const dim_t>(md.blocking().strides.data(), md.rank())),
                                          " is not what any tag gives"));
}

std::string verbose_md_string(const memory_desc& md) {
  const std::string dt(name_of(md.dt()));
  if (md.kind() == format_kind::any) return absl::StrCat(dt, "::any:any:f0");
  if (md.kind() == format_kind::undef) return absl::StrCat(dt, "::undef:undef:f0");
  absl::StatusOr<std::string> tag = tag_of(md);
  std::string layout_field;
  if (tag.ok()) {
    layout_field = *tag;
  } else {
    layout_field = absl::StrCat(
        inferred_tag(md), "@",
        dims_to_string(absl::Span<const dim_t>(md.blocking().strides.data(), md.rank())));
  }
  std::string s = absl::StrCat(dt, ":", has_padding(md) ? "p" : "", ":blocked:", layout_field, ":",
                               extra_string(md.extra()));
  if (md.offset0() != 0) absl::StrAppend(&s, ":off=", md.offset0());
  return s;
}

std::string onednn_verbose_md_string(absl::string_view arg, const memory_desc& md) {
  const std::string dt(name_of(md.dt()));
  if (md.kind() == format_kind::any) return absl::StrCat(arg, ":", dt, "::any:any::f0");
  if (md.kind() != format_kind::blocked) return absl::StrCat(arg, ":undef::undef:::f0");
  std::string properties;
  if (has_padding(md)) properties += 'p';
  for (int d = 0; d < md.rank(); ++d) {
    if (md.padded_offsets()[d] != 0) {
      properties += 'o';
      break;
    }
  }
  if (md.offset0() != 0) properties += '0';
  // Dense: the elements (padding included) fill the span exactly, as oneDNN's is_dense(true).
  const bool dense = md.data_size_bytes() * 8 ==
                     (md.nelems(/*with_padding=*/true) + md.offset0()) * bits_of(md.dt());
  const std::string strides =
      dense ? std::string()
            : dims_to_string(absl::Span<const dim_t>(md.blocking().strides.data(), md.rank()));
  return absl::StrCat(arg, ":", dt, ":", properties, ":blocked:", inferred_tag(md), ":", strides, ":",
                      extra_string(md.extra()));
}

absl::StatusOr<std::vector<dim_t>> parse_dims(absl::string_view dims) {
  std::vector<dim_t> out;
  if (dims.empty()) {
    return absl::InvalidArgumentError("dims '' are empty: write them as 2x17x3x3");
  }
  for (absl::string_view field : absl::StrSplit(dims, 'x')) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(field, &v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat("dims '", dims, "': field '", field,
                                                     "' is not a non-negative integer"));
    }
    out.push_back(v);
  }
  if (out.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dims '", dims, "' have ", out.size(), " fields, at most ", kMaxRank));
  }
  return out;
}

absl::StatusOr<memory_desc> parse_verbose_md(absl::string_view md, absl::string_view dims_str) {
  TESSERA_ASSIGN_OR_RETURN(std::vector<dim_t> dims, parse_dims(dims_str));
  std::vector<absl::string_view> f = absl::StrSplit(md, ':');
  // dt : flags : kind : layout : f<flags> [: off=N]
  if (f.size() < 5 || f.size() > 6 || (!f[1].empty() && f[1] != "p") || f[4] != "f0") {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory desc '", md, "' is not of the form <dt>:[p]:<kind>:<tag>:f0 (e.g. "
        "f32:p:blocked:aBcd16b:f0)"));
  }
  if (f.size() == 6) {
    return absl::UnimplementedError(absl::StrCat(
        "memory desc '", md, "': field '", f[5], "': an offset0 is made by submemory, not parsed"));
  }
  TESSERA_ASSIGN_OR_RETURN(data_type dt, parse_data_type(f[0]));
  if (f[2] == "any") {
    if (f[3] != "any") {
      return absl::InvalidArgumentError(
          absl::StrCat("memory desc '", md, "': kind any needs tag any, not '", f[3], "'"));
    }
    return memory_desc::any(dims, dt);
  }
  if (f[2] != "blocked") {
    return absl::InvalidArgumentError(
        absl::StrCat("memory desc '", md, "': kind '", f[2], "' is not blocked or any"));
  }
  absl::StatusOr<memory_desc> result;
  const size_t at = f[3].find('@');
  if (at == absl::string_view::npos) {
    result = make_memory_desc(dims, dt, f[3]);
  } else {
    // Tag for the inner blocks, explicit outer strides.
    TESSERA_ASSIGN_OR_RETURN(tag_layout t, parse_tag(f[3].substr(0, at),
                                                     static_cast<int>(dims.size())));
    TESSERA_ASSIGN_OR_RETURN(std::vector<dim_t> strides, parse_dims(f[3].substr(at + 1)));
    if (strides.size() != dims.size()) {
      return absl::InvalidArgumentError(absl::StrCat("memory desc '", md, "': ", strides.size(),
                                                     " strides for ", dims.size(), " dims"));
    }
    blocking_desc b;
    for (size_t d = 0; d < dims.size(); ++d) b.strides[d] = strides[d];
    b.inner_nblks = t.nblks;
    for (int k = 0; k < t.nblks; ++k) {
      b.inner_blks[k] = t.blk_sizes[k];
      b.inner_idxs[k] = t.blk_dims[k];
    }
    result = memory_desc::with_blocking(dims, dt, b);
  }
  if (!result.ok()) return result.status();
  if (has_padding(*result) != (f[1] == "p")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory desc '", md, "' with dims ", dims_str, ": the 'p' flag says the layout is ",
        f[1] == "p" ? "" : "not ", "padded, the dims and tag say otherwise"));
  }
  return result;
}

absl::StatusOr<std::string> benchdnn_args(const memory_desc& md, absl::string_view role) {
  TESSERA_ASSIGN_OR_RETURN(std::string tag, tag_of(md));
  return absl::StrCat("--", role, "dt=", std::string(name_of(md.dt())), " --", role, "tag=", tag,
                      " ", dims_to_string(md.dims()));
}

absl::StatusOr<memory_desc> parse_benchdnn_args(absl::string_view args) {
  std::string dt_name, tag, dims;
  for (absl::string_view word : absl::StrSplit(args, ' ', absl::SkipEmpty())) {
    const size_t eq = word.find('=');
    if (absl::StartsWith(word, "--") && eq != absl::string_view::npos) {
      absl::string_view key = word.substr(2, eq - 2), value = word.substr(eq + 1);
      if (absl::EndsWith(key, "dt")) {
        dt_name = std::string(value);
      } else if (absl::EndsWith(key, "tag")) {
        tag = std::string(value);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("benchdnn args '", args, "': option '", word, "' is not --Xdt or --Xtag"));
      }
    } else if (dims.empty()) {
      dims = std::string(word);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("benchdnn args '", args, "': unexpected word '", word, "'"));
    }
  }
  if (tag.empty() || dims.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("benchdnn args '", args, "' need a --stag= (or --dtag=) and dims like 2x17x3x3"));
  }
  data_type dt = data_type::f32;  // benchdnn's default
  if (!dt_name.empty()) {
    TESSERA_ASSIGN_OR_RETURN(dt, parse_data_type(dt_name));
  }
  TESSERA_ASSIGN_OR_RETURN(std::vector<dim_t> d, parse_dims(dims));
  return make_memory_desc(d, dt, tag);
}

}  // namespace tessera
