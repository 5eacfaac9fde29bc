#include "tessera/testing/onednn.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/compare.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"
#include "tessera/testing/internal/element_codec.h"

namespace tessera::testing {
namespace {

using ::testing::HasSubstr;
using tag = dnnl::memory::format_tag;
using ddt = dnnl::memory::data_type;

memory_desc plain(std::vector<dim_t> dims, data_type dt, std::vector<dim_t> strides) {
  auto md = memory_desc::with_strides(dims, dt, strides);
  EXPECT_TRUE(md.ok()) << md.status();
  return *md;
}

// Field-by-field equality of the C structs (the fields our bridge owns).
::testing::AssertionResult same_dnnl(const dnnl::memory::desc& a, const dnnl::memory::desc& b) {
  const dnnl_memory_desc_t &x = a.data, &y = b.data;
  if (x.ndims != y.ndims || x.data_type != y.data_type || x.format_kind != y.format_kind ||
      x.offset0 != y.offset0) {
    return ::testing::AssertionFailure() << "ndims/data_type/format_kind/offset0 differ";
  }
  for (int d = 0; d < x.ndims; ++d) {
    if (x.dims[d] != y.dims[d] || x.padded_dims[d] != y.padded_dims[d] ||
        x.padded_offsets[d] != y.padded_offsets[d] ||
        x.format_desc.blocking.strides[d] != y.format_desc.blocking.strides[d]) {
      return ::testing::AssertionFailure() << "dim " << d << " differs";
    }
  }
  const auto &bx = x.format_desc.blocking, &by = y.format_desc.blocking;
  if (bx.inner_nblks != by.inner_nblks) return ::testing::AssertionFailure() << "inner_nblks";
  for (int k = 0; k < bx.inner_nblks; ++k) {
    if (bx.inner_blks[k] != by.inner_blks[k] || bx.inner_idxs[k] != by.inner_idxs[k]) {
      return ::testing::AssertionFailure() << "inner block " << k;
    }
  }
  return ::testing::AssertionSuccess() << (a == b ? "" : "(dnnl operator== disagrees)");
}

struct tagged {
  std::vector<dim_t> dims;
  tag t;
};

// oneDNN's own tags -> Tessera -> oneDNN: the same descriptor, the same size, the same offsets.
TEST(OnednnBridge, RoundTripsOneDnnTags) {
  const std::vector<tagged> cases = {
      {{2, 3, 4, 5}, tag::nchw},      {{2, 3, 4, 5}, tag::nhwc},     {{2, 17, 3, 3}, tag::nChw16c},
      {{2, 17, 3, 3}, tag::nChw8c},   {{1, 5, 2, 2}, tag::nChw4c},   {{20, 13, 3, 3}, tag::OIhw16i16o},
      {{7, 9}, tag::ba},              {{5, 30, 7}, tag::aBc16b},     {{33, 17, 2, 2}, tag::OIhw4i16o4i},
  };
  for (const tagged& c : cases) {
    for (ddt dt : {ddt::f32, ddt::bf16, ddt::s8}) {
      const dnnl::memory::desc want(c.dims, dt, c.t);
      absl::StatusOr<memory_desc> md = from_dnnl(want);
      ASSERT_TRUE(md.ok()) << md.status();
      EXPECT_EQ(md->size_bytes(), static_cast<int64_t>(want.get_size()));
      absl::StatusOr<dnnl::memory::desc> back = to_dnnl(*md);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE(same_dnnl(*back, want)) << static_cast<int>(c.t);
      EXPECT_TRUE(*back == want);
    }
  }
}

TEST(OnednnBridge, StridedAndSubmemoryDescsMatchOneDnn) {
  const memory_desc md = plain({4, 6, 5}, data_type::f32, {64, 8, 1});
  const dnnl::memory::desc want({4, 6, 5}, ddt::f32, dnnl::memory::dims{64, 8, 1});
  EXPECT_TRUE(same_dnnl(*to_dnnl(md), want));
  EXPECT_EQ(*from_dnnl(want), md);

  // offset0 goes one way only (see onednn.h): compare against oneDNN's own submemory.
  const memory_desc sub = *md.submemory({2, 3, 5}, {1, 2, 0});
  const dnnl::memory::desc dsub = want.submemory_desc({2, 3, 5}, {1, 2, 0});
  EXPECT_TRUE(same_dnnl(*to_dnnl(sub), dsub));
  EXPECT_NE(sub.offset0(), 0);
  EXPECT_EQ(from_dnnl(dsub).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(OnednnBridge, AnyAndEmptyDescs) {
  const memory_desc any = *memory_desc::any({3, 4}, data_type::bf16);
  const dnnl::memory::desc d = *to_dnnl(any);
  EXPECT_EQ(d.data.format_kind, dnnl_format_kind_any);
  EXPECT_EQ(*from_dnnl(d), any);
  EXPECT_EQ(to_dnnl(memory_desc{})->data.ndims, 0);
  EXPECT_EQ(*from_dnnl(dnnl::memory::desc()), memory_desc{});
}

TEST(OnednnBridge, TypesOneDnn263LacksAreClearErrors) {
  for (data_type dt : {data_type::f64, data_type::f8_e5m2, data_type::f8_e4m3}) {
    absl::StatusOr<dnnl::memory::desc> d = to_dnnl(plain({2}, dt, {1}));
    EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(d.status().message()), HasSubstr(std::string(name_of(dt))));
  }
}

// oneDNN's reorder agrees with a logical copy (the fill gives the same logical values in every
// layout), including a blocked destination whose padding it zeroes.
TEST(OnednnReorder, PlainToBlockedIsALogicalCopy) {
  const dnnl::memory::desc blocked_d({2, 17, 3, 3}, ddt::f32, tag::nChw16c);
  const memory_desc dst_md = *from_dnnl(blocked_d);
  const memory_desc src_md = plain({2, 17, 3, 3}, data_type::f32, {153, 9, 3, 1});
  std::vector<float> src(src_md.size_bytes() / 4), want(dst_md.size_bytes() / 4, 0.f);
  guarded_buffer dst(dst_md.size_bytes());
  std::memset(dst.data(), 0x7f, dst.size());
  ASSERT_TRUE(fill_random(src_md, src.data(), {.seed = 5}).ok());
  ASSERT_TRUE(fill_random(dst_md, want.data(), {.seed = 5}).ok());
  ASSERT_TRUE(onednn_reorder({{arg::src, {src_md, src.data()}}, {arg::dst, {dst_md, dst.data()}}}).ok());
  EXPECT_TRUE(bit_exact({dst_md, dst.data()}, {dst_md, want.data()}));
  EXPECT_TRUE(padding_is_zero({dst_md, dst.data()}));
  EXPECT_TRUE(dst.guards_intact());
}

TEST(OnednnReorder, OutputScalesZeroPointsAndSum) {
  const memory_desc s8 = plain({4, 8}, data_type::s8, {8, 1});
  const memory_desc f32 = plain({4, 8}, data_type::f32, {1, 4});
  std::vector<int8_t> src(32);
  ASSERT_TRUE(fill_random(s8, src.data(), {.lo = -100, .hi = 100}).ok());
  std::vector<float> dst(32, 0.f);
  int32_t zp = 3;
  const memory zp_mem{plain({1}, data_type::s32, {1}), &zp};

  primitive_attr attr;
  attr.oscale = output_scales{.mask = 0, .values = {0.5f}};
  attr.src_zero_points = quant_param{.mask = 0};
  ASSERT_TRUE(onednn_reorder({{arg::src, {s8, src.data()}},
                              {arg::dst, {f32, dst.data()}},
                              {arg::src_zero_points, zp_mem}},
                             attr)
                  .ok());
  for_each_index(s8.dims(), [&](absl::Span<const dim_t> i) {
    const double want = 0.5 * (src[offset_of(s8, i)] - zp);
    EXPECT_EQ(dst[offset_of(f32, i)], want) << index_string(i);
  });

  // sum: dst = oscale * src + beta * dst_before.
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 2.f};
  std::vector<float> before = dst;
  ASSERT_TRUE(onednn_reorder({{arg::src, {s8, src.data()}}, {arg::dst, {f32, dst.data()}}}, sum).ok());
  for_each_index(s8.dims(), [&](absl::Span<const dim_t> i) {
    const double want = src[offset_of(s8, i)] + 2.0 * before[offset_of(f32, i)];
    EXPECT_EQ(dst[offset_of(f32, i)], want) << index_string(i);
  });
}

TEST(OnednnReorder, ErrorsAreStatuses) {
  const memory_desc md = plain({4}, data_type::f32, {1});
  float a[4] = {}, b[4] = {};
  primitive_attr attr;
  attr.src_scales = quant_param{};
  EXPECT_EQ(onednn_reorder({{arg::src, {md, a}}, {arg::dst, {md, b}}}, attr).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(onednn_reorder({{arg::src, {md, a}}}).message()), HasSubstr("dst"));
  attr = {};
  attr.src_zero_points = quant_param{};
  EXPECT_THAT(std::string(onednn_reorder({{arg::src, {md, a}}, {arg::dst, {md, b}}}, attr).message()),
              HasSubstr("src_zero_points"));
  // Mismatched dims: oneDNN refuses; the bridge turns its exception into a status.
  const memory_desc other = plain({5}, data_type::f32, {1});
  float c[5] = {};
  EXPECT_FALSE(onednn_reorder({{arg::src, {md, a}}, {arg::dst, {other, c}}}).ok());
}

// Softmax against a double-precision reference written here.
TEST(OnednnSoftmax, ForwardAndBackwardMatchTheDefinition) {
  const std::vector<dim_t> dims{3, 5, 4};
  const int axis = 1;
  const memory_desc md = plain(dims, data_type::f32, {20, 4, 1});
  std::vector<float> src(60), dst(60), logdst(60), diff_dst(60), diff_src(60), diff_src_log(60);
  ASSERT_TRUE(fill_random(md, src.data(), {.seed = 1, .lo = -4, .hi = 4}).ok());
  ASSERT_TRUE(fill_random(md, diff_dst.data(), {.seed = 2, .lo = -1, .hi = 1}).ok());
  ASSERT_TRUE(onednn_softmax_forward({md, src.data()}, {md, dst.data()}, axis, false).ok());
  ASSERT_TRUE(onednn_softmax_forward({md, src.data()}, {md, logdst.data()}, axis, true).ok());
  ASSERT_TRUE(onednn_softmax_backward({md, dst.data()}, {md, diff_dst.data()},
                                      {md, diff_src.data()}, axis, false).ok());
  ASSERT_TRUE(onednn_softmax_backward({md, logdst.data()}, {md, diff_dst.data()},
                                      {md, diff_src_log.data()}, axis, true).ok());
  for (int n = 0; n < 3; ++n) {
    for (int w = 0; w < 4; ++w) {
      auto at = [&](int c) { return n * 20 + c * 4 + w; };
      double mx = -INFINITY, sum = 0, dot = 0, dsum = 0;
      for (int c = 0; c < 5; ++c) mx = std::max(mx, double{src[at(c)]});
      for (int c = 0; c < 5; ++c) sum += std::exp(src[at(c)] - mx);
      for (int c = 0; c < 5; ++c) {
        const double y = std::exp(src[at(c)] - mx) / sum;
        EXPECT_NEAR(dst[at(c)], y, 1e-6);
        EXPECT_NEAR(logdst[at(c)], src[at(c)] - mx - std::log(sum), 1e-5);
        dot += double{diff_dst[at(c)]} * dst[at(c)];
        dsum += diff_dst[at(c)];
      }
      for (int c = 0; c < 5; ++c) {
        EXPECT_NEAR(diff_src[at(c)], dst[at(c)] * (diff_dst[at(c)] - dot), 1e-6);
        EXPECT_NEAR(diff_src_log[at(c)], diff_dst[at(c)] - std::exp(logdst[at(c)]) * dsum, 1e-5);
      }
    }
  }
}

TEST(OnednnSoftmax, BadAxisIsAStatus) {
  const memory_desc md = plain({2, 3}, data_type::f32, {3, 1});
  float a[6] = {}, b[6] = {};
  EXPECT_FALSE(onednn_softmax_forward({md, a}, {md, b}, 5, false).ok());
}

}  // namespace
}  // namespace tessera::testing
