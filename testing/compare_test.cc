#include "tessera/testing/compare.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"

namespace tessera::testing {
namespace {

using ::testing::HasSubstr;

memory_desc plain(std::vector<dim_t> dims, data_type dt, std::vector<dim_t> strides) {
  auto md = memory_desc::with_strides(dims, dt, strides);
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

memory_desc blocked(std::vector<dim_t> dims, data_type dt, std::vector<dim_t> strides,
                    std::vector<std::pair<int, dim_t>> blocks) {
  blocking_desc b;
  for (size_t d = 0; d < strides.size(); ++d) b.strides[d] = strides[d];
  b.inner_nblks = static_cast<int>(blocks.size());
  for (size_t k = 0; k < blocks.size(); ++k) {
    b.inner_idxs[k] = blocks[k].first;
    b.inner_blks[k] = blocks[k].second;
  }
  auto md = memory_desc::with_blocking(dims, dt, b);
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

std::string message(const ::testing::AssertionResult& r) { return r.message(); }

TEST(ForEachIndex, WalksRowMajorAndHandlesEdges) {
  std::vector<std::string> seen;
  for_each_index(std::vector<dim_t>{2, 3}, [&](absl::Span<const dim_t> i) {
    seen.push_back(index_string(i));
  });
  EXPECT_THAT(seen, ::testing::ElementsAre("[0,0]", "[0,1]", "[0,2]", "[1,0]", "[1,1]", "[1,2]"));
  int calls = 0;
  for_each_index(std::vector<dim_t>{4, 0, 2}, [&](absl::Span<const dim_t>) { ++calls; });
  EXPECT_EQ(calls, 0);
  for_each_index(std::vector<dim_t>{}, [&](absl::Span<const dim_t> i) {
    ++calls;
    EXPECT_TRUE(i.empty());
  });
  EXPECT_EQ(calls, 1);
  int64_t count = 0, last = -1;
  const std::vector<dim_t> dims{3, 1, 4, 2};
  for_each_index(dims, [&](absl::Span<const dim_t> i) {
    EXPECT_EQ(linear_index(dims, i), last + 1);
    last = linear_index(dims, i);
    ++count;
  });
  EXPECT_EQ(count, 24);
}

// offset_of (testing's own statement of the layout formula) agrees with memory_desc::offset.
TEST(OffsetOf, AgreesWithMemoryDesc) {
  const std::vector<memory_desc> descs = {
      plain({2, 3, 4}, data_type::f32, {12, 4, 1}),
      plain({2, 3, 4}, data_type::f32, {1, 2, 6}),
      plain({2, 3, 4}, data_type::bf16, {100, 20, 3}),
      blocked({2, 17, 3, 3}, data_type::f32, {288, 144, 48, 16}, {{1, 16}}),     // nChw16c
      blocked({20, 10, 3}, data_type::s8, {960, 48, 16}, {{1, 4}, {0, 4}}),      // aBc4b4a-like
      blocked({5, 7}, data_type::u8, {8, 64}, {{0, 8}}),                          // Ab8a-ish
  };
  for (const memory_desc& md : descs) {
    for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
      ASSERT_EQ(offset_of(md, idx), md.offset(idx)) << index_string(idx);
    });
  }
  const memory_desc sub = *descs[0].submemory({1, 2, 2}, {1, 1, 2});
  for_each_index(sub.dims(), [&](absl::Span<const dim_t> idx) {
    ASSERT_EQ(offset_of(sub, idx), sub.offset(idx)) << index_string(idx);
  });
}

TEST(BitExact, PassesAcrossLayoutsAndExplainsMismatches) {
  const memory_desc ab = plain({3, 4}, data_type::f32, {4, 1});
  const memory_desc ba = plain({3, 4}, data_type::f32, {1, 3});
  std::vector<float> x(12), y(12);
  ASSERT_TRUE(fill_random(ab, x.data()).ok());
  ASSERT_TRUE(fill_random(ba, y.data()).ok());
  EXPECT_TRUE(bit_exact({ab, x.data()}, {ba, y.data()}));

  y[2 * 3 + 1] = 1.5f;  // logical [1,2] in "ba"
  const auto r = bit_exact({ab, x.data()}, {ba, y.data()});
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("1 of 12 elements differ"));
  EXPECT_THAT(message(r), HasSubstr("at [1,2]"));
  EXPECT_THAT(message(r), HasSubstr("want 1.5 (0x3fc00000)"));
}

TEST(BitExact, TellsNegativeZeroAndNanPayloadsApart) {
  const memory_desc md = plain({2}, data_type::f32, {1});
  float a[2] = {0.f, std::numeric_limits<float>::quiet_NaN()};
  float b[2] = {-0.f, std::numeric_limits<float>::quiet_NaN()};
  const auto r = bit_exact({md, a}, {md, b});
  EXPECT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("1 of 2"));
}

TEST(BitExact, RejectsDifferentDimsOrTypes) {
  float a[6] = {}, b[6] = {};
  const auto r1 = bit_exact({plain({2, 3}, data_type::f32, {3, 1}), a},
                            {plain({3, 2}, data_type::f32, {2, 1}), b});
  EXPECT_THAT(message(r1), HasSubstr("dims differ: got 2x3, want 3x2"));
  const auto r2 = bit_exact({plain({6}, data_type::f32, {1}), a}, {plain({6}, data_type::s32, {1}), b});
  EXPECT_THAT(message(r2), HasSubstr("got f32, want s32"));
}

TEST(BitExact, ReportsAtMostMaxReportMismatches) {
  const memory_desc md = plain({100}, data_type::s8, {1});
  std::vector<int8_t> a(100, 0), b(100, 1);
  const auto r = bit_exact({md, a.data()}, {md, b.data()}, 3);
  EXPECT_THAT(message(r), HasSubstr("100 of 100"));
  EXPECT_THAT(message(r), HasSubstr("at [2]"));
  EXPECT_THAT(message(r), ::testing::Not(HasSubstr("at [3]")));
  EXPECT_THAT(message(r), HasSubstr("..."));
}

TEST(Near, AbsoluteRelativeAndUlp) {
  const memory_desc md = plain({1}, data_type::f32, {1});
  float got = 1.001f, want = 1.f;
  EXPECT_FALSE(near({md, &got}, {md, &want}, {}));
  EXPECT_TRUE(near({md, &got}, {md, &want}, {.abs = 2e-3}));
  EXPECT_FALSE(near({md, &got}, {md, &want}, {.abs = 5e-4}));
  EXPECT_TRUE(near({md, &got}, {md, &want}, {.rel = 2e-3}));
  EXPECT_FALSE(near({md, &got}, {md, &want}, {.rel = 5e-4}));
  got = std::nextafter(std::nextafter(1.f, 2.f), 2.f);
  EXPECT_TRUE(near({md, &got}, {md, &want}, {.ulp = 2}));
  EXPECT_FALSE(near({md, &got}, {md, &want}, {.ulp = 1}));
}

TEST(Near, SpecialValues) {
  const memory_desc md = plain({1}, data_type::f32, {1});
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const float big = std::numeric_limits<float>::max(), one = 1.f;
  const tolerance loose{.abs = 1e30, .rel = 1, .ulp = 1000};
  EXPECT_TRUE(near({md, const_cast<float*>(&inf)}, {md, const_cast<float*>(&inf)}, {}));
  EXPECT_FALSE(near({md, const_cast<float*>(&inf)}, {md, const_cast<float*>(&big)}, loose));
  EXPECT_TRUE(near({md, const_cast<float*>(&nan)}, {md, const_cast<float*>(&nan)}, {}));
  EXPECT_FALSE(near({md, const_cast<float*>(&nan)}, {md, const_cast<float*>(&one)}, loose));
  EXPECT_FALSE(near({md, const_cast<float*>(&one)}, {md, const_cast<float*>(&nan)}, loose));
}

TEST(Near, ComparesAcrossTypesButNotInUlps) {
  const memory_desc f = plain({2}, data_type::f32, {1});
  const memory_desc d = plain({2}, data_type::f64, {1});
  float a[2] = {0.1f, 2.f};
  double b[2] = {0.1, 2.0};
  EXPECT_FALSE(near({f, a}, {d, b}, {}));
  EXPECT_TRUE(near({f, a}, {d, b}, {.rel = 1e-7}));
  EXPECT_THAT(message(near({f, a}, {d, b}, {.ulp = 1})), HasSubstr("f32 and f64"));
}

TEST(PaddingIsZero, FindsNonZeroPadding) {
  const memory_desc md = blocked({2, 17, 3, 3}, data_type::f32, {288, 144, 48, 16}, {{1, 16}});
  std::vector<uint8_t> buf(md.size_bytes(), 0);
  ASSERT_TRUE(fill_random(md, buf.data()).ok());
  EXPECT_TRUE(padding_is_zero({md, buf.data()}));
  const std::vector<dim_t> idx{1, 20, 2, 1};
  buf[offset_of(md, idx) * 4 + 3] = 0x80;  // -0.f is not zero bytes
  const auto r = padding_is_zero({md, buf.data()});
  ASSERT_FALSE(r);
  EXPECT_THAT(message(r), HasSubstr("padding at [1,20,2,1]"));
  EXPECT_THAT(message(r), HasSubstr("1 padding elements"));
}

TEST(PaddingIsZero, PlainLayoutsHaveNoPadding) {
  const memory_desc md = plain({3, 3}, data_type::f32, {3, 1});
  std::vector<float> buf(9, 7.f);
  EXPECT_TRUE(padding_is_zero({md, buf.data()}));
}

TEST(GuardedBuffer, DetectsWritesJustOutside) {
  guarded_buffer buf(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf.data()) % 64, 0u);
  auto* p = static_cast<uint8_t*>(buf.data());
  std::memset(p, 0, 100);
  EXPECT_TRUE(buf.guards_intact());
  p[100] = 0;
  const auto after = buf.guards_intact();
  EXPECT_FALSE(after);
  EXPECT_THAT(message(after), HasSubstr("byte 0 after the end of the 100-byte buffer"));
  p[100] = 0xA5;
  EXPECT_TRUE(buf.guards_intact());
  p[-3] = 1;
  EXPECT_THAT(message(buf.guards_intact()), HasSubstr("byte -3 before"));
}

TEST(GuardedBuffer, ZeroSizeStillHasGuards) {
  guarded_buffer buf(0, 16, 0x11);
  EXPECT_EQ(buf.size(), 0);
  EXPECT_TRUE(buf.guards_intact());
  static_cast<uint8_t*>(buf.data())[0] = 0;
  EXPECT_FALSE(buf.guards_intact());
}

}  // namespace
}  // namespace tessera::testing
