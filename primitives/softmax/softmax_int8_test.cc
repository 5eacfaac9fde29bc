// The int8 forward (s8 / u8 src or dst, src and dst scales) of every vector kernel, each ISA
// forced, against the f64 reference, with the quantization-step bound of docs/softmax.md
// ("Accuracy design", int8):
//   v = r * src_scale / dst_scale, r the exact softmax (or logsoftmax) result. The kernel's f32
//   value before the conversion is within kScaledEps * eps * |v| of v (the f32 kernel's 4 eps,
//   the f32 rounding of the scale factor and of the product: 5 eps). An s8/u8 result must then be
//   round_half_even(saturate(v)), except where v lies within that error of a rounding boundary
//   (k + 1/2), where the other neighbour is allowed too: at most one unit away, never more.
//   An f32 / bf16 / f16 dst (int8 src) must be within 5 eps |v| (plus the type's half ulp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::plain;
using softmax_test::ulp_of;

constexpr double kEps = 1.0 / (1 << 23);
// The kernel's f32 error before the conversion, in eps of |v| (see the top of the file).
constexpr double kScaledEps = 5;

bool is_int8(data_type dt) { return dt == data_type::s8 || dt == data_type::u8; }

// The filters forcing each ISA's vector kernels the CPU has (no reference kernel).
std::vector<std::string> vector_filters() {
  std::vector<std::string> f;
  for (simd::isa i : simd::cpu_isas()) f.push_back("xsimd:" + std::string(simd::name_of(i)) + ":");
  return f;
}

// Whether got is an allowed result for the exact scaled value v in type dt.
bool allowed(data_type dt, double v, double got, std::string& why) {
  if (std::isnan(v)) {
    why = "exact NaN";
    return std::isnan(got) || (is_int8(dt) && got == softmax_test::max_of(dt));
  }
  if (is_int8(dt)) {
    const double lo = softmax_test::min_of(dt), hi = softmax_test::max_of(dt);
    const double err = kScaledEps * kEps * std::fabs(v);
    // Every integer the kernel's f32 value in [v - err, v + err] may round to.
    const double a = std::clamp(std::nearbyint(v - err), lo, hi);
    const double b = std::clamp(std::nearbyint(v + err), lo, hi);
    const double want = std::clamp(std::nearbyint(v), lo, hi);
    why = "exact " + std::to_string(v) + " nearest " + std::to_string(want);
    return got >= a && got <= b && std::fabs(got - want) <= 1;
  }
  if (std::isinf(v)) return got == v;
  const double rounding = dt == data_type::f32 ? 0 : ulp_of(dt, v) / 2;
  const double excess = std::max(0.0, std::fabs(got - v) - rounding);
  why = "exact " + std::to_string(v) + " error " + std::to_string(excess / (kEps * std::fabs(v)));
  return excess <= kScaledEps * kEps * std::fabs(v) + 0x1p-148;
}

struct int8_case {
  data_type src, dst;
  float src_scale;  // 0: no src_scales attribute
  float dst_scale;  // 0: no dst_scales attribute
};

// Runs alg on src_md (values from fill) to a dst of type c.dst in src_md's layout with every
// vector kernel, and checks each against the reference. Returns the number of kernels run.
int check_all_isas(softmax_alg alg, const memory_desc& src_md, int axis, const int8_case& c,
                   const std::vector<double>& values) {
  auto src_buf = buffer(src_md);
  testing::write_logical(src_md, src_buf.data(), values);
  primitive_attr attr;
  if (c.src_scale != 0) attr.src_scales = quant_param{0};
  if (c.dst_scale != 0) attr.dst_scales = quant_param{0};
  const double factor =
      (c.src_scale != 0 ? double{c.src_scale} : 1.0) / (c.dst_scale != 0 ? double{c.dst_scale} : 1.0);
  const std::vector<double> exact =
      testing::softmax_forward_reference(alg, src_md, src_buf.data(), axis, factor);
  const memory_desc dst_req = *memory_desc::any(src_md.dims(), c.dst);
  int runs = 0;
  for (const std::string& filter : vector_filters()) {
    auto fwd = softmax_forward::create(alg, src_md, dst_req, axis, attr, {filter});
    if (!fwd.ok()) {
      // f16 is not vectorised on sse4_2 and neon64 (kHasF16c): the only type allowed to be
      // declined.
      EXPECT_TRUE((absl::StrContains(filter, "sse4_2") || absl::StrContains(filter, "neon64")) &&
                  (c.src == data_type::f16 || c.dst == data_type::f16))
          << filter << " declined " << name_of(c.src) << "->" << name_of(c.dst) << ": "
          << fwd.status();
      continue;
    }
    ++runs;
    auto dst_buf = buffer(fwd->dst_desc(), 0xA5);
    const memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
    exec_args args{{arg::src, {src_md, src_buf.data()}},
                   {arg::dst, {fwd->dst_desc(), dst_buf.data()}}};
    float src_scale = c.src_scale, dst_scale = c.dst_scale;
    if (attr.src_scales) args.set(arg::src_scales, {scale_md, &src_scale});
    if (attr.dst_scales) args.set(arg::dst_scales, {scale_md, &dst_scale});
    const absl::Status st = fwd->execute(args);
    EXPECT_TRUE(st.ok()) << st;
    const auto got = testing::read_logical(fwd->dst_desc(), dst_buf.data());
    int failures = 0;
    std::string first;
    for (size_t i = 0; i < exact.size(); ++i) {
      std::string why;
      if (!allowed(c.dst, exact[i], got[i], why) && failures++ == 0) {
        first = "element " + std::to_string(i) + " got " + std::to_string(got[i]) + ": " + why;
      }
    }
    EXPECT_EQ(failures, 0) << fwd->impl_name() << " " << name_of(alg) << " " << name_of(c.src)
                           << "->" << name_of(c.dst) << " dims "
                           << ::testing::PrintToString(src_md.dims()) << " axis " << axis << ": "
                           << first;
  }
  return runs;
}

std::vector<double> random_values(dim_t n, data_type dt, std::mt19937& rng) {
  std::vector<double> v(static_cast<size_t>(n));
  if (is_int8(dt)) {
    std::uniform_int_distribution<int> d(static_cast<int>(softmax_test::min_of(dt)),
                                         static_cast<int>(softmax_test::max_of(dt)));
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_real_distribution<double> d(-8, 8);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

const int8_case kCases[] = {
    {data_type::f32, data_type::u8, 0, 1.f / 255},     // benchdnn's f32 -> u8, dst scale
    {data_type::s8, data_type::s8, 0.5f, 1.f / 200},   // s8 -> s8, both scales
    {data_type::u8, data_type::u8, 2.f, 1.f / 100},
    {data_type::s8, data_type::u8, 0, 0},               // no scales: softmax in [0, 1] rounds
    {data_type::u8, data_type::f32, 0.25f, 0},          // int8 src, f32 dst
    {data_type::s8, data_type::bf16, 3.f, 0},
    {data_type::s8, data_type::f16, 0, 0.5f},
    {data_type::bf16, data_type::s8, 0, 1.f / 127},
    {data_type::f16, data_type::u8, 0.75f, 1.f / 300},
    {data_type::f32, data_type::s8, 0, 0.125f},         // logsoftmax: saturates at -128
};

// Every layout the vector kernels take: dense rows (short ones held in registers, longer with
// look-ahead, long ones prefetched to L2), nChw16c (four rows at once for an f32 dst), strided
// (lane sweeps, leftover lanes as dense rows or an overlapping vector), an interleaved group and
// one split along its axis.
std::vector<std::pair<memory_desc, int>> layouts(data_type dt) {
  return {
      {plain({7, 13}, dt), 1},
      {plain({9, 64}, dt), 1},
      {plain({5, 1000}, dt), 1},
      {plain({2, 40000}, dt), 1},
      {blocked({2, 50, 3, 3}, dt, 1, 16), 1},
      {plain({2, 50, 7, 7}, dt), 1},
      {plain({2, 30, 5, 4}, dt), 1},
      {plain({3, 40, 3}, dt), 1},
      {plain({300, 8}, dt), 0},
      {plain({8192, 8}, dt), 0},
  };
}

TEST(SoftmaxInt8, EveryKernelWithinTheQuantizationStep) {
  std::mt19937 rng(53);
  const softmax_alg algs[] = {softmax_alg::softmax, softmax_alg::logsoftmax,
                              softmax_alg::softmax_inf_as_zero};
  int runs = 0;
  for (const int8_case& c : kCases) {
    for (const auto& [md, axis] : layouts(c.src)) {
      for (softmax_alg alg : algs) {
        runs += check_all_isas(alg, md, axis, c, random_values(md.nelems(), c.src, rng));
      }
    }
  }
  EXPECT_GT(runs, 0);
}

// Halfway cases round to even: a row of two equal values gives 1/2 each, exactly, in every
// kernel; times 5 (dst_scale 1/5) that is 2.5 -> 2, times 3 it is 1.5 -> 2; 1/2 itself -> 0.
TEST(SoftmaxInt8, HalfwayResultsRoundToEven) {
  const memory_desc src = plain({64, 2}, data_type::f32);
  std::vector<float> values(128, 1.5f);
  for (const float inv_scale : {1.f, 3.f, 5.f}) {
    float dst_scale = 1.f / inv_scale;
    const double want = std::nearbyint(0.5 * inv_scale);
    primitive_attr attr;
    attr.dst_scales = quant_param{0};
    for (const std::string& filter : vector_filters()) {
      auto fwd = softmax_forward::create(softmax_alg::softmax, src,
                                         *memory_desc::any({64, 2}, data_type::u8), 1, attr,
                                         {filter});
      ASSERT_TRUE(fwd.ok()) << fwd.status();
      std::vector<uint8_t> out(128, 0xA5);
      const memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
      ASSERT_TRUE(fwd->execute({{arg::src, {src, values.data()}},
                                {arg::dst, {fwd->dst_desc(), out.data()}},
                                {arg::dst_scales, {scale_md, &dst_scale}}})
                      .ok());
      for (uint8_t q : out) ASSERT_EQ(q, want) << fwd->impl_name() << " 1/" << inv_scale;
    }
  }
}

// Saturation both ways and NaN: with a tiny dst scale softmax saturates at the type's max and
// logsoftmax at its min; a NaN row gives s8's max and u8's 0 (core/convert.h's rule), as the
// reference kernel does.
TEST(SoftmaxInt8, SaturatesAndConvertsNanAsTheReference) {
  const memory_desc src = plain({3, 40}, data_type::f32);
  std::vector<float> values(120);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 40) * 0.01f;
  values[80 + 7] = std::nanf("");
  const memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
  float tiny = 1e-6f;
  primitive_attr attr;
  attr.dst_scales = quant_param{0};
  for (data_type dt : {data_type::s8, data_type::u8}) {
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      std::vector<uint8_t> want;
      for (const std::string& filter : {std::string("ref")}) {
        auto fwd = softmax_forward::create(alg, src, *memory_desc::any({3, 40}, dt), 1, attr,
                                           {filter});
        ASSERT_TRUE(fwd.ok());
        want.assign(120, 0);
        ASSERT_TRUE(fwd->execute({{arg::src, {src, values.data()}},
                                  {arg::dst, {fwd->dst_desc(), want.data()}},
                                  {arg::dst_scales, {scale_md, &tiny}}})
                        .ok());
      }
      // The row's max saturates, not wraps: softmax's at the type's max, logsoftmax's (a small
      // negative value over the tiny scale) at its min.
      const int top = alg == softmax_alg::softmax ? (dt == data_type::s8 ? 127 : 255)
                                                  : (dt == data_type::s8 ? 128 : 0);  // 0x80: -128
      EXPECT_EQ(want[39], top);
      for (const std::string& filter : vector_filters()) {
        auto fwd = softmax_forward::create(alg, src, *memory_desc::any({3, 40}, dt), 1, attr,
                                           {filter});
        ASSERT_TRUE(fwd.ok());
        std::vector<uint8_t> got(120, 0xA5);
        ASSERT_TRUE(fwd->execute({{arg::src, {src, values.data()}},
                                  {arg::dst, {fwd->dst_desc(), got.data()}},
                                  {arg::dst_scales, {scale_md, &tiny}}})
                        .ok());
        EXPECT_EQ(got, want) << fwd->impl_name() << " " << name_of(alg) << " " << name_of(dt);
      }
    }
  }
}

// A scale factor beyond f32's range (src_scale / dst_scale = 1e30 / 1e-30) cannot be taken as
// the vector kernels' f32 factor: such an execution runs on the reference kernel, same bits.
TEST(SoftmaxInt8, ScaleFactorBeyondF32GivesTheReferenceBits) {
  const memory_desc src = plain({4, 100}, data_type::s8);
  std::vector<int8_t> values(400);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int8_t>(i * 37 % 256 - 128);
  primitive_attr attr;
  attr.src_scales = quant_param{0};
  attr.dst_scales = quant_param{0};
  float big = 1e30f, small = 1e-30f;
  const memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
  auto run = [&](const std::string& filter) {
    auto fwd = softmax_forward::create(softmax_alg::logsoftmax, src,
                                       *memory_desc::any({4, 100}, data_type::f32), 1, attr,
                                       {filter});
    EXPECT_TRUE(fwd.ok());
    std::vector<float> out(400, 0.f);
    EXPECT_TRUE(fwd->execute({{arg::src, {src, values.data()}},
                              {arg::dst, {fwd->dst_desc(), out.data()}},
                              {arg::src_scales, {scale_md, &big}},
                              {arg::dst_scales, {scale_md, &small}}})
                    .ok());
    return out;
  };
  const std::vector<float> want = run("ref");
  for (const std::string& filter : vector_filters()) EXPECT_EQ(run(filter), want) << filter;
}

}  // namespace
}  // namespace tessera
