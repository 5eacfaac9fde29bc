#include "tessera/formats/make_memory_desc.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/index.h"
#include "tessera/formats/algebra.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;


TEST(MakeMemoryDesc, BlockedWithPadding) {
  absl::StatusOr<memory_desc> md = make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->kind(), format_kind::blocked);
  EXPECT_THAT(md->padded_dims(), ::testing::ElementsAre(2, 32, 3, 3));
  EXPECT_EQ(md->blocking().strides[0], 288);
  EXPECT_EQ(md->blocking().strides[1], 144);
  EXPECT_EQ(md->blocking().inner_nblks, 1);
  EXPECT_EQ(md->blocking().inner_blks[0], 16);
  EXPECT_EQ(md->blocking().inner_idxs[0], 1);
  EXPECT_EQ(md->size_bytes(), 2 * 32 * 3 * 3 * 4);
}

TEST(MakeMemoryDesc, OffsetsAgreeWithTheLayoutAndTheNodes) {
  for (const char* tag : {"nchw", "nhwc", "nChw16c", "OIhw4i16o4i", "ABcd16a16b", "cdba"}) {
    const std::vector<dim_t> dims = {18, 17, 2, 3};
    absl::StatusOr<memory_desc> md = make_memory_desc(dims, data_type::bf16, tag);
    ASSERT_TRUE(md.ok()) << tag << ": " << md.status();
    const layout l = *make_layout(tag, dims);
    absl::StatusOr<node_list> nodes = nodes_of(*md);
    ASSERT_TRUE(nodes.ok());
    std::vector<dim_t> padded(md->padded_dims().begin(), md->padded_dims().end());
    tessera::testing::for_each_index(padded, [&](absl::Span<const dim_t> i) {
      ASSERT_EQ(md->offset(i), l.offset(i)) << tag;
      ASSERT_EQ(nodes->offset(i), l.offset(i)) << tag;
    });
  }
}

TEST(MakeMemoryDesc, Any) {
  absl::StatusOr<memory_desc> md = make_memory_desc({2, 3}, data_type::s8, "any");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(md->kind(), format_kind::any);
}

TEST(MakeMemoryDesc, ErrorsNameTheBadValue) {
  auto msg = [](const absl::StatusOr<memory_desc>& m) { return std::string(m.status().message()); };
  EXPECT_THAT(msg(make_memory_desc({2, 3}, data_type::f32, "nchw")),
              HasSubstr("the tag has 4 dims, the dims have 2"));
  EXPECT_THAT(msg(make_memory_desc({2, 3, 4, 5}, data_type::f32, "nChw")),
              HasSubstr("format tag 'nChw' is invalid"));
  EXPECT_THAT(msg(make_memory_desc({2, -1}, data_type::f32, "ab")), HasSubstr("-1"));
  EXPECT_FALSE(make_memory_desc({dim_t{1} << 31, dim_t{1} << 31}, data_type::f64, "ab").ok());
  EXPECT_FALSE(make_memory_desc({1 << 20, 1 << 20, 1 << 20, 1 << 20}, data_type::f32, "abcd").ok());
}

}  // namespace
}  // namespace tessera
