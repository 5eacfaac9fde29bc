#include "tessera/primitives/common/quant_args.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/convert.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(QuantArgs, DefaultTypesAndAllowedTypes) {
  EXPECT_EQ(quant_value_type(arg::src_scales, quant_param{}), data_type::f32);
  EXPECT_EQ(quant_value_type(arg::dst_zero_points, quant_param{}), data_type::s32);
  EXPECT_EQ(quant_value_type(arg::src_zero_points, quant_param{.dt = data_type::u8}),
            data_type::u8);
  for (data_type dt : {data_type::f32, data_type::f16, data_type::bf16}) {
    EXPECT_TRUE(check_quant_type(arg::src_scales, dt).ok()) << name_of(dt);
    EXPECT_FALSE(check_quant_type(arg::src_zero_points, dt).ok()) << name_of(dt);
  }
  for (data_type dt : {data_type::s32, data_type::s8, data_type::u8}) {
    EXPECT_TRUE(check_quant_type(arg::dst_zero_points, dt).ok()) << name_of(dt);
    EXPECT_FALSE(check_quant_type(arg::dst_scales, dt).ok()) << name_of(dt);
  }
  EXPECT_THAT(check_quant_type(arg::dst_scales, data_type::f64).message(),
              HasSubstr("dst_scales of type f64: scales are f32, f16 or bf16"));
}

TEST(QuantArgs, GroupsCountAndChecks) {
  const std::vector<dim_t> dims = {4, 6, 8};
  const quant_param q{.mask = 6, .groups = {3, 4}};
  EXPECT_TRUE(check_quant_groups(arg::src_scales, q, dims).ok());
  EXPECT_EQ(grouped_value_count(q, dims), 2 * 2);
  EXPECT_EQ(quant_group(q, 3, 0), 1);
  EXPECT_EQ(quant_group(q, 3, 2), 4);
  EXPECT_THAT(check_quant_groups(arg::src_scales, quant_param{.mask = 6, .groups = {4, 4}}, dims)
                  .message(),
              HasSubstr("src_scales group 4 on dim 1 (size 6) does not divide the dim"));
  EXPECT_THAT(
      check_quant_groups(arg::dst_zero_points, quant_param{.mask = 4, .groups = {2, 4}}, dims)
          .message(),
      HasSubstr("group 2 on dim 1 (size 6) is on a dim outside the mask"));
  EXPECT_THAT(
      check_quant_groups(arg::src_scales, quant_param{.mask = 1, .groups = {1, 1, 1, 1}}, dims)
          .message(),
      HasSubstr("has 4 groups; the tensor has 3 dims"));
}

TEST(QuantArgs, ExpansionRepeatsGroupsAndWidensTypes) {
  // dims 2x4, groups 1x2 over both dims: values v[i][j / 2].
  const std::vector<dim_t> dims = {2, 4};
  const f16 given[4] = {from_f32<f16>(0.5f), from_f32<f16>(2.f), from_f32<f16>(-1.f),
                        from_f32<f16>(3.f)};
  std::vector<float> out(8);
  expand_quant_values(arg::src_scales, quant_param{.mask = 3, .dt = data_type::f16, .groups = {1, 2}},
                      dims, given, out.data());
  EXPECT_THAT(out, ElementsAre(0.5f, 0.5f, 2.f, 2.f, -1.f, -1.f, 3.f, 3.f));
  const uint8_t zps[2] = {200, 7};
  std::vector<int32_t> wide(4);
  expand_quant_values(arg::dst_zero_points, quant_param{.mask = 2, .dt = data_type::u8,
                                                         .groups = {1, 2}},
                      dims, zps, wide.data());
  EXPECT_THAT(wide, ElementsAre(200, 200, 7, 7));
  const int8_t szps[2] = {-128, 5};
  std::vector<int32_t> swide(2);
  expand_quant_values(arg::src_zero_points, quant_param{.mask = 1, .dt = data_type::s8}, dims,
                      szps, swide.data());
  EXPECT_THAT(swide, ElementsAre(-128, 5));
}

}  // namespace
}  // namespace tessera
