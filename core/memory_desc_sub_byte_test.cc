// memory_desc for the 4-bit types: sizes in bytes rounded up, element offsets (two per byte) and
// the layouts that would split a byte between the tensor and a gap.
#include <string>

#include "gtest/gtest.h"
#include "tessera/core/memory_desc.h"

namespace tessera {
namespace {

bool has(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(MemoryDescSubByte, SizesRoundUpToBytes) {
  for (data_type dt : {data_type::s4, data_type::u4, data_type::f4_e2m1, data_type::f4_e3m0}) {
    auto one = memory_desc::with_strides({1}, dt, {1});
    ASSERT_TRUE(one.ok()) << one.status();
    EXPECT_EQ(one->size_bytes(), 1);
    auto odd = memory_desc::with_strides({2, 2, 10, 2, 3}, dt, {120, 60, 6, 3, 1});  // abx
    ASSERT_TRUE(odd.ok()) << odd.status();
    EXPECT_EQ(odd->size_bytes(), 120);
    auto seven = memory_desc::with_strides({7}, dt, {1});
    ASSERT_TRUE(seven.ok());
    EXPECT_EQ(seven->size_bytes(), 4);
  }
  auto e8 = memory_desc::with_strides({7}, data_type::e8m0, {1});
  ASSERT_TRUE(e8.ok());
  EXPECT_EQ(e8->size_bytes(), 7);
}

TEST(MemoryDescSubByte, OffsetsAreElementOffsets) {
  auto md = memory_desc::with_strides({3, 5}, data_type::s4, {1, 3});  // "ba", odd stride, dense
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->offset({2, 1}), 5);  // byte 2, high nibble
  EXPECT_EQ(md->size_bytes(), 8);
}

TEST(MemoryDescSubByte, BlockedTagsWithPaddingAreLegal) {
  // aBx16b on 2x56x14x14: dim 1 padded to 64; gap-free with its padding.
  blocking_desc b;
  b.inner_nblks = 1;
  b.inner_blks[0] = 16;
  b.inner_idxs[0] = 1;
  b.strides = {64 * 14 * 14, 16 * 14 * 14, 14 * 16, 16};
  auto md = memory_desc::with_blocking({2, 56, 14, 14}, data_type::u4, b);
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->size_bytes(), 2 * 64 * 14 * 14 / 2);
}

TEST(MemoryDescSubByte, GapsNeedEvenStridesAndRuns) {
  EXPECT_TRUE(memory_desc::with_strides({2, 4}, data_type::s4, {6, 1}).ok());
  const absl::Status odd_stride = memory_desc::with_strides({2, 4}, data_type::s4, {5, 1}).status();
  EXPECT_TRUE(has(odd_stride, "s4 dim 0 has odd stride 5")) << odd_stride;
  const absl::Status odd_run = memory_desc::with_strides({2, 3}, data_type::u4, {4, 1}).status();
  EXPECT_TRUE(has(odd_run, "contiguous runs of 3 elements")) << odd_run;
  const absl::Status every_other = memory_desc::with_strides({4}, data_type::f4_e2m1, {2}).status();
  EXPECT_TRUE(has(every_other, "runs of 1 elements")) << every_other;
  // The same strides on a byte type are fine.
  EXPECT_TRUE(memory_desc::with_strides({2, 3}, data_type::s8, {5, 1}).ok());
}

TEST(MemoryDescSubByte, ViewsMustKeepTheirBytes) {
  auto parent = memory_desc::with_strides({4, 6}, data_type::s4, {6, 1});
  ASSERT_TRUE(parent.ok());
  EXPECT_TRUE(parent->submemory({2, 4}, {2, 2}).ok());
  const absl::Status odd_start = parent->submemory({2, 2}, {0, 1}).status();
  EXPECT_TRUE(has(odd_start, "element offset 1")) << odd_start;
  auto odd_parent = memory_desc::with_strides({4, 3}, data_type::u4, {3, 1});
  ASSERT_TRUE(odd_parent.ok()) << odd_parent.status();  // dense: odd stride allowed
  const absl::Status view = odd_parent->submemory({2, 2}, {2, 0}).status();
  EXPECT_TRUE(has(view, "dim 0 has odd stride 3")) << view;
}

}  // namespace
}  // namespace tessera
