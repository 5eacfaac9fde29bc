// The vector kernels' post-ops (forward_post_ops.h) against the f64 reference on every ISA the
// CPU has, dense and strided: every binary algorithm with every broadcast and operand type, every
// eltwise algorithm, chained, and src / dst scales around the chain into f32, s8 and u8. The
// bound (docs/softmax.md): |y - ref| <= 4e-6 * max(1 / dst_scale, |ref|), plus half a step into
// s8 / u8 (the reference's value is not rounded).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::buffer;
using softmax_test::plain;

constexpr double kBound = 4e-6;

struct layout_case {
  std::vector<dim_t> dims;
  std::vector<int> order;  // memory order, outermost first
  int axis;
  const char* kernel;      // "dense" or "strided"
};

// Dense: the axis innermost (37: tails on every ISA). Strided: the axis outer, 21 lanes (tails).
const layout_case kLayouts[] = {
    {{6, 37}, {0, 1}, 1, "dense"},
    {{3, 9, 21}, {0, 1, 2}, 1, "strided"},
    {{2, 5, 19}, {0, 2, 1}, 2, "strided"},  // axb along the spatial dim: the lanes are C
    {{2, 7, 5}, {0, 2, 1}, 1, "dense"},     // axb along C: stride 1
};

std::vector<float> random_src(dim_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-6.f, 6.f);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = u(gen);
  return x;
}

// The operand shapes: common, per_oc (dim 1), per_tensor, and a mask over dims 0 and last.
std::vector<std::vector<dim_t>> operand_shapes(const std::vector<dim_t>& dims) {
  std::vector<dim_t> common(dims.size(), 1), per_oc(dims.size(), 1), edges(dims.size(), 1);
  per_oc[1] = dims[1];
  edges[0] = dims[0];
  edges.back() = dims.back();
  return {common, per_oc, dims, edges};
}

// The dst type and the scales of a case (given with the attributes' src_scales / dst_scales).
struct output_case {
  data_type dt = data_type::f32;
  float src_scale = 1.f, dst_scale = 1.f;
};

// Runs `attr` on the kernel `filter` and on the reference; expects the bound, and NaN where the
// reference has NaN. The binary operands hold small positive values; with nan_operands, every
// third element of a floating-point operand is NaN.
void expect_matches_reference(const layout_case& lc, softmax_alg alg, const primitive_attr& attr,
                              const std::string& filter, const std::string& what,
                              bool nan_operands = false, const output_case& out = {}) {
  const memory_desc md = plain(lc.dims, data_type::f32, lc.order);
  const memory_desc dst_md = plain(lc.dims, out.dt, lc.order);
  auto fwd = softmax_forward::create(alg, md, dst_md, lc.axis, attr, {.impl_filter = filter});
  ASSERT_TRUE(fwd.ok()) << fwd.status() << " " << what;
  ASSERT_NE(fwd->impl_name().find(lc.kernel), std::string::npos) << fwd->impl_name();
  std::vector<float> x = random_src(md.nelems(), 7);
  std::vector<uint8_t> y = buffer(dst_md, 0xA5);
  std::vector<std::vector<uint8_t>> operands(attr.post_ops.size());
  exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {dst_md, y.data()}}};
  const memory_desc one = plain({1}, data_type::f32);
  float src_scale = out.src_scale, dst_scale = out.dst_scale;
  if (attr.src_scales) args.set(arg::src_scales, {one, &src_scale});
  if (attr.dst_scales) args.set(arg::dst_scales, {one, &dst_scale});
  testing::softmax_reference_attr ref;
  ref.src_scale = attr.src_scales ? src_scale : 1.0;
  ref.dst_scale = attr.dst_scales ? dst_scale : 1.0;
  ref.post_ops = attr.post_ops;
  for (size_t i = 0; i < attr.post_ops.size(); ++i) {
    ref.post_op_src1.push_back(nullptr);
    if (attr.post_ops[i].kind != post_op_kind::binary) continue;
    const memory_desc& op = attr.post_ops[i].src1;
    operands[i] = buffer(op);
    std::vector<double> v(static_cast<size_t>(op.nelems()));
    const bool integer = op.dt() == data_type::s8 || op.dt() == data_type::u8;
    for (size_t e = 0; e < v.size(); ++e) {
      v[e] = integer ? static_cast<double>(e % 5 + 1) : static_cast<double>(e % 7 + 1) * 0.125;
      if (nan_operands && !integer && e % 3 == 0) v[e] = std::nan("");
    }
    testing::write_logical(op, operands[i].data(), v);
    args.set(post_op_src1{static_cast<int>(i)}, {op, operands[i].data()});
    ref.post_op_src1.back() = operands[i].data();
  }
  ASSERT_TRUE(fwd->execute(args).ok());
  const std::vector<double> want =
      testing::softmax_forward_reference(alg, md, x.data(), lc.axis, ref);
  const std::vector<double> got = testing::read_logical(dst_md, y.data());
  ASSERT_EQ(got.size(), want.size());
  const bool int8 = out.dt == data_type::s8 || out.dt == data_type::u8;
  const double lo = out.dt == data_type::s8 ? -128 : 0, hi = out.dt == data_type::s8 ? 127 : 255;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
      continue;
    }
    const double expected = int8 ? std::clamp(want[i], lo, hi) : want[i];
    const double bound =
        kBound * std::max(1.0 / std::fabs(ref.dst_scale), std::fabs(want[i])) + (int8 ? 0.5 : 0.0);
    ASSERT_NEAR(got[i], expected, bound)
        << what << " on " << fwd->impl_name() << " element " << i;
  }
}

std::vector<std::string> vector_filters() {
  std::vector<std::string> f = softmax_test::kernel_filters();
  f.pop_back();  // the reference
  return f;
}

TEST(SoftmaxPostOpsKernels, EveryBinaryAlgorithmBroadcastAndOperandType) {
  const data_type types[] = {data_type::f32, data_type::bf16, data_type::f16, data_type::s8,
                             data_type::u8};
  for (const std::string& filter : vector_filters()) {
    for (const layout_case& lc : kLayouts) {
      int n = 0;
      for (const auto& shape : operand_shapes(lc.dims)) {
        for (binary_alg alg : {binary_alg::add, binary_alg::sub, binary_alg::mul,
                               binary_alg::div, binary_alg::max, binary_alg::min, binary_alg::ge,
                               binary_alg::gt, binary_alg::le, binary_alg::lt, binary_alg::eq,
                               binary_alg::ne}) {
          const data_type dt = types[n++ % 5];
          primitive_attr attr;
          attr.post_ops = {post_op::binary(alg, plain(shape, dt))};
          expect_matches_reference(lc, softmax_alg::softmax, attr, filter,
                                   std::string(name_of(alg)) + ":" + std::string(name_of(dt)) +
                                       ":mask" + std::to_string(broadcast_mask(plain(shape, dt))));
        }
      }
    }
  }
}

// NaN on either side of a binary post-op: the comparisons are C++'s (ne is true, the others
// false) and max/min return the other operand, as fmax/fmin do. sqrt of logsoftmax's negative
// outputs makes the NaN src0 lanes.
TEST(SoftmaxPostOpsKernels, BinaryAlgorithmsOnNanLanes) {
  for (const std::string& filter : vector_filters()) {
    for (const layout_case& lc : kLayouts) {
      for (binary_alg alg : {binary_alg::max, binary_alg::min, binary_alg::ge, binary_alg::gt,
                             binary_alg::le, binary_alg::lt, binary_alg::eq, binary_alg::ne}) {
        const memory_desc per_tensor = plain(lc.dims, data_type::f32);
        primitive_attr attr;
        attr.post_ops = {post_op::binary(alg, per_tensor)};
        expect_matches_reference(lc, softmax_alg::softmax, attr, filter,
                                 std::string(name_of(alg)) + " NaN operand", true);
        attr.post_ops = {post_op::eltwise(eltwise_alg::sqrt), post_op::binary(alg, per_tensor)};
        expect_matches_reference(lc, softmax_alg::logsoftmax, attr, filter,
                                 std::string(name_of(alg)) + " NaN src0 and operand", true);
      }
    }
  }
}

// tanh keeps a relative bound where softmax outputs are small (down to ~1e-9 here): the
// softmax's 4 eps plus tanh's few, 1e-6 relative; a tiny output stays nonzero.
TEST(SoftmaxPostOpsKernels, TanhIsRelativelyAccurateNearZero) {
  const memory_desc md = plain({4, 37}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::eltwise(eltwise_alg::tanh)};
  std::vector<float> x(static_cast<size_t>(md.nelems()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = -0.5f * static_cast<float>(i % 37);
  testing::softmax_reference_attr ref;
  ref.post_ops = attr.post_ops;
  const std::vector<double> want =
      testing::softmax_forward_reference(softmax_alg::softmax, md, x.data(), 1, ref);
  for (const std::string& filter : vector_filters()) {
    auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, 1, attr,
                                       {.impl_filter = filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    std::vector<float> y(x.size(), -9.f);
    ASSERT_TRUE(fwd->execute({{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}}).ok());
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(y[i], want[i], 1e-6 * want[i]) << fwd->impl_name() << " element " << i;
    }
  }
}

// logistic is 0 at and below kLogisticZeroAtOrBelow (oneDNN's definition, not the exact
// function's f32 denormal): divided by a zero operand, logsoftmax outputs there give NaN (0 / 0)
// and the ones above it +Inf, on every path.
TEST(SoftmaxPostOpsKernels, LogisticIsZeroWhereItsExpOverflows) {
  const memory_desc md = plain({2, 37}, data_type::f32);
  const memory_desc zero_md = plain({1, 1}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::eltwise(eltwise_alg::logistic),
                   post_op::binary(binary_alg::div, zero_md)};
  std::vector<float> x(static_cast<size_t>(md.nelems()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = -2.9f * static_cast<float>(i % 37);  // to -104
  float zero = 0.f;
  testing::softmax_reference_attr ref;
  ref.post_ops = attr.post_ops;
  ref.post_op_src1 = {nullptr, &zero};
  const std::vector<double> want =
      testing::softmax_forward_reference(softmax_alg::logsoftmax, md, x.data(), 1, ref);
  ASSERT_TRUE(std::isnan(want[36]) && std::isinf(want[0]));  // both sides of the bound
  for (const std::string& filter : softmax_test::kernel_filters()) {
    auto fwd = softmax_forward::create(softmax_alg::logsoftmax, md, md, 1, attr,
                                       {.impl_filter = filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    std::vector<float> y(x.size(), -9.f);
    exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}};
    args.set(post_op_src1{1}, {zero_md, &zero});
    ASSERT_TRUE(fwd->execute(args).ok());
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << fwd->impl_name() << " element " << i;
      } else {
        EXPECT_EQ(y[i], want[i]) << fwd->impl_name() << " element " << i;
      }
    }
  }
}

TEST(SoftmaxPostOpsKernels, EveryEltwiseAlgorithmOnEveryAlgorithm) {
  const post_op eltwise[] = {
      post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f), post_op::eltwise(eltwise_alg::relu, 0.25f),
      post_op::eltwise(eltwise_alg::clip, 0.01f, 0.5f), post_op::eltwise(eltwise_alg::abs),
      post_op::eltwise(eltwise_alg::square), post_op::eltwise(eltwise_alg::sqrt),
      post_op::eltwise(eltwise_alg::exp), post_op::eltwise(eltwise_alg::tanh),
      post_op::eltwise(eltwise_alg::logistic)};
  for (const std::string& filter : vector_filters()) {
    for (const layout_case& lc : kLayouts) {
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                              softmax_alg::softmax_inf_as_zero}) {
        for (const post_op& op : eltwise) {
          primitive_attr attr;
          attr.post_ops = {op};
          expect_matches_reference(lc, alg, attr, filter, to_string(attr.post_ops));
        }
      }
    }
  }
}

// The batches' chains: add per_oc, mul per_tensor, linear, add common + linear; then a long one
// with an operand whose layout differs from dst's (read lane by lane).
TEST(SoftmaxPostOpsKernels, ChainsOfTheBatchesAndOperandsInAnotherLayout) {
  for (const std::string& filter : vector_filters()) {
    for (const layout_case& lc : kLayouts) {
      const auto shapes = operand_shapes(lc.dims);
      std::vector<int> reversed(lc.dims.size());
      for (size_t d = 0; d < reversed.size(); ++d) reversed[d] = static_cast<int>(reversed.size() - 1 - d);
      for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16}) {
        primitive_attr attr;
        attr.post_ops = {post_op::binary(binary_alg::add, plain(shapes[1], dt)),
                         post_op::binary(binary_alg::mul, plain(shapes[2], dt)),
                         post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f),
                         post_op::binary(binary_alg::add, plain(shapes[0], dt)),
                         post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f),
                         post_op::binary(binary_alg::sub, plain(lc.dims, dt, reversed))};
        for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
          expect_matches_reference(lc, alg, attr, filter, to_string(attr.post_ops));
        }
      }
    }
  }
}

// oneDNN 3.x's order around the chain: post_ops(softmax * src_scale) / dst_scale, into f32 (a
// chain that does not cancel: add per_oc, then linear 0.5x + 1) and, every algorithm, into s8 and
// u8 (saturating: logsoftmax's results go far below both ranges).
TEST(SoftmaxPostOpsKernels, ScalesAroundTheChain) {
  for (const std::string& filter : vector_filters()) {
    for (const layout_case& lc : kLayouts) {
      primitive_attr attr;
      attr.src_scales = quant_param{};
      attr.dst_scales = quant_param{};
      const memory_desc per_oc = plain(operand_shapes(lc.dims)[1], data_type::f32);
      attr.post_ops = {post_op::binary(binary_alg::add, per_oc),
                       post_op::eltwise(eltwise_alg::linear, 0.5f, 1.f)};
      for (data_type dt : {data_type::f32, data_type::s8, data_type::u8}) {
        for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                                softmax_alg::softmax_inf_as_zero}) {
          if (dt == data_type::f32 && alg == softmax_alg::logsoftmax) continue;
          expect_matches_reference(lc, alg, attr, filter,
                                   std::string(name_of(dt)) + " " + to_string(attr.post_ops),
                                   false, {dt, 64.f, 0.5f});
        }
      }
    }
  }
}

// The chain runs in f32: a sub that absorbs a tiny softmax value (s - (-1) = 1 in f32) makes a
// following comparison with 1 false where f64 would find it true. Rows of u8 logits put most
// results far below 1e-7; every element then equals the reference whose post-op results are
// rounded to f32 step by step (testing::softmax_reference_attr::f32_steps).
TEST(SoftmaxPostOpsKernels, ComparisonsSeeTheF32Chain) {
  const memory_desc in = plain({10, 2, 9, 5}, data_type::u8, {1, 3, 0, 2});
  const memory_desc out = plain({10, 2, 9, 5}, data_type::f32, {1, 3, 0, 2});
  const memory_desc sub = plain({10, 1, 1, 5}, data_type::s8);
  const memory_desc cmp = plain({10, 2, 9, 1}, data_type::u8);
  primitive_attr attr;
  attr.post_ops = {post_op::binary(binary_alg::sub, sub), post_op::binary(binary_alg::gt, cmp)};
  std::vector<uint8_t> x(static_cast<size_t>(in.nelems()));
  std::mt19937 gen(5);
  for (auto& v : x) v = static_cast<uint8_t>(gen());
  std::vector<int8_t> minus_one(50, -1);
  std::vector<uint8_t> one(180, 1);
  testing::softmax_reference_attr ref;
  ref.post_ops = attr.post_ops;
  ref.post_op_src1 = {minus_one.data(), one.data()};
  ref.f32_steps = true;
  const auto want = testing::softmax_forward_reference(softmax_alg::softmax, in, x.data(), 3, ref);
  ref.f32_steps = false;
  const auto f64_chain = testing::softmax_forward_reference(softmax_alg::softmax, in, x.data(), 3, ref);
  ASSERT_NE(want, f64_chain) << "no element tells the two chains apart";
  for (const std::string& filter : vector_filters()) {
    auto fwd = softmax_forward::create(softmax_alg::softmax, in, out, 3, attr, {.impl_filter = filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    std::vector<float> y(x.size(), -9.f);
    exec_args args{{arg::src, {in, x.data()}}, {arg::dst, {out, y.data()}}};
    args.set(post_op_src1{0}, {sub, minus_one.data()});
    args.set(post_op_src1{1}, {cmp, one.data()});
    ASSERT_TRUE(fwd->execute(args).ok());
    EXPECT_EQ(testing::read_logical(out, y.data()), want) << fwd->impl_name();
  }
}

// -Inf rows: softmax_inf_as_zero's zeros go through the chain (0 + operand), as in the reference.
TEST(SoftmaxPostOpsKernels, InfAsZeroRowsGoThroughTheChain) {
  const memory_desc md = plain({2, 20}, data_type::f32);
  const memory_desc per_oc = plain({1, 20}, data_type::f32);
  primitive_attr attr;
  attr.post_ops = {post_op::binary(binary_alg::add, per_oc)};
  std::vector<float> b(20);
  for (int i = 0; i < 20; ++i) b[i] = static_cast<float>(i);
  for (const std::string& filter : vector_filters()) {
    auto fwd = softmax_forward::create(softmax_alg::softmax_inf_as_zero, md, md, 1, attr,
                                       {.impl_filter = filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    std::vector<float> x(40, -INFINITY), y(40, -9.f);
    for (int i = 20; i < 40; ++i) x[i] = 0.f;
    exec_args args{{arg::src, {md, x.data()}}, {arg::dst, {md, y.data()}}};
    args.set(post_op_src1{0}, {per_oc, b.data()});
    ASSERT_TRUE(fwd->execute(args).ok());
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(y[i], b[i]) << filter;
      EXPECT_FLOAT_EQ(y[20 + i], 0.05f + b[i]) << filter;
    }
  }
}

}  // namespace
}  // namespace tessera
