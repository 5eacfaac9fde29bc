// Run-time dims and strides (kRuntimeDim): accepted by the constructors, reported by the queries
// that need concrete values, and matched against concrete descriptors by check_fits.
#include <vector>

#include "absl/hash/hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/memory_desc.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr dim_t R = kRuntimeDim;

TEST(MemoryDescRuntime, ValueIsOneDnnsRuntimeDimVal) { EXPECT_EQ(kRuntimeDim, INT64_MIN); }

TEST(MemoryDescRuntime, StridedAcceptsRuntimeDimsAndStrides) {
  absl::StatusOr<memory_desc> p = memory_desc::with_strides({R, 5, R}, data_type::f32, {R, R, 1});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->has_runtime_dims());
  EXPECT_TRUE(p->has_runtime_strides());
  EXPECT_TRUE(p->has_runtime_dims_or_strides());
  EXPECT_THAT(p->dims(), ::testing::ElementsAre(R, 5, R));
  EXPECT_THAT(p->padded_dims(), ::testing::ElementsAre(R, 5, R));
  // The queries that need concrete values say so, as oneDNN's do.
  EXPECT_EQ(p->nelems(), kRuntimeDim);
  EXPECT_EQ(p->size_bytes(), kRuntimeDim);
  EXPECT_EQ(p->offset({0, 1, 2}), kRuntimeDim);
  EXPECT_FALSE(p->is_dense());
  EXPECT_TRUE(p->is_plain());
}

TEST(MemoryDescRuntime, RuntimeStridesOnlyKeepTheElementCount) {
  absl::StatusOr<memory_desc> p = memory_desc::with_strides({3, 5}, data_type::s8, {R, 1});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->has_runtime_dims());
  EXPECT_TRUE(p->has_runtime_strides());
  EXPECT_EQ(p->nelems(), 15);
  EXPECT_EQ(p->size_bytes(), kRuntimeDim);  // the extent depends on the stride
}

TEST(MemoryDescRuntime, AnEmptyDimStillCountsZeroElements) {
  absl::StatusOr<memory_desc> p = memory_desc::with_strides({0, R}, data_type::f32, {R, 1});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->nelems(), 0);
}

TEST(MemoryDescRuntime, BlockingAndAnyAcceptRuntimeDims) {
  blocking_desc b;
  b.strides[0] = R;
  b.strides[1] = 16;
  b.inner_nblks = 1;
  b.inner_blks[0] = 16;
  b.inner_idxs[0] = 0;
  absl::StatusOr<memory_desc> p = memory_desc::with_blocking({R, 3}, data_type::f32, b);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->padded_dims(), ::testing::ElementsAre(R, 3));
  EXPECT_TRUE(p->is_blocked());
  absl::StatusOr<memory_desc> a = memory_desc::any({R, 7}, data_type::bf16);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->has_runtime_dims());
  EXPECT_FALSE(a->has_runtime_strides());
}

TEST(MemoryDescRuntime, OtherNegativeValuesAreStillRejected) {
  auto d = memory_desc::with_strides({-1, 3}, data_type::f32, {3, 1});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("dims[0] = -1 is negative"));
  auto s = memory_desc::with_strides({2, 3}, data_type::f32, {R + 1, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("is negative; strides must be >= 0"));
}

TEST(MemoryDescRuntime, ViewsNeedConcreteValues) {
  memory_desc p = *memory_desc::with_strides({R, 4}, data_type::f32, {4, 1});
  auto sub = p.submemory({1, 4}, {0, 0});
  ASSERT_FALSE(sub.ok());
  EXPECT_THAT(sub.status().message(), HasSubstr("submemory: the parent has run-time dims or strides (dims {*,4})"));
  auto re = p.reshape({4, 1});
  ASSERT_FALSE(re.ok());
  EXPECT_THAT(re.status().message(), HasSubstr("reshape: the descriptor has run-time dims or strides"));
  // permute_axes moves run-time values with their dims.
  auto t = p.permute_axes({1, 0});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->dims(), ::testing::ElementsAre(4, R));
  EXPECT_TRUE(t->has_runtime_dims());
}

TEST(MemoryDescRuntime, ConcreteDescriptorsFitTheirPattern) {
  memory_desc p = *memory_desc::with_strides({R, 5, R}, data_type::f32, {R, R, 1});
  for (dim_t n : {1, 2, 9}) {
    for (dim_t w : {1, 4, 33}) {
      memory_desc c = *memory_desc::with_strides({n, 5, w}, data_type::f32, {5 * w, w, 1});
      EXPECT_TRUE(c.check_fits(p).ok()) << c.check_fits(p);
      EXPECT_FALSE(c.has_runtime_dims_or_strides());
    }
  }
}

TEST(MemoryDescRuntime, CheckFitsNamesWhatDiffers) {
  memory_desc p = *memory_desc::with_strides({R, 5, R}, data_type::f32, {R, R, 1});
  absl::Status dim = memory_desc::with_strides({2, 6, 3}, data_type::f32, {18, 3, 1})->check_fits(p);
  EXPECT_THAT(dim.message(), HasSubstr("dims[1] = 6 does not fit the pattern's dims[1] = 5"));
  EXPECT_THAT(dim.message(), HasSubstr("pattern dims {*,5,*}"));
  absl::Status stride = memory_desc::with_strides({2, 5, 3}, data_type::f32, {30, 6, 2})->check_fits(p);
  EXPECT_THAT(stride.message(), HasSubstr("strides[2] = 2 does not fit the pattern's strides[2] = 1"));
  absl::Status type = memory_desc::with_strides({2, 5, 3}, data_type::s8, {15, 3, 1})->check_fits(p);
  EXPECT_THAT(type.message(), HasSubstr("blocked s8 of rank 3 does not fit the pattern's blocked f32 of rank 3"));
  absl::Status itself = p.check_fits(p);
  EXPECT_THAT(itself.message(), HasSubstr("has run-time dims or strides itself"));
}

TEST(MemoryDescRuntime, PatternsCompareAndHashByValue) {
  memory_desc a = *memory_desc::with_strides({R, 5}, data_type::f32, {R, 1});
  memory_desc b = *memory_desc::with_strides({R, 5}, data_type::f32, {R, 1});
  memory_desc c = *memory_desc::with_strides({R, 5}, data_type::f32, {5, 1});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(absl::Hash<memory_desc>()(a), absl::Hash<memory_desc>()(b));
}

}  // namespace
}  // namespace tessera
