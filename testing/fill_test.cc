#include "tessera/testing/fill.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/compare.h"
#include "tessera/testing/index.h"
#include "tessera/testing/internal/element_codec.h"

namespace tessera::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

memory_desc plain(std::vector<dim_t> dims, data_type dt, std::vector<dim_t> strides) {
  auto md = memory_desc::with_strides(dims, dt, strides);
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

// 2 x 17 x 3 x 3 in nChw16c: C padded to 32.
memory_desc nchw16c(data_type dt) {
  blocking_desc b;
  b.strides = {288, 144, 48, 16};
  b.inner_nblks = 1;
  b.inner_blks[0] = 16;
  b.inner_idxs[0] = 1;
  auto md = memory_desc::with_blocking({2, 17, 3, 3}, dt, b);
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

std::vector<uint8_t> buffer(const memory_desc& md, uint8_t byte = 0) {
  return std::vector<uint8_t>(md.size_bytes(), byte);
}

TEST(FillRandom, IsDeterministicAndSeeded) {
  const memory_desc md = plain({4, 5}, data_type::f32, {5, 1});
  auto a = buffer(md), b = buffer(md), c = buffer(md);
  ASSERT_TRUE(fill_random(md, a.data(), {.seed = 3}).ok());
  ASSERT_TRUE(fill_random(md, b.data(), {.seed = 3}).ok());
  ASSERT_TRUE(fill_random(md, c.data(), {.seed = 4}).ok());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(FillRandom, SameLogicalValuesInEveryLayout) {
  for (data_type dt : kAllDataTypes) {
    const memory_desc ab = plain({3, 7}, dt, {7, 1});
    const memory_desc ba = plain({3, 7}, dt, {1, 3});
    auto x = buffer(ab), y = buffer(ba);
    ASSERT_TRUE(fill_random(ab, x.data(), {.seed = 9}).ok());
    ASSERT_TRUE(fill_random(ba, y.data(), {.seed = 9}).ok());
    EXPECT_TRUE(bit_exact({ab, x.data()}, {ba, y.data()})) << name_of(dt);
  }
}

TEST(FillRandom, ValuesAreExactAndInTheDefaultRange) {
  for (data_type dt : kAllDataTypes) {
    SCOPED_TRACE(std::string(name_of(dt)));
    const memory_desc md = plain({64, 33}, dt, {33, 1});
    auto buf = buffer(md);
    ASSERT_TRUE(fill_random(md, buf.data()).ok());
    double lo = -16, hi = 16;
    if (dt == data_type::s32) lo = -(1 << 20), hi = 1 << 20;
    if (dt == data_type::s8) lo = -128, hi = 127;
    if (dt == data_type::u8) lo = 0, hi = 255;
    std::vector<double> seen;
    for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
      const double v = internal::read_element(dt, buf.data() + offset_of(md, idx) * bits_of(dt) / 8);
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, lo);
      ASSERT_LE(v, hi);
      seen.push_back(v);
    });
    std::sort(seen.begin(), seen.end());
    const auto distinct = std::unique(seen.begin(), seen.end()) - seen.begin();
    EXPECT_GT(distinct, dt == data_type::f8_e4m3 || dt == data_type::f8_e5m2 ? 40 : 200);
  }
}

TEST(FillRandom, HonoursACustomRange) {
  const memory_desc md = plain({1000}, data_type::s8, {1});
  auto buf = buffer(md);
  ASSERT_TRUE(fill_random(md, buf.data(), {.lo = -3, .hi = 3}).ok());
  std::vector<int> counts(7, 0);
  for (uint8_t byte : buf) {
    const int v = static_cast<int8_t>(byte);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    ++counts[v + 3];
  }
  for (int c : counts) EXPECT_GT(c, 0) << "every value of the range appears";
}

TEST(FillRandom, PaddingIsLeftAloneOrSetToTheByte) {
  const memory_desc md = nchw16c(data_type::f32);
  auto kept = buffer(md, 0x5A);
  ASSERT_TRUE(fill_random(md, kept.data()).ok());
  auto set = buffer(md, 0x5A);
  ASSERT_TRUE(fill_random(md, set.data(), {.padding_byte = 0}).ok());
  int64_t padding = 0;
  for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
    if (idx[1] < 17) return;
    ++padding;
    const int64_t at = offset_of(md, idx) * 4;
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(kept[at + i], 0x5A);
      ASSERT_EQ(set[at + i], 0);
    }
  });
  EXPECT_EQ(padding, 2 * 15 * 3 * 3);
  EXPECT_TRUE(padding_is_zero({md, set.data()}));
  EXPECT_FALSE(padding_is_zero({md, kept.data()}));
}

TEST(FillRandom, RejectsBadTargetsAndRanges) {
  const memory_desc md = plain({4}, data_type::f32, {1});
  float buf[4];
  absl::Status s = fill_random(memory_desc{}, buf);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = fill_random(md, nullptr);
  EXPECT_THAT(std::string(s.message()), HasSubstr("null"));
  s = fill_random(md, buf, {.lo = 2, .hi = 1});
  EXPECT_THAT(std::string(s.message()), HasSubstr("[2, 1]"));
  s = fill_random(md, buf, {.hi = INFINITY});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(ProbeValues, F32IntoS8HasTheSaturationEdgesAndTies) {
  const std::vector<double> v = probe_values(data_type::f32, data_type::s8);
  for (double x : {127.0, -128.0, 128.0, -129.0, 127.5, -128.5, 126.5, 0.5, -0.5, 1.5, 2.5, -2.5,
                   1024.0, -124.0, 0.0, double{INFINITY}, double{-INFINITY}}) {
    EXPECT_THAT(v, Contains(x)) << x;
  }
  EXPECT_THAT(v, Contains(static_cast<double>(std::nextafter(127.f, 200.f))));
  EXPECT_THAT(v, Contains(static_cast<double>(std::nextafter(-128.f, -200.f))));
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); }));
  EXPECT_THAT(v, Contains(static_cast<double>(std::numeric_limits<float>::denorm_min())));
}

TEST(ProbeValues, F32IntoF16HasOverflowTiesAndDenormals) {
  const std::vector<double> v = probe_values(data_type::f32, data_type::f16);
  for (double x : {65504.0, -65504.0, 65520.0, 65488.0, 1.0 + std::ldexp(1.0, -11),
                   1.0 + 3 * std::ldexp(1.0, -11), std::ldexp(1.0, -24), std::ldexp(1.0, -25),
                   std::ldexp(1.0, -14), 1024.0, -124.0}) {
    EXPECT_THAT(v, Contains(x)) << x;
  }
}

TEST(ProbeValues, EveryValueIsExactInTheSourceAndListedOnce) {
  for (data_type src : kAllDataTypes) {
    for (data_type dst : kAllDataTypes) {
      const std::vector<double> v = probe_values(src, dst);
      EXPECT_GE(v.size(), 5u) << name_of(src) << "->" << name_of(dst);
      for (size_t i = 0; i < v.size(); ++i) {
        EXPECT_TRUE(internal::representable(src, v[i])) << v[i];
        for (size_t j = 0; j < i; ++j) {
          const bool same = (std::isnan(v[i]) && std::isnan(v[j])) ||
                            (v[i] == v[j] && std::signbit(v[i]) == std::signbit(v[j]));
          EXPECT_FALSE(same) << v[i] << " twice for " << name_of(src) << "->" << name_of(dst);
        }
      }
    }
  }
  // An integer source holds only integers in its range.
  for (double x : probe_values(data_type::u8, data_type::s8)) {
    EXPECT_EQ(x, std::trunc(x));
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 255);
  }
  EXPECT_THAT(probe_values(data_type::u8, data_type::s8), Contains(128.0));
  // s32 into f32: the rounding of the first integers f32 cannot hold, and s32's extremes.
  const std::vector<double> s32_f32 = probe_values(data_type::s32, data_type::f32);
  for (double x : {16777217.0, 16777219.0, 2147483647.0, -2147483648.0}) {
    EXPECT_THAT(s32_f32, Contains(x)) << x;
  }
}

TEST(FillProbe, WritesTheValuesCyclicallyInLogicalOrder) {
  const memory_desc md = plain({5, 13}, data_type::bf16, {1, 5});  // column-major
  auto buf = buffer(md);
  ASSERT_TRUE(fill_probe(md, buf.data(), data_type::u8).ok());
  const std::vector<double> values = probe_values(data_type::bf16, data_type::u8);
  int64_t i = 0;
  for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
    const double got = internal::read_element(data_type::bf16, buf.data() + offset_of(md, idx) * 2);
    const double want = values[i++ % values.size()];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got));
    } else {
      EXPECT_EQ(got, want) << index_string(idx);
    }
  });
  EXPECT_EQ(fill_probe(md, buf.data(), data_type::undef).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::testing
