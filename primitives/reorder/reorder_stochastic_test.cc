// Stochastic rounding of a reorder's dst (primitive_attr::dst_rounding, seed at execution):
// every element is core's stochastic_round of the f32 value at its logical index, over plain,
// transposed and blocked layouts, with a src scale (benchdnn's test_reorder_float8 case); the
// same seed gives the same bits, another seed others, and rounding to nearest differs. Bad uses
// are refused with a clear status.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/core/stochastic_round.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  absl::StatusOr<memory_desc> m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << m.status() << " " << tag;
  return *m;
}

primitive_attr stochastic_attr() {
  primitive_attr attr;
  attr.dst_rounding = rounding_mode::stochastic;
  attr.src_scales = quant_param{.mask = 0};
  return attr;
}

// The dst of src (f32, logical values `x`) reordered into `dst` with src scale 1.375 and `seed`.
std::vector<char> run(const memory_desc& src, const std::vector<float>& x, const memory_desc& dst,
                      int32_t seed, const primitive_attr& attr = stochastic_attr()) {
  std::vector<float> in(static_cast<size_t>(src.size_bytes() / 4));
  testing::for_each_index(src.dims(), [&](absl::Span<const dim_t> i) {
    in[static_cast<size_t>(testing::offset_of(src, i))] =
        x[static_cast<size_t>(testing::linear_index(src.dims(), i))];
  });
  std::vector<char> out(static_cast<size_t>(dst.size_bytes()));
  auto r = reorder::create(src, dst, attr);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return out;
  if (attr.dst_rounding == rounding_mode::stochastic) EXPECT_EQ(r->impl_name(), "ref:any:scalar");
  const float scale = 1.375f;
  const memory_desc one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
  const memory_desc one_s32 = *memory_desc::with_strides({1}, data_type::s32, {1});
  exec_args args{{arg_from, {src, in.data()}}, {arg_to, {dst, out.data()}}};
  args.set(arg::src_scales, {one_f32, const_cast<float*>(&scale)});
  if (attr.dst_rounding == rounding_mode::stochastic) {
    args.set(arg::attr_rounding_seed, {one_s32, &seed});
  }
  const absl::Status st = r->execute(args);
  EXPECT_TRUE(st.ok()) << st;
  return out;
}

// The element at logical index `i` of `dst`'s buffer, as f32.
float element(const memory_desc& dst, const std::vector<char>& buf, absl::Span<const dim_t> i) {
  const dim_t off = testing::offset_of(dst, i);
  switch (dst.dt()) {
    case data_type::bf16: { bf16 v; std::memcpy(&v, buf.data() + 2 * off, 2); return to_f32(v); }
    case data_type::f16: { f16 v; std::memcpy(&v, buf.data() + 2 * off, 2); return to_f32(v); }
    case data_type::f8_e5m2: { f8_e5m2 v; std::memcpy(&v, buf.data() + off, 1); return to_f32(v); }
    default: { f8_e4m3 v; std::memcpy(&v, buf.data() + off, 1); return to_f32(v); }
  }
}

TEST(ReorderStochastic, EveryElementIsTheDefinitionAtItsLogicalIndex) {
  const std::vector<dim_t> dims = {2, 37, 3, 5};
  std::vector<float> x(2 * 37 * 3 * 5);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-40.f, 40.f);
  for (float& v : x) v = u(rng);
  x[0] = 1e9f;  // saturates
  x[1] = 1e-30f;  // flushes to 0
  const memory_desc src = md(dims, data_type::f32, "abcd");
  for (data_type dt : {data_type::f8_e5m2, data_type::f8_e4m3, data_type::bf16, data_type::f16}) {
    for (const char* tag : {"abcd", "acdb", "aBcd16b"}) {
      const memory_desc dst = md(dims, dt, tag);
      const std::vector<char> got = run(src, x, dst, 123);
      int mismatches = 0, stochastic_differs_from_nearest = 0;
      testing::for_each_index(dims, [&](absl::Span<const dim_t> i) {
        const dim_t logical = testing::linear_index(dims, i);
        const float v = x[static_cast<size_t>(logical)] * 1.375f;
        const float want = stochastic_round(v, logical, 123, dt);
        const float have = element(dst, got, i);
        if (have != want && mismatches++ < 3) {
          ADD_FAILURE() << name_of(dt) << " " << tag << " logical " << logical << ": " << have
                        << " want " << want;
        }
        stochastic_differs_from_nearest += have != to_f32(from_f32<f16>(v)) && dt == data_type::f16;
      });
      EXPECT_EQ(mismatches, 0) << name_of(dt) << " " << tag;
      if (dt == data_type::f16) EXPECT_GT(stochastic_differs_from_nearest, 0);
    }
  }
}

TEST(ReorderStochastic, SeedDecidesTheBits) {
  const memory_desc src = md({64, 64}, data_type::f32, "ab");
  const memory_desc dst = md({64, 64}, data_type::f8_e5m2, "ab");
  std::vector<float> x(64 * 64);
  // Just below 1.75 after the scale, where the 16 random bits decide (the bias stays below
  // 2^16 of the 2^21 truncated units).
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = (1.75f - static_cast<float>(i % 13) * 0x1p-13f) / 1.375f;
  }
  EXPECT_EQ(run(src, x, dst, 7), run(src, x, dst, 7));
  EXPECT_NE(run(src, x, dst, 7), run(src, x, dst, 8));
  primitive_attr nearest;
  nearest.src_scales = quant_param{.mask = 0};
  EXPECT_NE(run(src, x, dst, 7), run(src, x, dst, 0, nearest));
}

TEST(ReorderStochastic, BadUsesAreRefused) {
  const memory_desc src = md({4, 4}, data_type::f32, "ab");
  primitive_attr attr;
  attr.dst_rounding = rounding_mode::stochastic;
  for (data_type dt : {data_type::f32, data_type::s8, data_type::u8, data_type::s32}) {
    auto r = reorder::create(src, md({4, 4}, dt, "ab"), attr);
    ASSERT_FALSE(r.ok()) << name_of(dt);
    EXPECT_THAT(r.status().message(), HasSubstr("stochastic rounding of a")) << r.status();
  }
  const memory_desc dst = md({4, 4}, data_type::f8_e4m3, "ab");
  std::vector<float> in(16, 1.f);
  std::vector<char> out(16);
  int32_t seed = 1;
  float f = 1.f;
  int32_t two[2] = {1, 2};
  const memory_desc one_s32 = *memory_desc::with_strides({1}, data_type::s32, {1});
  const memory_desc one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
  const memory_desc two_s32 = *memory_desc::with_strides({2}, data_type::s32, {1});
  auto stochastic = reorder::create(src, dst, attr);
  ASSERT_TRUE(stochastic.ok()) << stochastic.status();
  exec_args base{{arg_from, {src, in.data()}}, {arg_to, {dst, out.data()}}};
  EXPECT_THAT(stochastic->execute(base).message(), HasSubstr("missing argument attr_rounding_seed"));
  exec_args wrong_type = base;
  wrong_type.set(arg::attr_rounding_seed, {one_f32, &f});
  EXPECT_THAT(stochastic->execute(wrong_type).message(), HasSubstr("it is one s32 value"));
  exec_args two_values = base;
  two_values.set(arg::attr_rounding_seed, {two_s32, two});
  EXPECT_THAT(stochastic->execute(two_values).message(), HasSubstr("it is one s32 value"));
  auto nearest = reorder::create(src, dst, primitive_attr{});
  ASSERT_TRUE(nearest.ok());
  exec_args given = base;
  given.set(arg::attr_rounding_seed, {one_s32, &seed});
  EXPECT_THAT(nearest->execute(given).message(),
              HasSubstr("created without stochastic rounding"));
}

}  // namespace
}  // namespace tessera
