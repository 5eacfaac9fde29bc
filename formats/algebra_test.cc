#include "tessera/formats/algebra.h"
#include "tessera/formats/internal/random_tag.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

static_assert(block(tag<"abcd">, 1, 16) == tag<"aBcd16b">);
static_assert(block(tag<"aBcd16b">, 0, 4) == tag<"ABcd16b4a">);
static_assert(permute(tag<"abcd">, {0, 3, 1, 2}) == tag<"adbc">);
static_assert(permute(tag<"nChw16c">, {0, 2, 3, 1}) == tag<"aCdb16c">);
static_assert(coalesce(nodes_of(static_layout<"abcd", 2, 3, 4, 5>::value)).count == 4);


std::vector<dim_t> Padded(const layout& l) {
  return {l.padded_dims().begin(), l.padded_dims().end()};
}

// Random tags: a random permutation, some dims blocked (one or two levels).
std::string RandomTag(std::mt19937& rng, int rank) {
  tag_layout t = random_plain_tag(rng, rank);
  const int nblocks = rng() % 3;
  const dim_t sizes[] = {2, 4, 8};
  for (int b = 0; b < nblocks; ++b) t = block(t, rng() % rank, sizes[rng() % 3]);
  return to_string(t);
}

std::vector<dim_t> RandomDims(std::mt19937& rng, int rank, dim_t max_elems) {
  std::vector<dim_t> dims(rank);
  for (dim_t& d : dims) d = 1 + rng() % 5;
  auto product = [&] { return std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>()); };
  while (product() > max_elems) dims[rng() % rank] = 1;
  return dims;
}

TEST(Algebra, PermutePreservesEveryOffset) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 5;
    const std::string tag = RandomTag(rng, rank);
    absl::StatusOr<layout> l = make_layout(tag, RandomDims(rng, rank, 500));
    ASSERT_TRUE(l.ok()) << tag << ": " << l.status();
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    absl::StatusOr<layout> p = permute(*l, perm);
    ASSERT_TRUE(p.ok()) << p.status();
    tessera::testing::for_each_index(Padded(*l), [&](absl::Span<const dim_t> i) {
      std::vector<dim_t> j(rank);
      for (int d = 0; d < rank; ++d) j[perm[d]] = i[d];
      ASSERT_EQ(p->offset(j), l->offset(i)) << tag;
    });
  }
}

TEST(Algebra, BlockGivesALayoutThatCoversExactlyItsPaddedSize) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 4;
    tag_layout t = *parse_tag(RandomTag(rng, rank));
    const int dim = rng() % rank;
    const dim_t size = 1 + rng() % 5;
    absl::StatusOr<tag_layout> b = block_tag(t, dim, size);
    ASSERT_TRUE(b.ok()) << b.status();
    const std::vector<dim_t> dims = RandomDims(rng, rank, 300);
    absl::StatusOr<layout> l = make_layout(*b, dims);
    ASSERT_TRUE(l.ok()) << l.status();
    EXPECT_EQ(l->padded_dims()[dim] % (t.block_product(dim) * size), 0);
    std::vector<char> hit(l->required_span_size(), 0);
    dim_t count = 0;
    tessera::testing::for_each_index(Padded(*l), [&](absl::Span<const dim_t> i) {
      const dim_t off = l->offset(i);
      ASSERT_TRUE(off >= 0 && off < l->required_span_size() && !hit[off]) << to_string(*b);
      hit[off] = 1;
      ++count;
    });
    EXPECT_EQ(count, l->required_span_size());
  }
}

TEST(Algebra, NodesReproduceTheLayoutAndCoalescePreservesOffsets) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 5;
    const std::string tag = RandomTag(rng, rank);
    absl::StatusOr<layout> l = make_layout(tag, RandomDims(rng, rank, 400));
    ASSERT_TRUE(l.ok()) << l.status();
    const node_list nodes = nodes_of(*l);
    const node_list merged = coalesce(nodes);
    tessera::testing::for_each_index(Padded(*l), [&](absl::Span<const dim_t> i) {
      ASSERT_EQ(nodes.offset(i), l->offset(i)) << tag;
      ASSERT_EQ(merged.offset(i), l->offset(i)) << tag;
    });
    for (int k = 0; k + 1 < merged.count; ++k) {
      const layout_node& a = merged.nodes[k];
      const layout_node& b = merged.nodes[k + 1];
      EXPECT_FALSE(a.dim == b.dim && a.stride == b.stride * b.size &&
                   a.divisor == b.divisor * b.size)
          << tag << ": nodes " << k << " and " << k + 1 << " are still mergeable";
      EXPECT_NE(a.size, 1);
    }
  }
}

TEST(Algebra, CoalesceUndoesASplit) {
  // A block of 16 whose outer part is one block is contiguous with it: aB16b over 2x16 is ab.
  const node_list n = coalesce(nodes_of(*make_layout("aB16b", {2, 16})));
  const node_list plain = coalesce(nodes_of(*make_layout("ab", {2, 16})));
  ASSERT_EQ(n.count, plain.count);
  for (int k = 0; k < n.count; ++k) EXPECT_EQ(n.nodes[k], plain.nodes[k]);
}

TEST(Algebra, StridedCoalescePreservesEveryLinearOffset) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 500; ++trial) {
    const int rank = 1 + trial % 6;
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::string tag;
    for (int d : perm) tag += static_cast<char>('a' + d);
    const std::vector<dim_t> dims = RandomDims(rng, rank, 2000);
    const layout l = *make_layout(tag, dims);
    strided_dims s;
    s.rank = rank;
    for (int d = 0; d < rank; ++d) {
      s.dims[d] = dims[d];
      // Some strides padded (a leading dimension larger than needed) so not everything merges.
      s.strides[d] = l.stride(d) * ((trial % 3 == 0 && d == perm[0]) ? 3 : 1);
    }
    const strided_dims c = coalesce(s);
    dim_t total = 1;
    for (dim_t d : dims) total *= d;
    dim_t ctotal = 1;
    for (int d = 0; d < c.rank; ++d) ctotal *= c.dims[d];
    ASSERT_EQ(ctotal, total);
    for (dim_t lin = 0; lin < total; ++lin) {
      ASSERT_EQ(c.offset_of_linear(lin), s.offset_of_linear(lin)) << tag;
    }
    for (int d = 0; d + 1 < c.rank; ++d) {
      EXPECT_NE(c.strides[d], c.strides[d + 1] * c.dims[d + 1]) << tag;
    }
  }
}

// The (src, dst) offset pairs a reorder must move, straight from the layouts.
std::vector<std::pair<dim_t, dim_t>> PairsOfLayouts(const layout& s, const layout& d) {
  std::vector<std::pair<dim_t, dim_t>> pairs;
  tessera::testing::for_each_index(Padded(s), [&](absl::Span<const dim_t> i) {
    pairs.emplace_back(s.offset(i), d.offset(i));
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<std::pair<dim_t, dim_t>> PairsOfNest(const loop_nest& nest) {
  std::vector<std::pair<dim_t, dim_t>> pairs;
  std::vector<dim_t> sizes;
  for (const joint_loop& l : nest.view()) sizes.push_back(l.size);
  tessera::testing::for_each_index(sizes, [&](absl::Span<const dim_t> i) {
    dim_t a = 0, b = 0;
    for (int k = 0; k < nest.count; ++k) {
      a += i[k] * nest.loops[k].src_stride;
      b += i[k] * nest.loops[k].dst_stride;
    }
    pairs.emplace_back(a, b);
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

TEST(Algebra, JointCoalesceExample) {
  const std::vector<dim_t> dims = {2, 16, 3, 3};
  absl::StatusOr<loop_nest> nest = joint_coalesce(nodes_of(*make_layout("nchw", dims)),
                                                  nodes_of(*make_layout("nhwc", dims)));
  ASSERT_TRUE(nest.ok()) << nest.status();
  EXPECT_EQ(to_string(*nest), "{2: 144,144} {9: 1,16} {16: 9,1}");

  // Same layout on both sides: one contiguous run.
  nest = joint_coalesce(nodes_of(*make_layout("nChw16c", {2, 32, 3, 3})),
                        nodes_of(*make_layout("nChw16c", {2, 32, 3, 3})));
  ASSERT_TRUE(nest.ok());
  EXPECT_EQ(to_string(*nest), "{576: 1,1}");
}

TEST(Algebra, JointCoalescePreservesEveryOffsetPair) {
  std::mt19937 rng(19);
  int tested = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = 1 + trial % 5;
    const std::string a = RandomTag(rng, rank), b = RandomTag(rng, rank);
    const tag_layout ta = *parse_tag(a), tb = *parse_tag(b);
    // Dims that are multiples of both block products keep the padded dims equal on both sides.
    std::vector<dim_t> dims(rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = std::lcm(ta.block_product(d), tb.block_product(d)) * (1 + rng() % 3);
    }
    while (std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>()) > 8192) {
      const int d = rng() % rank;
      dims[d] = std::lcm(ta.block_product(d), tb.block_product(d));
    }
    const layout la = *make_layout(a, dims), lb = *make_layout(b, dims);
    absl::StatusOr<loop_nest> nest = joint_coalesce(nodes_of(la), nodes_of(lb));
    ASSERT_TRUE(nest.ok()) << a << " -> " << b << ": " << nest.status();
    EXPECT_EQ(PairsOfNest(*nest), PairsOfLayouts(la, lb)) << a << " -> " << b;
    for (int k = 0; k + 1 < nest->count; ++k) {
      const joint_loop& o = nest->loops[k];
      const joint_loop& i = nest->loops[k + 1];
      EXPECT_FALSE(o.src_stride == i.src_stride * i.size && o.dst_stride == i.dst_stride * i.size);
    }
    ++tested;
  }
  EXPECT_EQ(tested, 400);
}

TEST(Algebra, JointCoalesceErrorsNameTheDim) {
  auto msg = [](const absl::StatusOr<loop_nest>& n) { return std::string(n.status().message()); };
  EXPECT_THAT(msg(joint_coalesce(nodes_of(*make_layout("nchw", {2, 17, 3, 3})),
                                 nodes_of(*make_layout("nChw16c", {2, 17, 3, 3})))),
              HasSubstr("dim 1 covers 17 in the source and 32 in the destination"));
  EXPECT_THAT(msg(joint_coalesce(nodes_of(*make_layout("aB6b", {2, 48})),
                                 nodes_of(*make_layout("aB16b", {2, 48})))),
              HasSubstr("blocks of dim 1 do not nest"));
  EXPECT_THAT(msg(joint_coalesce(nodes_of(*make_layout("ab", {2, 4})),
                                 nodes_of(*make_layout("abc", {2, 4, 1})))),
              HasSubstr("source rank 2 differs from destination rank 3"));
}

TEST(Algebra, InvalidPermuteAndBlockNameTheValue) {
  const tag_layout t = tag<"abcd">;
  EXPECT_THAT(std::string(permute_tag(t, {0, 1, 1, 2}).status().message()),
              HasSubstr("permutation {0,1,1,2} of tag 'abcd'"));
  EXPECT_THAT(std::string(block_tag(t, 4, 16).status().message()), HasSubstr("dim 4"));
  EXPECT_THAT(std::string(block_tag(t, 1, 0).status().message()), HasSubstr("size 0"));
}

}  // namespace
}  // namespace tessera
