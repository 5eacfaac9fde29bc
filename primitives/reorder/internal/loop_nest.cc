#include "tessera/primitives/reorder/internal/loop_nest.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera::reorder_internal {
namespace {

// One digit of a dim's index: index contribution = digit * unit; memory step = stride.
struct digit {
  dim_t unit;
  dim_t stride;
};

// The digits of logical dim d in one layout, innermost (unit 1) first.
std::vector<digit> digits_of(const memory_desc& md, int d) {
  const blocking_desc& b = md.blocking();
  std::vector<digit> out;
  dim_t unit = 1;
  dim_t inner_stride = 1;  // memory stride of block k = product of the blocks inside it
  for (int k = b.inner_nblks - 1; k >= 0; --k) {
    if (b.inner_idxs[k] == d) {
      out.push_back({unit, inner_stride});
      unit *= b.inner_blks[k];
    }
    inner_stride *= b.inner_blks[k];
  }
  out.push_back({unit, b.strides[d]});
  return out;
}

dim_t stride_at(const std::vector<digit>& side, dim_t unit) {
  const digit* best = &side.front();
  for (const digit& g : side) {
    if (g.unit <= unit) best = &g;
  }
  return best->stride * (unit / best->unit);
}

// A dim of the refined chain: digits ordered outermost (largest unit) first.
struct refined_dim {
  std::vector<dim_t> units;      // descending, last is 1
  std::vector<strides_t> strides;
};

using digit_range = std::pair<dim_t, dim_t>;  // start, count
using dim_box = std::vector<digit_range>;     // one range per refined digit

// Cuts [lo, hi) (relative to the enclosing digit) into boxes of digits j.. that are rectangular.
void split(const refined_dim& rd, dim_t lo, dim_t hi, size_t j, dim_box& cur,
           std::vector<dim_box>& out) {
  if (lo >= hi) return;
  const dim_t unit = rd.units[j];
  const size_t last = rd.units.size() - 1;
  auto full_rest = [&](dim_box box) {
    for (size_t k = j + 1; k <= last; ++k) box.push_back({0, rd.units[k - 1] / rd.units[k]});
    return box;
  };
  if (j == last) {
    dim_box box = cur;
    box.push_back({lo, hi - lo});
    out.push_back(std::move(box));
    return;
  }
  dim_t qlo = lo / unit;
  const dim_t qhi = hi / unit;
  if (qlo == qhi) {
    cur.push_back({qlo, 1});
    split(rd, lo - qlo * unit, hi - qlo * unit, j + 1, cur, out);
    cur.pop_back();
    return;
  }
  if (lo % unit != 0) {
    cur.push_back({qlo, 1});
    split(rd, lo % unit, unit, j + 1, cur, out);
    cur.pop_back();
    ++qlo;
  }
  if (qhi > qlo) {
    dim_box box = cur;
    box.push_back({qlo, qhi - qlo});
    out.push_back(full_rest(std::move(box)));
  }
  if (hi % unit != 0) {
    cur.push_back({qhi, 1});
    split(rd, 0, hi % unit, j + 1, cur, out);
    cur.pop_back();
  }
}

std::vector<dim_box> boxes_of(const refined_dim& rd, dim_t lo, dim_t hi) {
  std::vector<dim_box> out;
  dim_box cur;
  split(rd, lo, hi, 0, cur, out);
  return out;
}

// Cartesian product of per-dim boxes into loop-nest boxes.
void emit(const std::vector<refined_dim>& rds, const std::vector<std::vector<dim_box>>& per_dim,
          size_t d, nest_box& cur, std::vector<nest_box>& out) {
  if (d == rds.size()) {
    nest_box box = cur;
    order_and_merge(box.nodes);
    out.push_back(std::move(box));
    return;
  }
  for (const dim_box& b : per_dim[d]) {
    nest_box next = cur;
    for (size_t j = 0; j < b.size(); ++j) {
      for (int op = 0; op < kOperands; ++op) next.base[op] += b[j].first * rds[d].strides[j][op];
      if (b[j].second != 1) next.nodes.push_back({b[j].second, rds[d].strides[j]});
    }
    emit(rds, per_dim, d + 1, next, out);
  }
}

dim_t mask_stride(const memory_desc& md, int mask, int d) {
  if (mask < 0 || !(mask & (1 << d))) return 0;
  dim_t s = 1;
  for (int e = d + 1; e < md.rank(); ++e) {
    if (mask & (1 << e)) s *= md.dims()[e];
  }
  return s;
}

}  // namespace

dim_t nest_box::elements() const {
  dim_t n = 1;
  for (const nest_node& node : nodes) n *= node.size;
  return n;
}

void order_and_merge(std::vector<nest_node>& nodes) {
  std::erase_if(nodes, [](const nest_node& n) { return n.size == 1; });
  std::stable_sort(nodes.begin(), nodes.end(), [](const nest_node& a, const nest_node& b) {
    if (a.stride[kDst] != b.stride[kDst]) return a.stride[kDst] > b.stride[kDst];
    return a.stride[kSrc] > b.stride[kSrc];
  });
  std::vector<nest_node> merged;
  for (const nest_node& n : nodes) {
    if (!merged.empty()) {
      nest_node& outer = merged.back();
      bool contiguous = true;
      for (int op = 0; op < kOperands; ++op) {
        contiguous = contiguous && outer.stride[op] == n.size * n.stride[op];
      }
      // The pair walks every operand like one longer loop with the inner stride.
      if (contiguous) {
        outer.size *= n.size;
        outer.stride = n.stride;
        continue;
      }
    }
    merged.push_back(n);
  }
  nodes = std::move(merged);
}

absl::StatusOr<loop_nest> normalise(const memory_desc& src, const memory_desc& dst,
                                    const operand_masks& masks) {
  const int rank = dst.rank();
  std::vector<refined_dim> rds(rank);
  for (int d = 0; d < rank; ++d) {
    std::vector<digit> s = digits_of(src, d), t = digits_of(dst, d);
    std::vector<dim_t> units;
    for (const digit& g : s) units.push_back(g.unit);
    for (const digit& g : t) units.push_back(g.unit);
    std::sort(units.begin(), units.end());
    units.erase(std::unique(units.begin(), units.end()), units.end());
    for (size_t k = 1; k < units.size(); ++k) {
      if (units[k] % units[k - 1] != 0) {
        return absl::UnimplementedError(absl::StrCat(
            "dim ", d, ": block products ", units[k - 1], " and ", units[k],
            " of src and dst do not divide each other"));
      }
    }
    refined_dim& rd = rds[d];
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
      strides_t st{};
      st[kSrc] = stride_at(s, *it);
      st[kDst] = stride_at(t, *it);
      st[kSrcScale] = mask_stride(dst, masks.src_scale, d) * *it;
      st[kDstScale] = mask_stride(dst, masks.dst_scale, d) * *it;
      st[kSrcZp] = mask_stride(dst, masks.src_zp, d) * *it;
      st[kDstZp] = mask_stride(dst, masks.dst_zp, d) * *it;
      st[kOscale] = mask_stride(dst, masks.oscale, d) * *it;
      rd.units.push_back(*it);
      rd.strides.push_back(st);
    }
  }

  loop_nest nest;
  std::vector<std::vector<dim_box>> per_dim(rank);
  for (int d = 0; d < rank; ++d) per_dim[d] = boxes_of(rds[d], 0, dst.dims()[d]);
  nest_box root;
  root.base[kSrc] = src.offset0();
  root.base[kDst] = dst.offset0();
  emit(rds, per_dim, 0, root, nest.data);
  for (const nest_box& b : nest.data) nest.total_elements += b.elements();

  // Padding: boxes where dim d is in [dims, padded), earlier dims in range, later dims anything.
  for (int d = 0; d < rank; ++d) {
    if (dst.padded_dims()[d] == dst.dims()[d]) continue;
    std::vector<std::vector<dim_box>> pad(rank);
    for (int e = 0; e < rank; ++e) {
      dim_t lo = e == d ? dst.dims()[e] : 0;
      dim_t hi = e < d ? dst.dims()[e] : dst.padded_dims()[e];
      pad[e] = boxes_of(rds[e], lo, hi);
    }
    emit(rds, pad, 0, root, nest.padding);
  }
  return nest;
}

std::string to_string(const nest_box& box) {
  return absl::StrJoin(box.nodes, " ", [](std::string* out, const nest_node& n) {
    absl::StrAppend(out, n.size, ":", n.stride[kSrc], "/", n.stride[kDst]);
  });
}

}  // namespace tessera::reorder_internal
