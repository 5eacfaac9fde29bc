// Compensating reorders (dst extra flags, memory_extra.h): every implementation this machine can
// force, on every ISA it has, against the scalar reference byte for byte (data, padding and the
// compensation buffers); the buffers' values checked by hand on a small case; and the create-time
// rejections, each naming its value.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/internal/test_case.h"
#include "tessera/primitives/reorder/reorder.h"

namespace tessera {
namespace {

using reorder_test::all_impl_filters;
using reorder_test::case_result;
using reorder_test::describe;
using reorder_test::reorder_case;
using reorder_test::run_case;

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  absl::StatusOr<memory_desc> m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << tag << ": " << m.status();
  return *m;
}

memory_desc with(const memory_desc& d, uint64_t flags, int s8_mask, int zp_mask, float adjust = 1.0f) {
  memory_extra e;
  e.flags = flags;
  e.compensation_mask = s8_mask;
  e.asymm_compensation_mask = zp_mask;
  e.scale_adjust = adjust;
  absl::StatusOr<memory_desc> r = d.with_extra(e);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

constexpr uint64_t kS8 = extra_flags::compensation_conv_s8s8;
constexpr uint64_t kZp = extra_flags::compensation_conv_asymmetric_src;
constexpr uint64_t kAdjust = extra_flags::scale_adjust;

struct layout {
  std::vector<dim_t> dims;
  const char* src;
  const char* dst;
  int mask;
};

// The batches' shapes: conv weights (mask 1), grouped weights (mask 3), matmul weights (2, 5).
const layout kLayouts[] = {
    {{32, 17, 3}, "abc", "cba", 1},           {{20, 24, 3, 5}, "abcd", "ABcd4b16a4b", 1},
    {{17, 24, 3, 3}, "acdb", "ABcd4a4b", 1},  {{2, 20, 12, 3, 3}, "abcde", "aBCde4c16b4c", 3},
    {{2, 16, 8, 3}, "abcd", "dcab", 3},       {{19, 37}, "ab", "BA16a16b4a", 2},
    {{2, 21, 19}, "acb", "aCB16b32c4b", 5},   {{4, 4, 1}, "abc", "ABc2b8a4b", 3},
};

std::vector<primitive_attr> attrs_for(const layout& l) {
  std::vector<primitive_attr> out(1);
  primitive_attr common;
  common.src_scales = quant_param{.mask = 0};
  out.push_back(common);
  primitive_attr per_mask;
  per_mask.src_scales = quant_param{.mask = l.mask};
  per_mask.dst_scales = quant_param{.mask = l.mask};
  out.push_back(per_mask);
  return out;
}

TEST(ReorderCompensation, EveryImplementationMatchesTheReference) {
  std::map<std::string, int> accepted;
  uint64_t seed = 3;
  for (const layout& l : kLayouts) {
    for (data_type s : {data_type::f32, data_type::bf16, data_type::s8}) {
      for (uint64_t flags : {kS8, kZp, kS8 | kZp, kS8 | kAdjust, kS8 | kZp | kAdjust}) {
        for (const primitive_attr& a : attrs_for(l)) {
          reorder_case c{.src = md(l.dims, s, l.src),
                         .dst = with(md(l.dims, data_type::s8, l.dst), flags, l.mask, l.mask, 0.5f),
                         .attr = a,
                         .seed = ++seed};
          for (const std::string& filter : all_impl_filters()) {
            case_result r = run_case(c, filter);
            if (!r.accepted) continue;
            ++accepted[filter];
            ASSERT_EQ(r.mismatch, "") << filter << " on " << describe(c);
          }
        }
      }
    }
  }
  // The compensation is a pass after any kernel: every implementation that converts takes part
  // (not a plain copy, nor the 4-bit kernel: compensation writes s8).
  for (const std::string& filter : all_impl_filters()) {
    if (filter.find("copy") != std::string::npos) continue;
    if (filter.find(":quant_rows") != std::string::npos) continue;
    EXPECT_GT(accepted[filter], 0) << filter << " never accepted a compensating case";
  }
}

// 2x3 s8 -> s8 "ba" with both buffers over dim 0: the values written are the inputs, so the
// buffers are -128 * row sum and -row sum.
TEST(ReorderCompensation, BuffersHoldTheNegatedSumsOfTheWrittenValues) {
  const memory_desc src = md({2, 3}, data_type::s8, "ab");
  const memory_desc dst = with(md({2, 3}, data_type::s8, "ba"), kS8 | kZp, 1, 1);
  ASSERT_EQ(dst.size_bytes(), 8 + 2 * 4 + 2 * 4);
  const int8_t in[6] = {1, 2, 3, -4, -5, 127};
  std::vector<char> out(static_cast<size_t>(dst.size_bytes()), 0x55);
  absl::StatusOr<reorder> r = reorder::create(src, dst, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->execute({{arg_from, {src, const_cast<int8_t*>(in)}}, {arg_to, {dst, out.data()}}}).ok());
  int32_t comp[4];
  std::memcpy(comp, out.data() + 8, sizeof(comp));
  EXPECT_EQ(comp[0], -128 * 6);
  EXPECT_EQ(comp[1], -128 * 118);
  EXPECT_EQ(comp[2], -6);
  EXPECT_EQ(comp[3], -118);
  EXPECT_EQ(out[6], 0x55);  // bytes between the data and the buffers are not written
}

// The adjustment scales every written value (here 0.5, round half to even) before the sums.
TEST(ReorderCompensation, ScaleAdjustHalvesTheWrittenValues) {
  const memory_desc src = md({1, 4}, data_type::f32, "ab");
  const memory_desc dst = with(md({1, 4}, data_type::s8, "ab"), kS8 | kAdjust, 1, 0, 0.5f);
  const float in[4] = {3.f, 5.f, -7.f, 300.f};
  std::vector<int8_t> out(static_cast<size_t>(dst.size_bytes()), 0);  // char is unsigned on Arm
  absl::StatusOr<reorder> r = reorder::create(src, dst, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->execute({{arg_from, {src, const_cast<float*>(in)}}, {arg_to, {dst, out.data()}}}).ok());
  EXPECT_EQ(out[0], 2);    // 1.5 -> 2
  EXPECT_EQ(out[1], 2);    // 2.5 -> 2
  EXPECT_EQ(out[2], -4);   // -3.5 -> -4
  EXPECT_EQ(out[3], 127);  // 150 saturates
  int32_t comp;
  std::memcpy(&comp, out.data() + 4, 4);
  EXPECT_EQ(comp, -128 * (2 + 2 - 4 + 127));
}

std::string create_error(const memory_desc& s, const memory_desc& d, const primitive_attr& a = {}) {
  absl::StatusOr<reorder> r = reorder::create(s, d, a);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(ReorderCompensation, RejectsWhatOneDnnDoesNotDefine) {
  const memory_desc plain = md({4, 6}, data_type::s8, "ab");
  const memory_desc comp = with(plain, kS8, 1, 0);
  EXPECT_NE(create_error(comp, plain).find("src memory_desc carries extra flags f1:s8m1"), std::string::npos);
  const memory_desc u8 = with(md({4, 6}, data_type::u8, "ab"), kZp, 0, 1);
  EXPECT_NE(create_error(plain, u8).find("needs an s8 dst; dst is u8"), std::string::npos);
  primitive_attr zp;
  zp.src_zero_points = quant_param{.mask = 0};
  EXPECT_NE(create_error(plain, comp, zp).find("src zero points"), std::string::npos);
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 1.f};
  EXPECT_NE(create_error(plain, comp, sum).find("a sum post-op"), std::string::npos);
}

}  // namespace
}  // namespace tessera
