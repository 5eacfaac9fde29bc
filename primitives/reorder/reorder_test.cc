// The public API: errors (named, destination untouched), creation through the cache, the chosen
// implementation and the declined list, verbose lines, reorder_typed, offset0.
#include "tessera/primitives/reorder/reorder.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/simd/isa.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  absl::StatusOr<memory_desc> m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << m.status();
  return *m;
}

memory_desc scalar_f32() { return *memory_desc::with_strides({1}, data_type::f32, {1}); }

TEST(Reorder, DimsMismatchIsNamed) {
  auto r = reorder::create(md({2, 3}, data_type::f32, "ab"), md({2, 4}, data_type::f32, "ab"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("dims mismatch: src 2x3 vs dst 2x4"));
}

TEST(Reorder, AnyLayoutIsRejected) {
  auto any = *memory_desc::any({2, 3}, data_type::f32);
  auto r = reorder::create(md({2, 3}, data_type::f32, "ab"), any);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("format_kind any"));
}

TEST(Reorder, QuantTypesGroupsAndSumZeroPointOnFloat) {
  primitive_attr a;
  a.src_zero_points = quant_param{.mask = 0, .dt = data_type::f32};
  auto r = reorder::create(md({4}, data_type::f32, "a"), md({4}, data_type::s8, "a"), a);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("src_zero_points of type f32: zero points are s32, s8 or u8"));
  primitive_attr b;
  b.dst_scales = quant_param{.mask = 0, .dt = data_type::s8};
  r = reorder::create(md({4}, data_type::s8, "a"), md({4}, data_type::bf16, "a"), b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("dst_scales of type s8"));
  primitive_attr g;
  g.src_scales = quant_param{.mask = 3, .groups = {1, 3}};
  r = reorder::create(md({2, 4}, data_type::s8, "ab"), md({2, 4}, data_type::f32, "ab"), g);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("src_scales group 3 on dim 1 (size 4) does not divide the dim"));
  g.src_scales = quant_param{.mask = 1, .groups = {1, 2}};
  r = reorder::create(md({2, 4}, data_type::s8, "ab"), md({2, 4}, data_type::f32, "ab"), g);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("group 2 on dim 1 (size 4) is on a dim outside"));
  primitive_attr c;
  c.sum = sum_post_op{.beta = 1.f, .zero_point = 2};
  r = reorder::create(md({4}, data_type::s8, "a"), md({4}, data_type::f32, "a"), c);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("sum zero point 2 on a f32 dst"));
}

// oneDNN 3.x: zero points apply to floating sides as well, in the formula's f32 arithmetic,
// and may be given as s8 or u8.
TEST(Reorder, ZeroPointsOnFloatSidesAndNarrowTypes) {
  primitive_attr a;
  a.src_zero_points = quant_param{.mask = 0, .dt = data_type::s8};
  a.dst_zero_points = quant_param{.mask = 1, .dt = data_type::u8};
  const memory_desc s = md({4}, data_type::f32, "a"), d = md({4}, data_type::bf16, "a");
  auto r = reorder::create(s, d, a);
  ASSERT_TRUE(r.ok()) << r.status();
  float in[4] = {1.f, 2.f, -3.f, 0.5f};
  bf16 out[4] = {};
  int8_t src_zp = -2;
  uint8_t dst_zp[4] = {0, 1, 200, 255};
  memory src_zp_mem{*memory_desc::with_strides({1}, data_type::s8, {1}), &src_zp};
  memory dst_zp_mem{*memory_desc::with_strides({4}, data_type::u8, {1}), dst_zp};
  ASSERT_TRUE(r->execute({{arg_from, {s, in}},
                          {arg_to, {d, out}},
                          {arg::src_zero_points, src_zp_mem},
                          {arg::dst_zero_points, dst_zp_mem}})
                  .ok());
  const float want[4] = {3.f, 5.f, 199.f, 258.f};  // 257.5 rounds to bf16
  for (int i = 0; i < 4; ++i) EXPECT_EQ(to_f32(out[i]), want[i]) << i;
  // The type the attribute declares is the one execution takes.
  memory s32_zp_mem{*memory_desc::with_strides({1}, data_type::s32, {1}), dst_zp};
  absl::Status st = r->execute({{arg_from, {s, in}},
                                {arg_to, {d, out}},
                                {arg::src_zero_points, s32_zp_mem},
                                {arg::dst_zero_points, dst_zp_mem}});
  EXPECT_THAT(st.message(), HasSubstr("argument src_zero_points has type s32; expected s8"));
}

TEST(Reorder, MaskBeyondRankAndBadOscaleCount) {
  primitive_attr a;
  a.src_scales = quant_param{.mask = 4};
  auto r = reorder::create(md({4, 5}, data_type::f32, "ab"), md({4, 5}, data_type::s8, "ab"), a);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("src_scales mask 4 has bits beyond"));
  primitive_attr b;
  b.oscale = output_scales{.mask = 2, .values = {1.f, 2.f}};
  r = reorder::create(md({4, 5}, data_type::f32, "ab"), md({4, 5}, data_type::s8, "ab"), b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("output scales have 2 values"));
}

// Runs an execution that must fail, and checks the destination bytes did not change.
void expect_fails_untouched(const reorder& r, exec_args args, std::vector<float>& dst,
                            const char* message) {
  const std::vector<float> before = dst;
  absl::Status s = r.execute(args);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(message));
  EXPECT_EQ(std::memcmp(before.data(), dst.data(), dst.size() * sizeof(float)), 0);
}

TEST(Reorder, BadArgumentsLeaveDestinationUntouched) {
  auto s = md({4, 8}, data_type::f32, "ab"), d = md({4, 8}, data_type::f32, "ba");
  primitive_attr a;
  a.src_scales = quant_param{.mask = 0};
  auto r = reorder::create(s, d, a);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<float> src(32, 1.f), dst(32, 7.f), big(64, 0.f);
  float scale = 2.f;
  memory sm{scalar_f32(), &scale};
  expect_fails_untouched(*r, {{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}, dst,
                         "missing argument src_scales");
  expect_fails_untouched(*r, {{arg_to, {d, dst.data()}}, {arg::src_scales, sm}}, dst,
                         "missing argument src");
  expect_fails_untouched(
      *r, {{arg_from, {s, nullptr}}, {arg_to, {d, dst.data()}}, {arg::src_scales, sm}}, dst,
      "null data pointer");
  expect_fails_untouched(
      *r, {{arg_from, {d, src.data()}}, {arg_to, {d, dst.data()}}, {arg::src_scales, sm}}, dst,
      "argument src has descriptor");
  expect_fails_untouched(*r,
                         {{arg_from, {s, src.data()}},
                          {arg_to, {d, dst.data()}},
                          {arg::src_scales, sm},
                          {arg::dst_scales, sm}},
                         dst, "dst_scales given, but the reorder was created without it");
  std::vector<float> two(2, 1.f);
  memory wrong_count{*memory_desc::with_strides({2}, data_type::f32, {1}), two.data()};
  expect_fails_untouched(
      *r, {{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}, {arg::src_scales, wrong_count}},
      dst, "must hold 1 dense values");
  // Overlap: dst starts inside src.
  expect_fails_untouched(
      *r, {{arg_from, {s, big.data()}}, {arg_to, {d, big.data() + 16}}, {arg::src_scales, sm}},
      big, "overlap");
}

TEST(Reorder, QuantizationArgumentsWithoutAttributesAreRejected) {
  // A reorder without quantization attributes skips the scale and zero-point lookups unless one
  // of those arguments is given; each of the four, given, is still an error.
  auto s = md({4, 8}, data_type::f32, "ab"), d = md({4, 8}, data_type::s8, "ba");
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<float> src(32, 1.f), dst(8, 7.f);  // 32 bytes: the s8 dst
  float scale = 2.f;
  int32_t zero_point = 3;
  memory scale_mem{scalar_f32(), &scale};
  memory zp_mem{*memory_desc::with_strides({1}, data_type::s32, {1}), &zero_point};
  for (auto [which, m] :
       {std::pair{arg::src_scales, scale_mem}, std::pair{arg::dst_scales, scale_mem},
        std::pair{arg::src_zero_points, zp_mem}, std::pair{arg::dst_zero_points, zp_mem}}) {
    SCOPED_TRACE(std::string(name_of(which)));
    exec_args args{{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}};
    args.set(which, m);
    expect_fails_untouched(*r, args, dst, "given, but the reorder was created without it");
  }
  EXPECT_TRUE(r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}).ok());
}

TEST(Reorder, CacheReturnsTheSamePlan) {
  auto s = md({8, 8}, data_type::f32, "ab"), d = md({8, 8}, data_type::bf16, "ba");
  auto a = reorder::create(s, d), b = reorder::create(s, d);
  ASSERT_TRUE(a.ok() && b.ok());
  // Copies share one immutable plan: the strings are the same objects.
  EXPECT_EQ(&a->impl_name(), &b->impl_name());
}

TEST(Reorder, ChosenAndDeclinedAreReported) {
  simd::scoped_max_isa cap(simd::detected_isa());
  auto s = md({2, 32, 5, 5}, data_type::f32, "nchw"), d = md({2, 32, 5, 5}, data_type::f32, "nhwc");
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->impl_name(), HasSubstr(":transpose"));
  ASSERT_FALSE(r->declined().empty());
  EXPECT_THAT(r->declined()[0], HasSubstr("native:any:copy: "));
  auto forced = reorder::create(s, d, {}, {.impl_filter = "ref"});
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->impl_name(), "ref:any:scalar");
  auto none = reorder::create(s, d, {}, {.impl_filter = "copy"});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("not contiguous"));
}

// reorder_kernel_names is create()'s own list: each name, given as the filter, makes create()
// choose exactly that kernel for some problem, and the unforced choice is always on the list.
TEST(Reorder, KernelNamesAreTheKernelsCreateChooses) {
  simd::scoped_max_isa cap(simd::detected_isa());
  const std::vector<std::string> names = reorder_kernel_names();
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names.front(), "native:any:copy");
  EXPECT_EQ(names.back(), "ref:any:scalar");
  const std::vector<dim_t> dims = {2, 32, 5, 5};
  const std::vector<std::pair<memory_desc, memory_desc>> problems = {
      {md(dims, data_type::f32, "nchw"), md(dims, data_type::f32, "nchw")},   // copy
      {md(dims, data_type::f32, "nchw"), md(dims, data_type::bf16, "nchw")},  // convert
      {md(dims, data_type::f32, "nchw"), md(dims, data_type::f32, "nhwc")},   // transpose
      {md(dims, data_type::f32, "nchw"), md(dims, data_type::f64, "nhwc")},   // strided
      {md(dims, data_type::f8_e5m2, "nchw"), md(dims, data_type::f8_e4m3, "nChw16c")},
      {md({2, 16, 3, 4}, data_type::f32, "abcd"), md({2, 16, 3, 4}, data_type::s32, "dcba")},  // gather
      {md({4, 32}, data_type::f32, "ab"), md({4, 32}, data_type::u4, "ab")},  // quant_rows
  };
  for (const std::string& name : names) {
    bool chosen = false;
    for (const auto& [s, d] : problems) {
      auto r = reorder::create(s, d, {}, {.impl_filter = name});
      if (r.ok() && r->impl_name() == name) chosen = true;
    }
    EXPECT_TRUE(chosen) << name << " forces no kernel of that name on any test problem";
  }
  for (const auto& [s, d] : problems) {
    auto r = reorder::create(s, d);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(names, ::testing::Contains(r->impl_name()));
  }
  // The list follows the cap: no kernel above it.
  simd::scoped_max_isa sse(simd::isa::sse4_2);
  for (const std::string& name : reorder_kernel_names()) {
    EXPECT_THAT(name, ::testing::Not(HasSubstr("avx"))) << name;
  }
}

TEST(Reorder, VerboseLinePerExecution) {
  auto s = md({2, 3}, data_type::f32, "ab"), d = md({2, 3}, data_type::f32, "ba");
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok());
  std::vector<float> src(6, 1.f), dst(6);
  verbose_capture capture;
  {
    scoped_verbose on(true);
    ASSERT_TRUE(r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}).ok());
    ASSERT_FALSE(r->execute({{arg_from, {s, src.data()}}}).ok());  // errors print nothing
  }
  ASSERT_EQ(capture.lines_of("exec").size(), 1u);
  EXPECT_EQ(capture.lines().size(), 6u);  // the header's 5 lines and the execution's
  const std::string line = capture.lines_of("exec")[0];
  const size_t last = line.rfind(',');
  EXPECT_EQ(line.substr(0, last), "onednn_verbose,v1,primitive,exec,cpu,reorder," + r->impl_name() +
                                      ",undef,src:f32::blocked:ab::f0 dst:f32::blocked:ba::f0,,,2x3");
  double ms = 0;
  EXPECT_TRUE(absl::SimpleAtod(line.substr(last + 1), &ms)) << line;
  EXPECT_GT(ms, 0.0);
}

TEST(Reorder, TypedConvenienceCall) {
  auto s = md({3, 4}, data_type::f32, "ab"), d = md({3, 4}, data_type::s8, "ba");
  std::vector<float> src = {1.5f, 2.5f, -3.5f, 100.f, 1024.f, -1024.f, 0.f, 0.5f, 7.f, 8.f, 9.f, 10.f};
  std::vector<int8_t> dst(12);
  primitive_attr a;
  a.src_scales = quant_param{.mask = 0};
  ASSERT_TRUE((reorder_typed<float, int8_t>(src.data(), s, dst.data(), d, a, {.src_scales = {2.f}}).ok()));
  // dst is "ba": dst[j * 3 + i] = round_half_even(2 * src[i * 4 + j]) saturated.
  EXPECT_EQ(dst[0 * 3 + 0], 3);
  EXPECT_EQ(dst[1 * 3 + 0], 5);
  EXPECT_EQ(dst[2 * 3 + 0], -7);
  EXPECT_EQ(dst[3 * 3 + 0], 127);
  EXPECT_EQ(dst[1 * 3 + 1], -128);
  EXPECT_EQ(dst[3 * 3 + 1], 1);
  auto wrong = reorder_typed<double, int8_t>(nullptr, s, dst.data(), d);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.message(), HasSubstr("reorder_typed<f64, s8>"));
}

TEST(Reorder, PaddingOfBlockedDestinationIsZeroed) {
  auto s = md({1, 3, 1, 2}, data_type::f32, "nchw"), d = md({1, 3, 1, 2}, data_type::f32, "nChw16c");
  std::vector<float> src = {1, 2, 3, 4, 5, 6}, dst(32, -1.f);
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}).ok());
  // w = 0: channels 0..2 then 13 zeros; w = 1 the same.
  const std::vector<float> want = {1, 3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(dst, want);
}

}  // namespace
}  // namespace tessera
