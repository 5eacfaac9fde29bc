// Binding arguments, the overlap rule, unread arguments and the quantization argument helpers.
#include "tessera/primitives/common/binding.h"

#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/common/overlap.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/common/unread_args.h"

namespace tessera {
namespace {

memory_desc dense(std::vector<dim_t> dims, std::vector<dim_t> strides) {
  return *memory_desc::with_strides(dims, data_type::f32, strides);
}

TEST(BindArg, BindsAGivenArgumentWithTheCreatedDescriptor) {
  const memory_desc md = dense({2, 3}, {3, 1});
  float buf[6] = {};
  exec_args args{{arg::src, {md, buf}}};
  bound_arg b;
  EXPECT_EQ(bind_arg(args, arg::src, md, md.size_bytes(), b), bind_failure::none);
  EXPECT_EQ(b.data, buf);
  EXPECT_EQ(b.bytes, 24);
  EXPECT_EQ(*b.given, md);
}

TEST(BindArg, NamesTheFirstRuleThatFails) {
  const memory_desc md = dense({2, 3}, {3, 1});
  const memory_desc other = dense({2, 3}, {1, 2});
  float buf[6] = {};
  bound_arg b;
  EXPECT_EQ(bind_arg(exec_args{}, arg::src, md, 24, b), bind_failure::missing);
  EXPECT_EQ(b.given, nullptr);
  // b.given points into the exec_args: keep it alive while b is read.
  const exec_args with_other{{arg::src, {other, buf}}};
  EXPECT_EQ(bind_arg(with_other, arg::src, md, 24, b), bind_failure::other_descriptor);
  EXPECT_EQ(*b.given, other);
  // A null buffer: an error unless the descriptor spans no bytes.
  EXPECT_EQ(bind_arg(exec_args{{arg::src, {md, nullptr}}}, arg::src, md, 24, b),
            bind_failure::null_data);
  const memory_desc empty = dense({0, 3}, {3, 1});
  EXPECT_EQ(bind_arg(exec_args{{arg::src, {empty, nullptr}}}, arg::src, empty, 0, b),
            bind_failure::none);
}

bound_arg at(char* p, int64_t bytes) { return bound_arg{p, bytes}; }

TEST(Overlap, SameBufferDisjointOrPartial) {
  char buf[64];
  EXPECT_EQ(overlap_of(at(buf, 16), at(buf + 16, 16)), buffer_overlap::disjoint);
  EXPECT_EQ(overlap_of(at(buf + 16, 16), at(buf, 16)), buffer_overlap::disjoint);
  EXPECT_EQ(overlap_of(at(buf, 16), at(buf, 32)), buffer_overlap::same_start);
  EXPECT_EQ(overlap_of(at(buf, 16), at(buf + 15, 16)), buffer_overlap::partial);
  EXPECT_EQ(overlap_of(at(buf + 15, 16), at(buf, 16)), buffer_overlap::partial);
  // A buffer of no bytes overlaps nothing, even at the same address.
  EXPECT_EQ(overlap_of(at(buf, 0), at(buf, 16)), buffer_overlap::disjoint);
  EXPECT_EQ(overlap_of(at(buf, 16), at(buf + 4, 0)), buffer_overlap::disjoint);
}

TEST(UnreadArgs, FindsTheFirstGivenArgumentNotRead) {
  const memory_desc md = dense({2}, {1});
  float buf[2];
  exec_args args{{arg::src, {md, buf}}, {arg::dst_scales, {md, buf}}, {arg::diff_dst, {md, buf}}};
  auto reads_src = [](arg a) { return a == arg::src; };
  EXPECT_EQ(first_unread(args, reads_src), arg::diff_dst);  // in the order of `arg`
  auto reads_all_but_scales = [](arg a) { return a != arg::dst_scales; };
  EXPECT_EQ(first_unread(args, reads_all_but_scales), arg::dst_scales);
  EXPECT_EQ(first_unread(args, [](arg) { return true; }), std::nullopt);
  EXPECT_EQ(first_unread(exec_args{}, [](arg) { return false; }), std::nullopt);
}

TEST(QuantArgs, AttributeOfEachArgumentAndValueCount) {
  primitive_attr attr;
  attr.src_scales = quant_param{.mask = 2};
  attr.dst_zero_points = quant_param{.mask = 0};
  EXPECT_TRUE(attr_declares(attr, arg::src_scales));
  EXPECT_FALSE(attr_declares(attr, arg::dst_scales));
  EXPECT_FALSE(attr_declares(attr, arg::src_zero_points));
  EXPECT_TRUE(attr_declares(attr, arg::dst_zero_points));
  EXPECT_FALSE(attr_declares(attr, arg::src));
  EXPECT_EQ(quant_attr_of(attr, arg::src_scales)->mask, 2);
  const std::vector<dim_t> dims = {2, 3, 5};
  EXPECT_EQ(quant_value_count(0, dims), 1);
  EXPECT_EQ(quant_value_count(2, dims), 3);
  EXPECT_EQ(quant_value_count(5, dims), 10);
  EXPECT_EQ(quant_value_count(7, dims), 30);
}

}  // namespace
}  // namespace tessera
