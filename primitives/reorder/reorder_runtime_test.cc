// Reorders created with run-time dims or strides: executed on concrete shapes (every ISA the
// machine has), equal byte for byte to the reference and to the reorder created with those dims;
// the creation and execution rules; the per-shape plan cache.
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/runtime_shape.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/reorder/reference.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr dim_t R = kRuntimeDim;

std::vector<dim_t> runtime_dims(const std::vector<dim_t>& dims, int mask) {
  std::vector<dim_t> out = dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (mask & (1 << d)) out[d] = R;
  }
  return out;
}

// Runs r on the concrete descriptors (src scales and dst zero point when attr has them) and
// returns the dst bytes; fails the test on an error.
std::vector<char> run(const reorder& r, const memory_desc& src_md, const memory_desc& dst_md,
                      const primitive_attr& attr, uint64_t seed) {
  std::vector<char> src(src_md.size_bytes()), dst(dst_md.size_bytes(), 0x3C);
  EXPECT_TRUE(testing::fill_random(src_md, src.data(), {.seed = seed}).ok());
  std::vector<float> scales(attr.src_scales ? src_md.dims()[1] : 0, 0.5f);
  int32_t zp = 3;
  exec_args quant;
  if (attr.src_scales) {
    quant.set(arg::src_scales, {*memory_desc::with_strides({src_md.dims()[1]}, data_type::f32, {1}), scales.data()});
  }
  if (attr.dst_zero_points) {
    quant.set(arg::dst_zero_points, {*memory_desc::with_strides({1}, data_type::s32, {1}), &zp});
  }
  exec_args args = quant;
  args.set(arg_from, {src_md, src.data()});
  args.set(arg_to, {dst_md, dst.data()});
  absl::Status st = r.execute(args);
  EXPECT_TRUE(st.ok()) << st;
  std::vector<char> want(dst_md.size_bytes(), 0x3C);
  EXPECT_TRUE(testing::reference_reorder({src_md, src.data()}, {dst_md, want.data()}, attr, quant).ok());
  EXPECT_EQ(dst, want);
  return dst;
}

struct pattern_case {
  data_type sdt, ddt;
  const char *stag, *dtag;
  int mask;
  bool quantized;
};

TEST(ReorderRuntime, ConcreteShapesMatchTheFixedReorderOnEveryIsa) {
  const std::vector<pattern_case> cases = {
      {data_type::f32, data_type::f32, "abcd", "acdb", 15, false},
      {data_type::f32, data_type::s8, "abcd", "aBcd16b", 15, true},
      {data_type::bf16, data_type::f32, "acdb", "abcd", 5, false},
      {data_type::u8, data_type::u8, "aBcd8b", "abcd", 15, false},
      {data_type::f32, data_type::f16, "abcd", "dcba", 1, false},
  };
  const std::vector<std::vector<dim_t>> shapes = {{2, 16, 3, 4}, {1, 17, 5, 3}, {3, 16, 3, 11}, {2, 16, 3, 4}};
  uint64_t seed = 1;
  int executed = 0;
  for (simd::isa isa : simd::cpu_isas()) {
    simd::scoped_max_isa cap(isa);
    for (const pattern_case& c : cases) {
      primitive_attr attr;
      if (c.quantized) {
        attr.src_scales = quant_param{.mask = 2};
        attr.dst_zero_points = quant_param{.mask = 0};
      }
      for (const std::vector<dim_t>& dims : shapes) {
        // The pattern: 2x16x3x4 with the masked dims run-time.
        auto sp = make_memory_desc(runtime_dims({2, 16, 3, 4}, c.mask), c.sdt, c.stag);
        auto dp = make_memory_desc(runtime_dims({2, 16, 3, 4}, c.mask), c.ddt, c.dtag);
        ASSERT_TRUE(sp.ok() && dp.ok()) << sp.status() << dp.status();
        auto r = reorder::create(*sp, *dp, attr);
        ASSERT_TRUE(r.ok()) << r.status();
        EXPECT_EQ(r->impl_name(), "native:any:per_shape");
        memory_desc s = *make_memory_desc(dims, c.sdt, c.stag), d = *make_memory_desc(dims, c.ddt, c.dtag);
        if (!s.check_fits(*sp).ok()) continue;  // a dim outside the mask differs from 2x16x3x4
        ++executed;
        std::vector<char> got = run(*r, s, d, attr, seed);
        auto fixed = reorder::create(s, d, attr);
        ASSERT_TRUE(fixed.ok()) << fixed.status();
        EXPECT_EQ(got, run(*fixed, s, d, attr, seed)) << simd::name_of(isa) << " " << c.stag << "->" << c.dtag;
        ++seed;
      }
    }
  }
  // Every shape fits the all-run-time patterns; the others take the shapes their fixed dims allow.
  EXPECT_EQ(executed, static_cast<int>(simd::cpu_isas().size()) * (4 + 4 + 2 + 4 + 2));
}

TEST(ReorderRuntime, RuntimeStridesWithFixedDims) {
  memory_desc sp = *memory_desc::with_strides({4, 6}, data_type::f32, {R, 1});
  memory_desc dp = *memory_desc::with_strides({4, 6}, data_type::f32, {1, R});
  auto r = reorder::create(sp, dp);
  ASSERT_TRUE(r.ok()) << r.status();
  for (dim_t pad : {0, 3}) {
    memory_desc s = *memory_desc::with_strides({4, 6}, data_type::f32, {6 + pad, 1});
    memory_desc d = *memory_desc::with_strides({4, 6}, data_type::f32, {1, 4 + pad});
    run(*r, s, d, {}, 7 + pad);
  }
}

TEST(ReorderRuntime, CreationRulesAreNamed) {
  auto half = reorder::create(*make_memory_desc({R, 16}, data_type::f32, "ab"),
                              *make_memory_desc({2, 16}, data_type::f32, "ab"));
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(half.status().message(),
              HasSubstr("dims[0] is run-time in src but 2 in dst: a run-time dim must be run-time in both"));
  primitive_attr oscale;
  oscale.oscale = output_scales{.mask = 1, .values = {1.f, 2.f}};
  auto os = reorder::create(*make_memory_desc({R, 16}, data_type::f32, "ab"),
                            *make_memory_desc({R, 16}, data_type::s8, "ab"), oscale);
  ASSERT_FALSE(os.ok());
  EXPECT_EQ(os.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(os.status().message(), HasSubstr("output scales mask 1 covers run-time dim 0"));
  primitive_attr common;
  common.oscale = output_scales{.mask = 2, .values = std::vector<float>(16, 2.f)};
  EXPECT_TRUE(reorder::create(*make_memory_desc({R, 16}, data_type::f32, "ab"),
                              *make_memory_desc({R, 16}, data_type::s8, "ab"), common)
                  .ok());
  // The fixed reorder's rules still apply.
  auto any = reorder::create(*make_memory_desc({R, 16}, data_type::f32, "ab"), *memory_desc::any({R, 16}, data_type::f32));
  ASSERT_FALSE(any.ok());
  EXPECT_THAT(any.status().message(), HasSubstr("format_kind any"));
}

TEST(ReorderRuntime, ExecutionNamesTheDimThatDoesNotFitAndLeavesDstUntouched) {
  memory_desc sp = *make_memory_desc({R, 16, R}, data_type::f32, "abc");
  memory_desc dp = *make_memory_desc({R, 16, R}, data_type::f32, "acb");
  auto r = reorder::create(sp, dp);
  ASSERT_TRUE(r.ok()) << r.status();
  memory_desc s = *make_memory_desc({2, 8, 3}, data_type::f32, "abc");
  memory_desc d = *make_memory_desc({2, 8, 3}, data_type::f32, "acb");
  std::vector<float> src(48, 1.f), dst(48, 7.f);
  absl::Status st = r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}});
  EXPECT_THAT(st.message(), HasSubstr("src memory_desc: dims[1] = 8 does not fit the pattern's dims[1] = 16"));
  EXPECT_EQ(dst, std::vector<float>(48, 7.f));
  memory_desc s16 = *make_memory_desc({2, 16, 3}, data_type::f32, "abc");
  memory_desc wrong = *make_memory_desc({2, 16, 3}, data_type::f32, "abc");  // dst layout differs
  std::vector<float> src16(96, 1.f), dst16(96, 7.f);
  st = r->execute({{arg_from, {s16, src16.data()}}, {arg_to, {wrong, dst16.data()}}});
  EXPECT_THAT(st.message(), HasSubstr("dst memory_desc: strides[1] = 3 does not fit the pattern's strides[1] = 1"));
  st = r->execute({{arg_from, {sp, src16.data()}}, {arg_to, {dp, dst16.data()}}});
  EXPECT_THAT(st.message(), HasSubstr("src memory_desc at execution has run-time dims or strides"));
  st = r->execute({{arg_to, {d, dst.data()}}});
  EXPECT_THAT(st.message(), HasSubstr("missing argument src"));
  EXPECT_EQ(dst16, std::vector<float>(96, 7.f));
}

TEST(ReorderRuntime, ShapePlansBuildOncePerShape) {
  reorder_internal::shape_plans plans;
  memory_desc a = *make_memory_desc({2, 3}, data_type::f32, "ab");
  memory_desc b = *make_memory_desc({4, 3}, data_type::f32, "ab");
  int built = 0;
  auto make = [&]() -> absl::StatusOr<std::shared_ptr<const reorder_internal::plan>> {
    ++built;
    return std::make_shared<reorder_internal::plan>();
  };
  auto first = plans.find_or_build(a, a, make);
  ASSERT_TRUE(first.ok());
  for (int i = 0; i < 3; ++i) {
    auto again = plans.find_or_build(a, a, make);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->chosen, first->chosen);
    ASSERT_TRUE(plans.find_or_build(b, b, make).ok());
  }
  EXPECT_EQ(built, 2);
  EXPECT_EQ(plans.size(), 2);
  // A plan per ISA cap: the kernels differ. The floor (sse4_2, or neon64 on aarch64) is the
  // one cap below the machine's best unless the machine has nothing better.
  const simd::isa floor = simd::kAllIsas[0];
  {
    simd::scoped_max_isa capped(floor);
    ASSERT_TRUE(plans.find_or_build(a, a, make).ok());
  }
  EXPECT_EQ(built, simd::max_isa() == floor ? 2 : 3);
  // Errors are returned and not cached.
  auto fail = [&]() -> absl::StatusOr<std::shared_ptr<const reorder_internal::plan>> {
    ++built;
    return absl::NotFoundError("no kernel");
  };
  memory_desc c = *make_memory_desc({5, 3}, data_type::f32, "ab");
  EXPECT_FALSE(plans.find_or_build(c, c, fail).ok());
  EXPECT_FALSE(plans.find_or_build(c, c, fail).ok());
  EXPECT_EQ(plans.size(), simd::max_isa() == floor ? 2 : 3);
}

TEST(ReorderRuntime, ShapesPastTheCapacityStillRun) {
  reorder_internal::shape_plans plans;
  int built = 0;
  auto make = [&]() -> absl::StatusOr<std::shared_ptr<const reorder_internal::plan>> {
    ++built;
    return std::make_shared<reorder_internal::plan>();
  };
  for (int n = 1; n <= reorder_internal::shape_plans::kCapacity + 2; ++n) {
    memory_desc m = *make_memory_desc({n}, data_type::f32, "a");
    auto p = plans.find_or_build(m, m, make);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->owned != nullptr, n > reorder_internal::shape_plans::kCapacity);
  }
  EXPECT_EQ(plans.size(), reorder_internal::shape_plans::kCapacity);
}

}  // namespace
}  // namespace tessera
