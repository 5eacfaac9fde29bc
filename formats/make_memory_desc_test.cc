#include "tessera/formats/make_memory_desc.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/index.h"
#include "tessera/formats/internal/random_tag.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(MakeMemoryDesc, BlockedWithPadding) {
  absl::StatusOr<memory_desc> md = make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->kind(), format_kind::blocked);
  EXPECT_THAT(md->padded_dims(), ::testing::ElementsAre(2, 32, 3, 3));
  EXPECT_EQ(md->blocking().strides[0], 288);
  EXPECT_EQ(md->blocking().strides[1], 144);
  EXPECT_EQ(md->blocking().inner_nblks, 1);
  EXPECT_EQ(md->blocking().inner_blks[0], 16);
  EXPECT_EQ(md->blocking().inner_idxs[0], 1);
  EXPECT_EQ(md->size_bytes(), 2 * 32 * 3 * 3 * 4);
}

TEST(MakeMemoryDesc, DenseLikeKeepsBlocksAndOrderAndDropsGaps) {
  std::mt19937 rng(43);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + trial % 5;
    const tag_layout t = random_blocked_tag(rng, rank);
    std::vector<dim_t> dims(rank);
    for (dim_t& d : dims) d = 1 + rng() % 9;
    const memory_desc dense = *make_memory_desc(*make_layout(t, dims), data_type::f32);
    if (dense.size_bytes() > 4 * 40000) continue;
    // A view with gaps: a smaller submemory at the origin, which keeps the parent's strides.
    std::vector<dim_t> sub = dims, origin(rank, 0);
    const int d = static_cast<int>(rng() % rank);
    if (t.block_product(d) == 1 && dims[d] > 1) sub[d] = dims[d] - 1;
    const memory_desc like = *dense.submemory(sub, origin);
    absl::StatusOr<memory_desc> got = make_dense_like(like, data_type::bf16);
    ASSERT_TRUE(got.ok()) << got.status();
    const std::string what = to_string(t);
    EXPECT_EQ(got->dt(), data_type::bf16);
    EXPECT_TRUE(std::equal(got->dims().begin(), got->dims().end(), like.dims().begin()));
    EXPECT_TRUE(std::equal(got->padded_dims().begin(), got->padded_dims().end(),
                           like.padded_dims().begin()));
    const blocking_desc &g = got->blocking(), &l = like.blocking();
    EXPECT_EQ(g.inner_nblks, l.inner_nblks) << what;
    for (int k = 0; k < l.inner_nblks; ++k) {
      EXPECT_EQ(g.inner_blks[k], l.inner_blks[k]) << what;
      EXPECT_EQ(g.inner_idxs[k], l.inner_idxs[k]) << what;
    }
    // The order of the outer strides is like's, and the padded index space fills the buffer.
    for (int x = 0; x < rank; ++x) {
      for (int y = 0; y < rank; ++y) {
        if (l.strides[x] > l.strides[y]) EXPECT_GE(g.strides[x], g.strides[y]) << what;
      }
    }
    std::vector<char> hit(got->size_bytes() / 2, 0);
    std::vector<dim_t> padded(got->padded_dims().begin(), got->padded_dims().end());
    tessera::testing::for_each_index(padded, [&](absl::Span<const dim_t> i) {
      const dim_t off = got->offset(i);
      ASSERT_TRUE(off >= 0 && off < static_cast<dim_t>(hit.size()) && !hit[off]) << what;
      hit[off] = 1;
    });
    EXPECT_EQ(std::count(hit.begin(), hit.end(), 1), static_cast<dim_t>(hit.size())) << what;
    // A dense tag layout comes back unchanged, unless an outer part of size 1 ties its stride
    // with another dim's (the order of tied dims is the logical one, not the tag's).
    bool ties = false;
    for (int x = 0; x < rank; ++x) ties |= dense.padded_dims()[x] == t.block_product(x);
    if (!ties) EXPECT_EQ(*make_dense_like(dense, data_type::f32), dense) << what;
  }
}

TEST(MakeMemoryDesc, Any) {
  absl::StatusOr<memory_desc> md = make_memory_desc({2, 3}, data_type::s8, "any");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->kind(), format_kind::any);
}

TEST(MakeMemoryDesc, ErrorsNameTheBadValue) {
  auto msg = [](const absl::StatusOr<memory_desc>& m) { return std::string(m.status().message()); };
  EXPECT_THAT(msg(make_memory_desc({2, 3}, data_type::f32, "nchw")),
              HasSubstr("the tag has 4 dims, the dims have 2"));
  EXPECT_THAT(msg(make_memory_desc({2, 3, 4, 5}, data_type::f32, "nChw")),
              HasSubstr("format tag 'nChw' is invalid"));
  EXPECT_THAT(msg(make_memory_desc({2, -1}, data_type::f32, "ab")), HasSubstr("-1"));
  EXPECT_FALSE(make_memory_desc({dim_t{1} << 31, dim_t{1} << 31}, data_type::f64, "ab").ok());
  EXPECT_FALSE(make_memory_desc({1 << 20, 1 << 20, 1 << 20, 1 << 20}, data_type::f32, "abcd").ok());
}

}  // namespace
}  // namespace tessera
