#include "tessera/primitives/common/post_ops.h"

#include <cmath>

#include "absl/hash/hash.h"
#include "gtest/gtest.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"

namespace tessera {
namespace {

memory_desc plain(std::vector<dim_t> dims, data_type dt) {
  std::vector<dim_t> strides(dims.size());
  dim_t s = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= dims[d];
  }
  return *memory_desc::with_strides(dims, dt, strides);
}

TEST(PostOps, TextNamesEveryEntryInOrder) {
  primitive_attr attr;
  attr.post_ops.push_back(post_op::binary(binary_alg::add, plain({1, 8, 1}, data_type::f32)));
  attr.post_ops.push_back(post_op::binary(binary_alg::mul, plain({1, 1, 1}, data_type::bf16)));
  attr.post_ops.push_back(post_op::binary(binary_alg::ge, plain({4, 8, 5}, data_type::f16)));
  attr.post_ops.push_back(post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f));
  attr.post_ops.push_back(post_op::eltwise(eltwise_alg::relu, 0.25f));
  attr.post_ops.push_back(post_op::eltwise(eltwise_alg::abs));
  EXPECT_EQ(to_string(attr),
            "post_ops:add:f32:per_oc+mul:bf16:common+ge:f16:7+linear:0.5:2+relu:0.25+abs");
  EXPECT_EQ(verbose_string(attr.post_ops),
            "binary_add:f32:2+binary_mul:bf16:0+binary_ge:f16:7+eltwise_linear:0.5:2+"
            "eltwise_relu:0.25+eltwise_abs");
  attr.sum = sum_post_op{.beta = 2.f};
  attr.acc_mode = accumulation_mode::relaxed;
  EXPECT_EQ(to_string(attr), "post_ops:sum:2+add:f32:per_oc+mul:bf16:common+ge:f16:7+"
                             "linear:0.5:2+relu:0.25+abs;acc_mode:relaxed");
}

TEST(PostOps, AttributesWithPostOpsOrAccModeAreNotEmptyAndCompareByValue) {
  primitive_attr a, b;
  EXPECT_TRUE(a.empty());
  a.acc_mode = accumulation_mode::any;
  EXPECT_FALSE(a.empty());
  EXPECT_NE(a, b);
  b.acc_mode = accumulation_mode::any;
  a.post_ops.push_back(post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f));
  b.post_ops.push_back(post_op::eltwise(eltwise_alg::linear, 0.5f, 3.f));
  EXPECT_NE(a, b);
  EXPECT_NE(absl::Hash<primitive_attr>()(a), absl::Hash<primitive_attr>()(b));
  b.post_ops[0].beta = 2.f;
  EXPECT_EQ(a, b);
  EXPECT_EQ(absl::Hash<primitive_attr>()(a), absl::Hash<primitive_attr>()(b));
  a.post_ops.push_back(post_op::binary(binary_alg::add, plain({1, 3}, data_type::f32)));
  b.post_ops.push_back(post_op::binary(binary_alg::add, plain({2, 3}, data_type::f32)));
  EXPECT_NE(a, b);
}

TEST(PostOps, BroadcastNeedsTheRankAndEachDimOneOrDsts) {
  const std::vector<dim_t> dst = {2, 8, 5};
  auto op = [](std::vector<dim_t> dims) {
    return post_op::binary(binary_alg::add, plain(dims, data_type::f32));
  };
  EXPECT_TRUE(check_broadcast(op({1, 1, 1}), 0, dst, "softmax").ok());
  EXPECT_TRUE(check_broadcast(op({1, 8, 1}), 0, dst, "softmax").ok());
  EXPECT_TRUE(check_broadcast(op({2, 8, 5}), 0, dst, "softmax").ok());
  absl::Status st = check_broadcast(op({1, 4, 1}), 3, dst, "softmax");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "softmax: post-op 3 (binary add) has operand dims 1x4x1 that do not broadcast to dst "
            "dims 2x8x5 (the same rank, each dim equal to dst's or 1)");
  EXPECT_FALSE(check_broadcast(op({1, 8}), 0, dst, "softmax").ok());
  EXPECT_EQ(broadcast_mask(plain({1, 8, 5}, data_type::f32)), 6);
}

TEST(PostOps, ScalarOperationsFollowOneDnnsFormulas) {
  EXPECT_EQ(apply_eltwise(eltwise_alg::linear, 0.5f, 2.f, 3.f), 3.5f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::relu, 0.25f, 0.f, -4.f), -1.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::relu, 0.25f, 0.f, 4.f), 4.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::clip, -1.f, 1.f, 3.f), 1.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::abs, 0.f, 0.f, -3.f), 3.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::square, 0.f, 0.f, -3.f), 9.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::sqrt, 0.f, 0.f, 9.f), 3.f);
  EXPECT_FLOAT_EQ(apply_eltwise(eltwise_alg::logistic, 0.f, 0.f, 0.f), 0.5f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::logistic, 0.f, 0.f, kLogisticZeroAtOrBelow), 0.f);
  EXPECT_GT(apply_eltwise(eltwise_alg::logistic, 0.f, 0.f, -88.f), 0.f);
  EXPECT_EQ(apply_eltwise(eltwise_alg::logistic, 0.0, 0.0, -100.0), 0.0);
  EXPECT_EQ(apply_binary(binary_alg::sub, 1.f, 3.f), -2.f);
  EXPECT_EQ(apply_binary(binary_alg::div, 1.f, 4.f), 0.25f);
  EXPECT_EQ(apply_binary(binary_alg::max, 1.f, 4.f), 4.f);
  EXPECT_EQ(apply_binary(binary_alg::min, 1.f, 4.f), 1.f);
  EXPECT_EQ(apply_binary(binary_alg::ge, 4.f, 4.f), 1.f);
  EXPECT_EQ(apply_binary(binary_alg::gt, 4.f, 4.f), 0.f);
  EXPECT_EQ(apply_binary(binary_alg::le, 5.f, 4.f), 0.f);
  EXPECT_EQ(apply_binary(binary_alg::lt, 3.f, 4.f), 1.f);
  EXPECT_EQ(apply_binary(binary_alg::eq, 3.f, 4.f), 0.f);
  // NaN: max and min return b unless the ordered compare picks a (oneDNN's a > b ? a : b, what
  // maxps does); ne is true and the other comparisons false.
  const float nan = std::nanf("");
  EXPECT_TRUE(std::isnan(apply_binary(binary_alg::max, 1.f, nan)));
  EXPECT_EQ(apply_binary(binary_alg::max, nan, 1.f), 1.f);
  EXPECT_TRUE(std::isnan(apply_binary(binary_alg::min, 1.f, nan)));
  EXPECT_EQ(apply_binary(binary_alg::min, nan, 1.f), 1.f);
  EXPECT_EQ(apply_binary(binary_alg::ne, nan, nan), 1.f);
  EXPECT_EQ(apply_binary(binary_alg::eq, nan, nan), 0.f);
  EXPECT_EQ(apply_binary(binary_alg::ge, nan, 1.f), 0.f);
  EXPECT_EQ(apply_binary(binary_alg::ne, 3.f, 4.f), 1.f);
}

TEST(PostOps, ExecArgsHoldOperandsByPosition) {
  float a = 1, b = 2;
  const memory_desc md = plain({1}, data_type::f32);
  exec_args args;
  EXPECT_EQ(args.find(post_op_src1{0}), nullptr);
  args.set(post_op_src1{2}, memory{md, &a});
  args.set(post_op_src1{0}, memory{md, &b});
  args.set(post_op_src1{2}, memory{md, &b});
  ASSERT_NE(args.find(post_op_src1{2}), nullptr);
  EXPECT_EQ(args.find(post_op_src1{2})->data, &b);
  EXPECT_EQ(args.find(post_op_src1{1}), nullptr);
  EXPECT_EQ(args.post_op_src1_indices(), (std::vector<int>{2, 0}));
  EXPECT_EQ(name_of(post_op_src1{2}), "post_op_src1(2)");
}

}  // namespace
}  // namespace tessera
