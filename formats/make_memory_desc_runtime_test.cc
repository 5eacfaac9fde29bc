// Descriptors from a tag with run-time dims: the strides that depend on a run-time dim are
// run-time, the others keep their values, and the tag's descriptor of any concrete dims fits.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"

namespace tessera {
namespace {

constexpr dim_t R = kRuntimeDim;

TEST(MakeMemoryDescRuntime, PlainTagKeepsOnlyTheStridesInsideTheRuntimeDims) {
  absl::StatusOr<memory_desc> p = make_memory_desc({R, 16, R, 4}, data_type::f32, "abcd");
  ASSERT_TRUE(p.ok()) << p.status();
  // d: 1; c: 4; b: 4 * c (run-time); a: run-time.
  EXPECT_THAT(absl::MakeConstSpan(p->blocking().strides.data(), 4), ::testing::ElementsAre(R, R, 4, 1));
  absl::StatusOr<memory_desc> q = make_memory_desc({2, R}, data_type::f32, "ba");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(absl::MakeConstSpan(q->blocking().strides.data(), 2), ::testing::ElementsAre(1, 2));
}

TEST(MakeMemoryDescRuntime, BlockedTagPadsRuntimeDimsAtRunTime) {
  absl::StatusOr<memory_desc> p = make_memory_desc({R, R, 3, R}, data_type::f32, "nChw16c");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->padded_dims(), ::testing::ElementsAre(R, R, 3, R));
  // w: 16; h: 16 * W (run-time); C: run-time; n: run-time.
  EXPECT_THAT(absl::MakeConstSpan(p->blocking().strides.data(), 4), ::testing::ElementsAre(R, R, R, 16));
  EXPECT_EQ(p->blocking().inner_nblks, 1);
  EXPECT_EQ(p->blocking().inner_blks[0], 16);
}

TEST(MakeMemoryDescRuntime, ConcreteDescriptorsOfTheTagFit) {
  for (const char* tag : {"abcd", "acdb", "dcba", "aBcd16b", "ABcd4b4a", "aBcd8b"}) {
    absl::StatusOr<memory_desc> p = make_memory_desc({R, R, R, R}, data_type::s8, tag);
    ASSERT_TRUE(p.ok()) << tag << ": " << p.status();
    absl::StatusOr<memory_desc> half = make_memory_desc({R, 17, 3, R}, data_type::s8, tag);
    ASSERT_TRUE(half.ok()) << tag << ": " << half.status();
    for (const std::vector<dim_t>& dims : std::vector<std::vector<dim_t>>{{2, 17, 3, 4}, {1, 17, 3, 1}, {5, 17, 3, 9}}) {
      memory_desc c = *make_memory_desc(dims, data_type::s8, tag);
      EXPECT_TRUE(c.check_fits(*p).ok()) << tag << ": " << c.check_fits(*p);
      EXPECT_TRUE(c.check_fits(*half).ok()) << tag << ": " << c.check_fits(*half);
    }
    memory_desc other = *make_memory_desc({2, 18, 3, 4}, data_type::s8, tag);
    EXPECT_FALSE(other.check_fits(*half).ok()) << tag;
  }
}

TEST(MakeMemoryDescRuntime, BadTagsAreStillNamed) {
  absl::StatusOr<memory_desc> p = make_memory_desc({R, 3}, data_type::f32, "abc");
  EXPECT_FALSE(p.ok());
}

}  // namespace
}  // namespace tessera
