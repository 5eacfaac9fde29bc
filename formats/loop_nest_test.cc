#include "tessera/formats/loop_nest.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/internal/random_tag.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Random tags: a random permutation, up to three blocks of sizes that nest or do not.
std::string RandomTag(std::mt19937& rng, int rank) {
  tag_layout t = random_plain_tag(rng, rank);
  const int nblocks = rng() % 4;
  const dim_t sizes[] = {2, 4, 8, 16, 3};
  for (int b = 0; b < nblocks; ++b) t = block(t, rng() % rank, sizes[rng() % 5]);
  return to_string(t);
}

std::vector<dim_t> RandomDims(std::mt19937& rng, int rank) {
  std::vector<dim_t> dims(rank);
  for (dim_t& d : dims) d = 1 + rng() % 19;
  auto product = [&] {
    return std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>());
  };
  while (product() > 3000) dims[rng() % rank] = 1 + rng() % 3;
  return dims;
}

template <size_t N>
using offsets = std::vector<std::array<dim_t, N>>;

// Every offset tuple a list of boxes walks, sorted.
template <size_t N>
offsets<N> TuplesOf(const std::vector<nest_box<N>>& boxes) {
  offsets<N> out;
  for (const nest_box<N>& box : boxes) {
    std::vector<dim_t> sizes;
    for (const nest_node<N>& n : box.nodes) sizes.push_back(n.size);
    tessera::testing::for_each_index(sizes, [&](absl::Span<const dim_t> i) {
      std::array<dim_t, N> off = box.base;
      for (size_t k = 0; k < sizes.size(); ++k) {
        for (size_t op = 0; op < N; ++op) off[op] += i[k] * box.nodes[k].stride[op];
      }
      out.push_back(off);
    });
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <size_t N>
void ExpectNormalForm(const std::vector<nest_box<N>>& boxes, const std::string& what) {
  for (const nest_box<N>& box : boxes) {
    for (size_t k = 0; k < box.nodes.size(); ++k) {
      EXPECT_NE(box.nodes[k].size, 1) << what;
      if (k == 0) continue;
      const nest_node<N>& o = box.nodes[k - 1];
      const nest_node<N>& i = box.nodes[k];
      bool mergeable = true;
      for (size_t op = 0; op < N; ++op) mergeable &= o.stride[op] == i.size * i.stride[op];
      EXPECT_FALSE(mergeable) << what;
    }
  }
}

nest_operands<2> TwoOperands(const memory_desc& src, const memory_desc& dst, const node_list& s,
                             const node_list& d) {
  nest_operands<2> ops;
  ops.space = index_space_of(dst);
  ops.nodes = {&s, &d};
  ops.base = {src.offset0(), dst.offset0()};
  ops.order_by = 1;
  ops.then_by = 0;
  return ops;
}

TEST(LoopNest, DataBoxesWalkEveryOffsetPairOnceAndPaddingExactlyThePadding) {
  std::mt19937 rng(23);
  int normalised = 0, with_padding = 0;
  constexpr int kTrials = 800;
  for (int trial = 0; trial < kTrials; ++trial) {
    const int rank = 1 + trial % 5;
    const std::string a = RandomTag(rng, rank), b = RandomTag(rng, rank);
    const std::vector<dim_t> dims = RandomDims(rng, rank);
    const memory_desc src = *make_memory_desc(dims, data_type::f32, a);
    const memory_desc dst = *make_memory_desc(dims, data_type::f32, b);
    dim_t padded_size = 1;
    for (dim_t p : dst.padded_dims()) padded_size *= p;
    if (padded_size > 20000) continue;  // two levels of 16 on one dim: keep the test quick
    const node_list s = *nodes_of(src), d = *nodes_of(dst);
    const std::string what = a + " -> " + b;
    const node_list* const sides[] = {&s, &d};
    absl::StatusOr<joint_nest<2>> nest = normalise(TwoOperands(src, dst, s, d));
    ASSERT_EQ(nest.ok(), !first_block_conflict(rank, sides).has_value()) << what;
    if (!nest.ok()) {
      EXPECT_EQ(nest.status().code(), absl::StatusCode::kUnimplemented);
      continue;
    }
    ++normalised;
    offsets<2> want;
    tessera::testing::for_each_index(dims, [&](absl::Span<const dim_t> i) {
      want.push_back({src.offset(i), dst.offset(i)});
    });
    std::sort(want.begin(), want.end());
    EXPECT_EQ(TuplesOf(nest->data), want) << what;
    EXPECT_EQ(nest->total_elements, static_cast<dim_t>(want.size())) << what;

    // Padding: the dst offsets of [0, padded) minus [0, dims), each once.
    std::vector<dim_t> pad_want;
    tessera::testing::for_each_index(dst.padded_dims(), [&](absl::Span<const dim_t> i) {
      bool logical = true;
      for (int k = 0; k < rank; ++k) logical &= i[k] < dims[k];
      if (!logical) pad_want.push_back(dst.offset(i));
    });
    std::sort(pad_want.begin(), pad_want.end());
    std::vector<dim_t> pad_got;
    for (const auto& t : TuplesOf(nest->padding)) pad_got.push_back(t[1]);
    std::sort(pad_got.begin(), pad_got.end());
    EXPECT_EQ(pad_got, pad_want) << what;
    with_padding += !pad_want.empty();

    ExpectNormalForm(nest->data, what);
    ExpectNormalForm(nest->padding, what);
  }
  EXPECT_GT(normalised, kTrials / 3);
  EXPECT_GT(with_padding, kTrials / 8);
}

TEST(LoopNest, StridedOperandsFollowTheirDims) {
  // A per-dim array over dims 0 and 2 of a 3 x 5 x 4 space (row-major 3 x 4), next to nchw.
  const memory_desc src = *make_memory_desc({3, 5, 4}, data_type::f32, "acb");
  const node_list s = *nodes_of(src);
  const index_space space = index_space_of(src);
  const std::array<dim_t, 3> strides = {4, 0, 1};
  const node_list per_dim = strided_nodes(space, strides);
  nest_operands<2> ops;
  ops.space = space;
  ops.nodes = {&s, &per_dim};
  absl::StatusOr<joint_nest<2>> nest = normalise(ops);
  ASSERT_TRUE(nest.ok()) << nest.status();
  offsets<2> want;
  tessera::testing::for_each_index(src.dims(), [&](absl::Span<const dim_t> i) {
    want.push_back({src.offset(i), i[0] * 4 + i[2]});
  });
  std::sort(want.begin(), want.end());
  EXPECT_EQ(TuplesOf(nest->data), want);
  EXPECT_TRUE(nest->padding.empty());
}

TEST(LoopNest, PartialBlocksAreCutIntoRectangularBoxes) {
  // nChw16c with C = 17: data is one full block and one partial one; padding the rest of it.
  const memory_desc dst = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  const node_list d = *nodes_of(dst);
  nest_operands<1> ops;
  ops.space = index_space_of(dst);
  ops.nodes = {&d};
  absl::StatusOr<joint_nest<1>> nest = normalise(ops);
  ASSERT_TRUE(nest.ok()) << nest.status();
  ASSERT_EQ(nest->data.size(), 2u);
  ASSERT_EQ(nest->padding.size(), 1u);
  const nest_box<1>& pad = nest->padding[0];
  EXPECT_EQ(pad.base[0], 17 - 16 + 144);  // c = 17: second block, lane 1
  ASSERT_EQ(pad.nodes.size(), 3u);
  EXPECT_EQ(pad.nodes[0].size, 2);
  EXPECT_EQ(pad.nodes[0].stride[0], 288);
  EXPECT_EQ(pad.nodes[1].size, 9);
  EXPECT_EQ(pad.nodes[1].stride[0], 16);
  EXPECT_EQ(pad.nodes[2].size, 15);
  EXPECT_EQ(pad.nodes[2].stride[0], 1);
  EXPECT_EQ(nest->total_elements, 2 * 17 * 9);
}

TEST(LoopNest, BlockConflictNamesTheDimAndTheDivisors) {
  const memory_desc a = *make_memory_desc({2, 48}, data_type::f32, "aB16b");
  const memory_desc b = *make_memory_desc({2, 48}, data_type::f32, "aB12b");
  const node_list s = *nodes_of(a), d = *nodes_of(b);
  const node_list* const sides[] = {&s, &d};
  std::optional<block_conflict> c = first_block_conflict(2, sides);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->dim, 1);
  EXPECT_EQ(c->inner, 12);
  EXPECT_EQ(c->outer, 16);
  absl::StatusOr<joint_nest<2>> nest = normalise(TwoOperands(a, b, s, d));
  EXPECT_EQ(nest.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(nest.status().message()), HasSubstr("dim 1"));
}

TEST(LoopNest, OrderAndMergeKeepsTheWalkAndLeavesNothingMergeable) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 500; ++trial) {
    // Nodes cut from a random permutation of a dense 3-operand walk, some split in two.
    std::vector<nest_node<3>> nodes;
    const int count = 1 + rng() % 5;
    std::array<dim_t, 3> stride = {1, 1, 1};
    for (int k = 0; k < count; ++k) {
      const dim_t size = 1 + rng() % 4;
      nodes.push_back({size, stride});
      for (dim_t& s : stride) s *= size;
    }
    std::shuffle(nodes.begin(), nodes.end(), rng);
    for (int op = 1; op < 3; ++op) {
      if (rng() % 2) continue;
      dim_t s = 1;
      for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        it->stride[op] = s;
        s *= it->size;
      }
    }
    nest_box<3> before;
    before.nodes = nodes;
    nest_box<3> after = before;
    order_and_merge(after.nodes, 1, 0);
    EXPECT_EQ(TuplesOf<3>({after}), TuplesOf<3>({before}));
    ExpectNormalForm<3>({after}, "order_and_merge");
    for (size_t k = 1; k < after.nodes.size(); ++k) {
      EXPECT_GE(after.nodes[k - 1].stride[1], after.nodes[k].stride[1]);
    }
  }
}

}  // namespace
}  // namespace tessera
