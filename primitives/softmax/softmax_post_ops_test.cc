// Softmax post-ops and the accumulation mode: hand-computed results, the order of scales and
// post-ops, the reference on every kernel, and the errors.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::buffer;
using softmax_test::plain;

const float kLn3 = std::log(3.f);

// Rows [0, ln 3]: softmax [1/4, 3/4].
std::vector<float> quarter_rows(int rows) {
  std::vector<float> x;
  for (int r = 0; r < rows; ++r) {
    x.push_back(0.f);
    x.push_back(kLn3);
  }
  return x;
}

TEST(SoftmaxPostOps, BinaryAndEltwiseChainByHand) {
  const memory_desc md = plain({2, 2}, data_type::f32);
  const memory_desc per_oc = plain({1, 2}, data_type::f32);
  const memory_desc common = plain({1, 1}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::binary(binary_alg::add, per_oc),
                   post_op::binary(binary_alg::mul, common),
                   post_op::eltwise(eltwise_alg::linear, 0.5f, -1.f)};
  std::vector<float> x = quarter_rows(2), y(4, -7.f);
  float add[2] = {1.f, 2.f}, mul = 2.f;
  {
    auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}};
    args.set(post_op_src1{0}, {per_oc, add});
    args.set(post_op_src1{1}, {common, &mul});
    ASSERT_TRUE(fwd->execute(args).ok());
    // ((1/4 + 1) * 2) * 0.5 - 1 = 0.25; ((3/4 + 2) * 2) * 0.5 - 1 = 1.75.
    for (int r = 0; r < 2; ++r) {
      EXPECT_NEAR(y[2 * r], 0.25f, 1e-6f);
      EXPECT_NEAR(y[2 * r + 1], 1.75f, 1e-6f);
    }
  }
}

// Post-ops take the f32 softmax result (oneDNN's definition). Divided by a zero operand, a
// result of 1/2 is +Inf, which a u8 dst saturates to 255; exp(-255) underflows f32 to 0, and
// 0/0 is NaN, which u8 stores as 0: the same on every kernel, the reference one included (it
// computes in f64, where exp(-255) does not underflow; a fuzz_softmax finding).
TEST(SoftmaxPostOps, DivisionByZeroOnTheF32ResultOnEveryKernel) {
  const memory_desc md = plain({4}, data_type::u8);
  const memory_desc common = plain({1}, data_type::u8);
  primitive_attr attr;
  attr.post_ops = {post_op::binary(binary_alg::div, common),
                   post_op::eltwise(eltwise_alg::linear, 1.f, 1.f)};
  for (const std::string& filter : softmax_test::kernel_filters()) {
    auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 0, attr,
                                       {.impl_filter = filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status() << " " << filter;
    uint8_t x[4] = {0, 255, 255, 0}, y[4] = {7, 7, 7, 7}, zero = 0;
    exec_args args{{arg::src, {md, x}}, {arg::dst, {md, y}}};
    args.set(post_op_src1{0}, {common, &zero});
    ASSERT_TRUE(fwd->execute(args).ok());
    const uint8_t want[4] = {0, 255, 255, 0};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], want[i]) << fwd->impl_name() << " element " << i;
  }
}

// The src scale multiplies the f32 softmax in f32, as oneDNN does: softmax(0, -102.942) has a
// second value of 1.4 * 2^-149, which f32 rounds to 2^-149; times 0.4 that is 0 in f32 (then 0 / 0
// is NaN), while the product rounded once would be 2^-149 (then +Inf). The reference kernel and
// testing's reference agree.
TEST(SoftmaxPostOps, TheSrcScaleMultipliesTheF32Result) {
  const memory_desc md = plain({2}, data_type::f32);
  const memory_desc one = plain({1}, data_type::f32);
  primitive_attr attr;
  attr.src_scales = quant_param{};
  attr.post_ops = {post_op::binary(binary_alg::div, one)};
  auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 0, attr, {.impl_filter = "ref"});
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  float x[2] = {0.f, -102.942f}, y[2] = {7.f, 7.f}, zero = 0.f, scale = 0.4f;
  exec_args args{{arg::src, {md, x}}, {arg::dst, {md, y}}, {arg::src_scales, {one, &scale}}};
  args.set(post_op_src1{0}, {one, &zero});
  ASSERT_TRUE(fwd->execute(args).ok());
  EXPECT_EQ(y[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[1])) << y[1];
  testing::softmax_reference_attr ref;
  ref.src_scale = scale;
  ref.post_ops = attr.post_ops;
  ref.post_op_src1 = {&zero};
  const std::vector<double> want =
      testing::softmax_forward_reference(softmax_alg::softmax, md, x, 0, ref);
  EXPECT_EQ(want[0], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(want[1])) << want[1];
}

// clip takes the lower bound, then the upper one (oneDNN's order): with alpha above beta every
// output is beta, in the library and in the reference.
TEST(SoftmaxPostOps, ClipWithBoundsCrossedGivesTheUpperBound) {
  const memory_desc md = plain({2, 2}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::eltwise(eltwise_alg::clip, 100.f, 1.f)};
  std::vector<float> x = quarter_rows(2), y(4, -7.f);
  auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  ASSERT_TRUE(fwd->execute({{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}}).ok());
  for (float v : y) EXPECT_EQ(v, 1.f);
  testing::softmax_reference_attr ref;
  ref.post_ops = attr.post_ops;
  for (double v : testing::softmax_forward_reference(softmax_alg::softmax, md, x.data(), 1, ref)) {
    EXPECT_EQ(v, 1.0);
  }
}

// src scale, then the post-ops, then the dst scale: f32 -> u8 with src_scale 64, add 4, dst_scale
// 0.5 gives (1/4 * 64 + 4) / 0.5 = 40 and (3/4 * 64 + 4) / 0.5 = 104. The dst scale applied before
// the add would give 36 and 100; the src scale after it, 136 and 200.
TEST(SoftmaxPostOps, ScalesSurroundThePostOps) {
  const memory_desc src = plain({1, 2}, data_type::f32);
  const memory_desc dst = plain({1, 2}, data_type::u8);
  const memory_desc common = plain({1, 1}, data_type::bf16);
  primitive_attr attr;
  attr.src_scales = quant_param{};
  attr.dst_scales = quant_param{};
  attr.post_ops = {post_op::binary(binary_alg::add, common)};
  auto fwd = softmax_forward::create(softmax_alg::softmax, src, dst, 1, attr);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  std::vector<float> x = quarter_rows(1);
  uint8_t y[2] = {0, 0};
  float src_scale = 64.f, dst_scale = 0.5f;
  const bf16 four = from_f32<bf16>(4.f);
  const memory_desc one = plain({1}, data_type::f32);
  exec_args args{{arg::src, {src, x.data()}},
                 {arg::dst, {dst, y}},
                 {arg::src_scales, {one, &src_scale}},
                 {arg::dst_scales, {one, &dst_scale}}};
  args.set(post_op_src1{0}, {common, const_cast<bf16*>(&four)});
  ASSERT_TRUE(fwd->execute(args).ok());
  EXPECT_EQ(y[0], 40);
  EXPECT_EQ(y[1], 104);
}

TEST(SoftmaxPostOps, EveryBinaryAlgorithmAndBroadcastMatchesTheReference) {
  const std::vector<dim_t> dims = {3, 5, 4};
  const memory_desc src = plain(dims, data_type::f32);
  const std::vector<std::vector<dim_t>> shapes = {{1, 1, 1}, {1, 5, 1}, {3, 5, 4}, {3, 1, 4}};
  const data_type types[] = {data_type::f32, data_type::bf16, data_type::f16, data_type::s8,
                             data_type::u8};
  std::vector<float> x(60);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) * 0.5f - 2.f;
  int n = 0;
  for (binary_alg alg : {binary_alg::add, binary_alg::sub, binary_alg::mul, binary_alg::div,
                         binary_alg::max, binary_alg::min, binary_alg::ge, binary_alg::gt,
                         binary_alg::le, binary_alg::lt, binary_alg::eq, binary_alg::ne}) {
    const auto& shape = shapes[n % shapes.size()];
    const data_type dt = types[n % 5];
    ++n;
    const memory_desc operand = plain(shape, dt);
    std::vector<uint8_t> b = buffer(operand);
    std::vector<double> values(static_cast<size_t>(operand.nelems()));
    // Never zero (div); quarters for the floating-point types, 1..4 for s8 and u8.
    const double unit = dt == data_type::s8 || dt == data_type::u8 ? 1 : 0.25;
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 4 + 1) * unit;
    testing::write_logical(operand, b.data(), values);
    primitive_attr attr;
    attr.post_ops = {post_op::eltwise(eltwise_alg::relu, 0.5f),
                     post_op::binary(alg, operand), post_op::eltwise(eltwise_alg::square)};
    auto fwd = softmax_forward::create(softmax_alg::logsoftmax, src, src, 1, attr);
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    std::vector<float> y(60);
    exec_args args{{arg::src, {src, x.data()}}, {arg::dst, {src, y.data()}}};
    args.set(post_op_src1{1}, {operand, b.data()});
    ASSERT_TRUE(fwd->execute(args).ok());
    testing::softmax_reference_attr ref;
    ref.post_ops = attr.post_ops;
    ref.post_op_src1 = {nullptr, b.data(), nullptr};
    const std::vector<double> want =
        testing::softmax_forward_reference(softmax_alg::logsoftmax, src, x.data(), 1, ref);
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(y[i], want[i], 1e-6 * std::max(1.0, std::fabs(want[i])))
          << name_of(alg) << " element " << i;
    }
  }
}

TEST(SoftmaxPostOps, CreationRejectsWhatDoesNotBroadcastAndBackward) {
  const memory_desc md = plain({2, 8, 5}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::binary(binary_alg::add, plain({1, 4, 1}, data_type::f32))};
  auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
  EXPECT_EQ(fwd.status().message(),
            "softmax: post-op 0 (binary add) has operand dims 1x4x1 that do not broadcast to dst "
            "dims 2x8x5 (the same rank, each dim equal to dst's or 1)");
  attr.post_ops = {post_op::binary(binary_alg::add, plain({1, 8, 1}, data_type::s32))};
  EXPECT_EQ(softmax_forward::create(softmax_alg::softmax, md, md, 1, attr).status().message(),
            "softmax: post-op 0 (binary add) operand type s32 is not supported (f32, bf16, f16, "
            "s8, u8)");
  attr.post_ops = {post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f)};
  EXPECT_EQ(
      softmax_backward::create(softmax_alg::softmax, md, md, md, 1, attr).status().message(),
      "softmax backward: takes no post-ops, got \"linear:0.5:2\"");
  attr.post_ops.clear();
  attr.acc_mode = accumulation_mode::s32;
  EXPECT_EQ(softmax_forward::create(softmax_alg::softmax, md, md, 1, attr).status().message(),
            "softmax: accumulation mode s32 is not supported (strict, relaxed, any, f32: the sums "
            "are f32 or wider)");
}

TEST(SoftmaxPostOps, AccumulationModesStrictRelaxedAnyGiveTheSameBits) {
  const memory_desc md = plain({4, 100}, data_type::f32);
  std::vector<float> x(400);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 8;
  std::vector<float> strict(400), other(400);
  auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1);
  ASSERT_TRUE(fwd.ok());
  ASSERT_TRUE(fwd->execute({{arg::src, {md, x.data()}}, {arg::dst, {md, strict.data()}}}).ok());
  for (accumulation_mode mode :
       {accumulation_mode::relaxed, accumulation_mode::any, accumulation_mode::f32}) {
    primitive_attr attr;
    attr.acc_mode = mode;
    auto f = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->impl_name(), fwd->impl_name());
    ASSERT_TRUE(f->execute({{arg::src, {md, x.data()}}, {arg::dst, {md, other.data()}}}).ok());
    EXPECT_EQ(std::memcmp(strict.data(), other.data(), 400 * sizeof(float)), 0) << name_of(mode);
    auto b = softmax_backward::create(softmax_alg::softmax, md, md, md, 1, attr);
    EXPECT_TRUE(b.ok()) << b.status();
  }
}

// The accumulation mode changes nothing with post-ops either: the same kernel, the same bits.
TEST(SoftmaxPostOps, AccumulationModesGiveTheSameBitsWithPostOps) {
  const memory_desc md = plain({4, 100}, data_type::f32);
  const memory_desc per_oc = plain({1, 100}, data_type::f32);
  std::vector<float> x(400), b(100);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 8;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.25f;
  auto run = [&](accumulation_mode mode, std::vector<float>& y, std::string& impl) {
    primitive_attr attr;
    attr.acc_mode = mode;
    attr.post_ops = {post_op::binary(binary_alg::add, per_oc),
                     post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f)};
    auto f = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
    ASSERT_TRUE(f.ok()) << f.status();
    impl = f->impl_name();
    exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}};
    args.set(post_op_src1{0}, {per_oc, b.data()});
    ASSERT_TRUE(f->execute(args).ok());
  };
  std::vector<float> strict(400), other(400);
  std::string strict_impl, other_impl;
  run(accumulation_mode::strict, strict, strict_impl);
  for (accumulation_mode mode :
       {accumulation_mode::relaxed, accumulation_mode::any, accumulation_mode::f32}) {
    run(mode, other, other_impl);
    EXPECT_EQ(other_impl, strict_impl);
    EXPECT_EQ(std::memcmp(strict.data(), other.data(), 400 * sizeof(float)), 0) << name_of(mode);
  }
}

TEST(SoftmaxPostOps, ExecutionChecksTheOperands) {
  const memory_desc md = plain({2, 2}, data_type::f32);
  const memory_desc per_oc = plain({1, 2}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::eltwise(eltwise_alg::abs), post_op::binary(binary_alg::add, per_oc)};
  auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr);
  ASSERT_TRUE(fwd.ok());
  std::vector<float> x = quarter_rows(2), y(4, -7.f), b(4, 1.f);
  exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}};
  EXPECT_EQ(std::string(fwd->execute(args).message()),
            "softmax: the attributes ask for post_op_src1(1) (binary add) but the argument is "
            "missing");
  exec_args wrong = args;
  wrong.set(post_op_src1{1}, {md, b.data()});
  EXPECT_EQ(std::string(fwd->execute(wrong).message()),
            "softmax: execution argument post_op_src1(1) has a descriptor (f32::blocked:ab:f0 "
            "2x2) other than the post-op's (f32::blocked:ab:f0 1x2)");
  exec_args eltwise_slot = args;
  eltwise_slot.set(post_op_src1{0}, {per_oc, b.data()});
  EXPECT_EQ(std::string(fwd->execute(eltwise_slot).message()),
            "softmax forward: post_op_src1(0) given, but the primitive has no binary post-op at "
            "position 0");
  exec_args null_data = args;
  null_data.set(post_op_src1{1}, {per_oc, nullptr});
  EXPECT_EQ(std::string(fwd->execute(null_data).message()),
            "softmax: execution argument post_op_src1(1) has a null data pointer");
  exec_args overlapping = args;
  overlapping.set(post_op_src1{1}, {per_oc, y.data() + 1});
  EXPECT_EQ(std::string(fwd->execute(overlapping).message()),
            "softmax: post_op_src1(1) overlaps dst; a post-op operand must be disjoint");
  for (float v : y) EXPECT_EQ(v, -7.f);  // nothing written by a failed execution
}

}  // namespace
}  // namespace tessera
