#include "tessera/formats/loop_nest.h"

#include <algorithm>

namespace tessera {

index_space index_space_of(const memory_desc& md) {
  index_space s;
  s.rank = md.rank();
  for (int d = 0; d < s.rank; ++d) {
    s.dims[d] = md.dims()[d];
    s.padded[d] = md.padded_dims()[d];
  }
  return s;
}

node_list strided_nodes(const index_space& space, std::span<const dim_t> strides) {
  node_list r;
  r.rank = space.rank;
  for (int d = 0; d < space.rank; ++d) {
    r.dims[d] = space.padded[d];
    if (strides[d] != 0) r.nodes[r.count++] = {space.padded[d], strides[d], d, 1};
  }
  return r;
}

std::optional<block_conflict> first_block_conflict(int rank,
                                                   std::span<const node_list* const> operands) {
  nest_internal::refinement ref;
  return nest_internal::refine(rank, operands, ref);
}

namespace nest_internal {

std::optional<block_conflict> refine(int rank, std::span<const node_list* const> operands,
                                     refinement& out) {
  for (int d = 0; d < rank; ++d) {
    std::vector<dim_t>& units = out.units[d];
    units.clear();
    units.push_back(1);
    for (const node_list* list : operands) {
      for (const layout_node& n : list->view()) {
        if (n.dim == d) units.push_back(n.divisor);
      }
    }
    std::sort(units.begin(), units.end(), std::greater<>());
    units.erase(std::unique(units.begin(), units.end()), units.end());
    // Descending: units[k] is the next larger divisor above units[k + 1].
    for (size_t k = units.size() - 1; k > 0; --k) {
      if (units[k - 1] % units[k] != 0) return block_conflict{d, units[k], units[k - 1]};
    }
  }
  return std::nullopt;
}

dim_t stride_at(const node_list& nodes, int dim, dim_t unit) {
  const layout_node* best = nullptr;
  for (const layout_node& n : nodes.view()) {
    if (n.dim != dim || n.divisor > unit) continue;
    if (best == nullptr || n.divisor > best->divisor) best = &n;
  }
  return best == nullptr ? 0 : best->stride * (unit / best->divisor);
}

namespace {

// Cuts [lo, hi) (relative to the enclosing digit) into boxes of digits j.. that are rectangular.
void split(const std::vector<dim_t>& units, dim_t lo, dim_t hi, size_t j, dim_box& cur,
           std::vector<dim_box>& out) {
  if (lo >= hi) return;
  const dim_t unit = units[j];
  const size_t last = units.size() - 1;
  auto full_rest = [&](dim_box box) {
    for (size_t k = j + 1; k <= last; ++k) box.push_back({0, units[k - 1] / units[k]});
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
    split(units, lo - qlo * unit, hi - qlo * unit, j + 1, cur, out);
    cur.pop_back();
    return;
  }
  if (lo % unit != 0) {
    cur.push_back({qlo, 1});
    split(units, lo % unit, unit, j + 1, cur, out);
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
    split(units, 0, hi % unit, j + 1, cur, out);
    cur.pop_back();
  }
}

}  // namespace

std::vector<dim_box> boxes_of(const std::vector<dim_t>& units, dim_t lo, dim_t hi) {
  std::vector<dim_box> out;
  dim_box cur;
  split(units, lo, hi, 0, cur, out);
  return out;
}

}  // namespace nest_internal
}  // namespace tessera
