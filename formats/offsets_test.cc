// The offsets of a blocked layout. memory_desc::offset, layout::offset and nodes_of are views of
// one derivation (core/block_structure.h); this file checks that derivation against two oracles
// written here from the definitions, over random layouts, and the views against each other:
// - spec_offset: the spec's formula, offset0 + sum over dims of (outer index * stride) + the
//   index of the element inside the dense tile of inner blocks, computed plainly;
// - memory_walk: for a tag layout, the position at which a walk of memory in the tag's order (the
//   outer parts in tag order, then the blocks) meets each index.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/block_structure.h"
#include "tessera/formats/algebra.h"
#include "tessera/formats/internal/random_tag.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

using ::tessera::testing::for_each_index;
using ::tessera::testing::index_string;

// The spec's definition of a blocked layout's offset, written out. Each dim's index (plus its
// padded offset) is a mixed-radix number: one digit per inner block on that dim, the innermost
// block's the lowest, and above them the outer index. The inner blocks form a dense row-major
// array, outermost block first.
dim_t spec_offset(const memory_desc& md, absl::Span<const dim_t> index) {
  const blocking_desc& b = md.blocking();
  const int rank = md.rank();
  std::vector<dim_t> block_digit(b.inner_nblks, 0);
  std::vector<dim_t> outer_index(rank, 0);
  for (int d = 0; d < rank; ++d) {
    dim_t rest = index[d] + md.padded_offsets()[d];
    for (int k = b.inner_nblks - 1; k >= 0; --k) {
      if (b.inner_idxs[k] != d) continue;
      block_digit[k] = rest % b.inner_blks[k];
      rest /= b.inner_blks[k];
    }
    outer_index[d] = rest;
  }
  dim_t offset = md.offset0();
  for (int d = 0; d < rank; ++d) offset += outer_index[d] * b.strides[d];
  dim_t in_tile = 0;
  for (int k = 0; k < b.inner_nblks; ++k) in_tile = in_tile * b.inner_blks[k] + block_digit[k];
  return offset + in_tile;
}

// Walks the memory of a tag layout (dims >= 1) in order, one element at a time: the outer part of
// each dim in the tag's order, then the blocks, the last fastest. Returns, for every index of the
// padded dims (row-major linear position), the element count at which the walk met it.
std::vector<dim_t> memory_walk(const layout& l) {
  const tag_layout& t = l.tag();
  const int rank = t.rank;
  // The walk's digits: rank outer parts, then the blocks.
  std::vector<dim_t> extent;
  for (int k = 0; k < rank; ++k) {
    const int d = t.order[k];
    extent.push_back(l.padded_dims()[d] / t.block_product(d));
  }
  for (int k = 0; k < t.nblks; ++k) extent.push_back(t.blk_sizes[k]);
  std::vector<dim_t> position(l.required_span_size(), -1);
  dim_t count = 0;
  for_each_index(extent, [&](absl::Span<const dim_t> digit) {
    // Rebuild the logical index: a block's digit weighs the product of its dim's later blocks.
    std::vector<dim_t> index(rank, 0);
    for (int k = 0; k < rank; ++k) {
      const int d = t.order[k];
      index[d] += digit[k] * t.block_product(d);
    }
    for (int k = 0; k < t.nblks; ++k) {
      dim_t weight = 1;
      for (int j = k + 1; j < t.nblks; ++j) {
        if (t.blk_dims[j] == t.blk_dims[k]) weight *= t.blk_sizes[j];
      }
      index[t.blk_dims[k]] += digit[rank + k] * weight;
    }
    dim_t linear = 0;
    for (int d = 0; d < rank; ++d) linear = linear * l.padded_dims()[d] + index[d];
    position[linear] = count++;
  });
  return position;
}

struct random_layout {
  tag_layout tag;
  std::vector<dim_t> dims;
};

// Random blocked tags of rank 1..5 over dims 1..9, with at most 40000 elements.
std::vector<random_layout> random_layouts(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  std::vector<random_layout> out;
  for (int trial = 0; trial < count; ++trial) {
    const int rank = 1 + trial % 5;
    random_layout r{random_blocked_tag(rng, rank), std::vector<dim_t>(rank)};
    for (dim_t& d : r.dims) d = 1 + rng() % 9;
    if (make_layout(r.tag, r.dims)->required_span_size() > 40000) continue;
    out.push_back(r);
  }
  return out;
}

std::vector<dim_t> padded_of(const memory_desc& md) {
  return {md.padded_dims().begin(), md.padded_dims().end()};
}

TEST(Offsets, TheDerivationMatchesTheSpecFormulaAndTheMemoryWalk) {
  for (const random_layout& r : random_layouts(47, 300)) {
    const layout l = *make_layout(r.tag, r.dims);
    const memory_desc md = *make_memory_desc(l, data_type::f32);
    const std::vector<dim_t> walk = memory_walk(l);
    const block_view view = block_view_of(md.rank(), md.blocking());
    const std::vector<dim_t> padded = padded_of(md);
    dim_t linear = 0;
    for_each_index(padded, [&](absl::Span<const dim_t> i) {
      std::array<dim_t, kMaxRank> index{};
      std::copy(i.begin(), i.end(), index.begin());
      const dim_t derived = blocked_offset(view, index);
      ASSERT_EQ(derived, spec_offset(md, i)) << to_string(r.tag) << " " << index_string(i);
      ASSERT_EQ(derived, walk[linear++]) << to_string(r.tag) << " " << index_string(i);
    });
  }
}

// Descriptors that are not tag layouts: sub-tensors (offset0, gaps), strides with gaps, permuted
// blocked layouts.
TEST(Offsets, MemoryDescMatchesTheSpecFormulaBeyondTags) {
  std::mt19937 rng(53);
  for (const random_layout& r : random_layouts(59, 200)) {
    const int rank = static_cast<int>(r.dims.size());
    const memory_desc md = *make_memory_desc(*make_layout(r.tag, r.dims), data_type::f32);
    std::vector<memory_desc> descs = {md};
    // A view from a block-aligned origin to the end of every dim.
    std::vector<dim_t> origin(rank), sub(rank);
    for (int d = 0; d < rank; ++d) {
      const dim_t block = r.tag.block_product(d);
      const dim_t blocks_starting_inside = (r.dims[d] - 1) / block + 1;
      origin[d] = static_cast<dim_t>(rng() % blocks_starting_inside) * block;
      sub[d] = r.dims[d] - origin[d];
    }
    descs.push_back(*md.submemory(sub, origin));
    std::vector<int> perm(rank);
    for (int d = 0; d < rank; ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    descs.push_back(*md.permute_axes(perm));
    // Plain strides with a gap after every dim: the dims in a random order.
    std::vector<dim_t> strides(rank);
    dim_t stride = 1 + rng() % 3;
    for (int k = rank - 1; k >= 0; --k) {
      strides[perm[k]] = stride;
      stride = stride * r.dims[perm[k]] + rng() % 3;
    }
    descs.push_back(*memory_desc::with_strides(r.dims, data_type::f32, strides));
    for (const memory_desc& m : descs) {
      const node_list nodes = *nodes_of(m);
      for_each_index(m.padded_dims(), [&](absl::Span<const dim_t> i) {
        const dim_t want = spec_offset(m, i);
        ASSERT_EQ(m.offset(i), want) << to_string(r.tag) << " " << index_string(i);
        ASSERT_EQ(m.offset0() + nodes.offset(i), want)
            << to_string(r.tag) << " " << index_string(i);
      });
    }
  }
}

TEST(Offsets, EveryFormAgreesOnNamedTags) {
  for (const char* tag : {"nchw", "nhwc", "nChw16c", "OIhw4i16o4i", "ABcd16a16b", "cdba"}) {
    const std::vector<dim_t> dims = {18, 17, 2, 3};
    absl::StatusOr<memory_desc> md = make_memory_desc(dims, data_type::bf16, tag);
    ASSERT_TRUE(md.ok()) << tag << ": " << md.status();
    const layout l = *make_layout(tag, dims);
    absl::StatusOr<node_list> nodes = nodes_of(*md);
    ASSERT_TRUE(nodes.ok());
    std::vector<dim_t> padded(md->padded_dims().begin(), md->padded_dims().end());
    for_each_index(padded, [&](absl::Span<const dim_t> i) {
      ASSERT_EQ(md->offset(i), l.offset(i)) << tag;
      ASSERT_EQ(nodes->offset(i), l.offset(i)) << tag;
      ASSERT_EQ(spec_offset(*md, i), l.offset(i)) << tag;
    });
  }
}

// The views of the derivation: memory_desc::offset, layout::offset (constexpr) and the node view
// (nodes_of a layout or a memory_desc) agree on every index of the padded dims.
TEST(Offsets, EveryFormAgreesOverRandomLayouts) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 5;
    const tag_layout t = random_blocked_tag(rng, rank);
    std::vector<dim_t> dims(rank);
    for (dim_t& d : dims) d = 1 + rng() % 9;
    const layout l = *make_layout(t, dims);
    if (l.required_span_size() > 40000) continue;
    const memory_desc md = *make_memory_desc(l, data_type::f32);
    const node_list from_md = *nodes_of(md);
    const node_list from_layout = nodes_of(l);
    EXPECT_EQ(from_md.view().size(), from_layout.view().size()) << to_string(t);
    std::vector<dim_t> padded(md.padded_dims().begin(), md.padded_dims().end());
    for_each_index(padded, [&](absl::Span<const dim_t> i) {
      const dim_t want = md.offset(i);
      ASSERT_EQ(l.offset(i), want) << to_string(t);
      ASSERT_EQ(from_md.offset(i), want) << to_string(t);
      ASSERT_EQ(from_layout.offset(i), want) << to_string(t);
    });
  }
}

// The derivation is constexpr: a static layout's offsets and nodes are constant expressions.
using Blocked = static_layout<"OIhw4i16o4i", 32, 32, 1, 1>;
static_assert(Blocked::offset(17, 6, 0, 0) == 512 + 64 + 4 + 2);
static_assert(nodes_of(Blocked::value).offset(std::array<dim_t, 4>{17, 6, 0, 0}) ==
              512 + 64 + 4 + 2);
static_assert(nodes_of(Blocked::value).count == 4 + 3);

}  // namespace
}  // namespace tessera
