// memory_desc's extra fields: buffer sizes and offsets, equality and hashing, and each rejection.
#include <cmath>
#include <limits>
#include <string>

#include "absl/hash/hash_testing.h"
#include "gtest/gtest.h"
#include "tessera/core/memory_desc.h"
#include "tessera/core/memory_extra.h"

namespace tessera {
namespace {

memory_desc plain_s8(std::initializer_list<dim_t> dims, std::initializer_list<dim_t> strides) {
  return *memory_desc::with_strides(dims, data_type::s8, strides);
}

memory_extra extra_of(uint64_t flags, int s8_mask, int zp_mask) {
  memory_extra e;
  e.flags = flags;
  e.compensation_mask = s8_mask;
  e.asymm_compensation_mask = zp_mask;
  return e;
}

TEST(MemoryExtra, NoFlagsKeepsTheSize) {
  const memory_desc md = plain_s8({3, 5}, {5, 1});
  const memory_desc same = *md.with_extra(memory_extra{});
  EXPECT_EQ(same.size_bytes(), 15);
  EXPECT_EQ(same, md);
  EXPECT_EQ(same.s8s8_compensation_offset_bytes(), -1);
  EXPECT_EQ(same.zp_compensation_offset_bytes(), -1);
}

TEST(MemoryExtra, BuffersFollowTheDataRoundedToFourBytes) {
  const memory_desc md = plain_s8({3, 5}, {5, 1});  // 15 bytes of data
  const memory_desc s8 = *md.with_extra(extra_of(extra_flags::compensation_conv_s8s8, 1, 0));
  EXPECT_EQ(s8.data_size_bytes(), 15);
  EXPECT_EQ(s8.s8s8_compensation_offset_bytes(), 16);
  EXPECT_EQ(s8.size_bytes(), 16 + 3 * 4);

  const memory_desc zp = *md.with_extra(extra_of(extra_flags::compensation_conv_asymmetric_src, 0, 2));
  EXPECT_EQ(zp.zp_compensation_offset_bytes(), 16);
  EXPECT_EQ(zp.size_bytes(), 16 + 5 * 4);

  const memory_desc both = *md.with_extra(
      extra_of(extra_flags::compensation_conv_s8s8 | extra_flags::compensation_conv_asymmetric_src, 3, 1));
  EXPECT_EQ(both.s8s8_compensation_offset_bytes(), 16);
  EXPECT_EQ(both.zp_compensation_offset_bytes(), 16 + 15 * 4);
  EXPECT_EQ(both.size_bytes(), 16 + 15 * 4 + 3 * 4);
}

TEST(MemoryExtra, BuffersCountPaddedDims) {
  blocking_desc b;  // 17x3 "Ab16a": dim 0 padded to 32
  b.strides = {16 * 3, 16};
  b.inner_nblks = 1;
  b.inner_blks = {16};
  b.inner_idxs = {0};
  const memory_desc md = *memory_desc::with_blocking({17, 3}, data_type::s8, b);
  const memory_desc s8 = *md.with_extra(extra_of(extra_flags::compensation_conv_s8s8, 1, 0));
  EXPECT_EQ(s8.size_bytes(), 32 * 3 + 32 * 4);
}

// An "Abcd4a" 3x2x2x3 dst with mask 3: the buffer is laid out "Ab4a" over (3, 2), padded (4, 2).
TEST(MemoryExtra, CompensationDescKeepsTheMaskedDimsLayout) {
  blocking_desc b;
  b.strides = {2 * 2 * 3 * 4, 2 * 3 * 4, 3 * 4, 4};
  b.inner_nblks = 1;
  b.inner_blks = {4};
  b.inner_idxs = {0};
  const memory_desc md = *memory_desc::with_blocking({3, 2, 2, 3}, data_type::s8, b);
  const memory_desc c = md.compensation_desc(3);
  ASSERT_EQ(c.rank(), 2);
  EXPECT_EQ(c.dt(), data_type::s32);
  EXPECT_EQ(c.offset({0, 0}), 0);
  EXPECT_EQ(c.offset({1, 0}), 1);
  EXPECT_EQ(c.offset({0, 1}), 4);
  EXPECT_EQ(c.offset({2, 1}), 6);
  EXPECT_EQ(c.size_bytes(), 4 * 2 * 4);
  // A plain "dcab" dst with mask 3 gives "ab"; mask 0 one value.
  const memory_desc dcab = *memory_desc::with_strides({2, 3, 4, 5}, data_type::s8, {4, 8, 1, 24});
  const memory_desc ab = dcab.compensation_desc(3);
  EXPECT_EQ(ab.offset({1, 2}), 1 * 3 + 2);
  EXPECT_EQ(dcab.compensation_desc(0).rank(), 0);
}

TEST(MemoryExtra, EqualityAndHashIncludeTheUsedFields) {
  const memory_desc md = plain_s8({4, 6}, {6, 1});
  const memory_desc s1 = *md.with_extra(extra_of(extra_flags::compensation_conv_s8s8, 1, 0));
  const memory_desc s1_unused_zp = *md.with_extra(extra_of(extra_flags::compensation_conv_s8s8, 1, 3));
  const memory_desc s2 = *md.with_extra(extra_of(extra_flags::compensation_conv_s8s8, 2, 0));
  const memory_desc z1 = *md.with_extra(extra_of(extra_flags::compensation_conv_asymmetric_src, 0, 1));
  memory_extra adjusted = extra_of(extra_flags::compensation_conv_s8s8 | extra_flags::scale_adjust, 1, 0);
  adjusted.scale_adjust = 0.5f;
  const memory_desc sa = *md.with_extra(adjusted);
  EXPECT_EQ(s1, s1_unused_zp);
  EXPECT_NE(s1, s2);
  EXPECT_NE(s1, z1);
  EXPECT_NE(s1, sa);
  EXPECT_NE(s1, md);
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({md, s1, s1_unused_zp, s2, z1, sa}));
}

TEST(MemoryExtra, TextNamesFlagsAndMasks) {
  EXPECT_EQ(extra_string(memory_extra{}), "f0");
  memory_extra e = extra_of(extra_flags::compensation_conv_s8s8 | extra_flags::compensation_conv_asymmetric_src |
                                extra_flags::scale_adjust, 1, 3);
  e.scale_adjust = 0.5f;
  EXPECT_EQ(extra_string(e), "f11:s8m1:zpm3:sa0.5");
}

std::string error_of(const memory_desc& md, const memory_extra& e) {
  auto r = md.with_extra(e);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(MemoryExtra, RejectsMasksThatDoNotFit) {
  const memory_desc md = plain_s8({4, 6}, {6, 1});
  EXPECT_NE(error_of(md, extra_of(extra_flags::compensation_conv_s8s8, 4, 0)).find("compensation_mask 4"),
            std::string::npos);
  EXPECT_NE(error_of(md, extra_of(extra_flags::compensation_conv_asymmetric_src, 0, -1))
                .find("asymm_compensation_mask -1"),
            std::string::npos);
}

TEST(MemoryExtra, RejectsUnknownFlagsAndBadScaleAdjust) {
  const memory_desc md = plain_s8({4, 6}, {6, 1});
  EXPECT_NE(error_of(md, extra_of(0x4, 0, 0)).find("flags 0x4"), std::string::npos);
  memory_extra e = extra_of(extra_flags::scale_adjust, 0, 0);
  e.scale_adjust = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(error_of(md, e).find("scale_adjust"), std::string::npos);
  e.scale_adjust = 0.0f;
  EXPECT_NE(error_of(md, e).find("scale_adjust 0"), std::string::npos);
}

TEST(MemoryExtra, RejectsCompensationOnPatternsAndAny) {
  const memory_desc any = *memory_desc::any({4, 6}, data_type::s8);
  EXPECT_NE(error_of(any, extra_of(extra_flags::compensation_conv_s8s8, 1, 0)).find("blocked"), std::string::npos);
  const memory_desc pattern = *memory_desc::with_strides({kRuntimeDim, 6}, data_type::s8, {6, 1});
  EXPECT_NE(error_of(pattern, extra_of(extra_flags::compensation_conv_s8s8, 1, 0)).find("run-time"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
