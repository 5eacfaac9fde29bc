// block_structure.h: the components for_each_component visits (their post-conditions, on a
// multi-level blocking) and blocked_offset on hand-computed offsets. The random-layout oracles are
// in formats/offsets_test.cc, where tags make random layouts easy to build.
#include "tessera/core/block_structure.h"

#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

// ABcd4b16a4b over 32x32x1x1 (oneDNN's OIhw4i16o4i): the tile is [b/4 % 4][a % 16][b % 4].
constexpr blocking_desc multi_level() {
  blocking_desc b;
  b.strides = {512, 256, 512, 512};
  b.inner_nblks = 3;
  b.inner_blks[0] = 4;
  b.inner_idxs[0] = 1;
  b.inner_blks[1] = 16;
  b.inner_idxs[1] = 0;
  b.inner_blks[2] = 4;
  b.inner_idxs[2] = 1;
  return b;
}

constexpr blocking_desc nchw16c() {
  blocking_desc b;
  b.strides = {288, 144, 48, 16};
  b.inner_nblks = 1;
  b.inner_blks[0] = 16;
  b.inner_idxs[0] = 1;
  return b;
}

constexpr dim_t offset_of(const blocking_desc& b, int rank, std::array<dim_t, kMaxRank> index) {
  return blocked_offset(block_view_of(rank, b), index);
}

// blocked_offset leaves each dim's outer index behind.
constexpr bool leaves_outer_indices() {
  std::array<dim_t, kMaxRank> i = {17, 6, 0, 0};
  blocked_offset(block_view_of(4, multi_level()), i);
  return i[0] == 1 && i[1] == 0 && i[2] == 0 && i[3] == 0;
}
static_assert(leaves_outer_indices());

static_assert(offset_of(nchw16c(), 4, {1, 16, 2, 0}) == 288 + 144 + 2 * 48);
static_assert(offset_of(nchw16c(), 4, {0, 5, 0, 1}) == 16 + 5);
// a = 17: outer 1, digit 1; b = 6: outer 0, digits 1 (b / 4 % 4) and 2 (b % 4).
static_assert(offset_of(multi_level(), 4, {17, 6, 0, 0}) == 512 + 1 * 64 + 1 * 4 + 2);
// Plain: no blocks, the strides alone.
static_assert(offset_of(blocking_desc{{1, 4}}, 2, {2, 3}) == 2 + 3 * 4);

struct seen_inner {
  int block, dim;
  dim_t size, divisor, stride;
};

TEST(ForEachComponent, VisitsBlocksInnermostFirstThenDimsInOrder) {
  const blocking_desc b = multi_level();
  std::vector<seen_inner> inner;
  std::vector<outer_component> outer;
  for_each_component(
      block_view_of(4, b),
      [&](const inner_component& c) {
        inner.push_back({c.block, c.dim, c.size, c.divisor, c.stride});
      },
      [&](const outer_component& c) { outer.push_back(c); });
  ASSERT_EQ(inner.size(), 3u);
  // Block k: size, dim, divisor = dim's later blocks, stride = every later block.
  EXPECT_EQ(inner[0].block, 2);
  EXPECT_EQ(inner[0].dim, 1);
  EXPECT_EQ(inner[0].size, 4);
  EXPECT_EQ(inner[0].divisor, 1);
  EXPECT_EQ(inner[0].stride, 1);
  EXPECT_EQ(inner[1].block, 1);
  EXPECT_EQ(inner[1].dim, 0);
  EXPECT_EQ(inner[1].size, 16);
  EXPECT_EQ(inner[1].divisor, 1);
  EXPECT_EQ(inner[1].stride, 4);
  EXPECT_EQ(inner[2].block, 0);
  EXPECT_EQ(inner[2].dim, 1);
  EXPECT_EQ(inner[2].size, 4);
  EXPECT_EQ(inner[2].divisor, 4);
  EXPECT_EQ(inner[2].stride, 64);
  ASSERT_EQ(outer.size(), 4u);
  const dim_t products[] = {16, 16, 1, 1};
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(outer[d].dim, d);
    EXPECT_EQ(outer[d].block_product, products[d]);
    EXPECT_EQ(outer[d].stride, b.strides[d]);
  }
}

TEST(BlockedOffset, EveryIndexOfATileOnceAndInOrder) {
  // One tile of the multi-level blocking: 16 x 16 indices map onto [0, 256) row-major in
  // (b / 4 % 4, a, b % 4).
  const blocking_desc b = multi_level();
  std::vector<int> hits(256, 0);
  for (dim_t a = 0; a < 16; ++a) {
    for (dim_t c = 0; c < 16; ++c) {
      const dim_t off = offset_of(b, 4, {a, c, 0, 0});
      ASSERT_EQ(off, (c / 4 % 4) * 64 + a * 4 + c % 4);
      ++hits[off];
    }
  }
  for (int h : hits) EXPECT_EQ(h, 1);
}

}  // namespace
}  // namespace tessera
