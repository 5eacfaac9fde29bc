// Every example of docs/formats.md, compiled and checked: if this test changes, update the page.
#include <string>

#include "gtest/gtest.h"
#include "tessera/formats/algebra.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"

namespace tessera {
namespace {

// 1. Plain.
using Nchw = static_layout<"nchw", 2, 3, 4, 5>;
static_assert(Nchw::stride(0) == 60 && Nchw::stride(1) == 20 && Nchw::stride(2) == 5 &&
              Nchw::stride(3) == 1);
static_assert(Nchw::offset(1, 2, 0, 1) == 101);

// 2. Permuted: nhwc is acdb, c innermost.
using Nhwc = static_layout<"nhwc", 2, 3, 4, 5>;
static_assert(tag<"nhwc"> == tag<"acdb">);
static_assert(Nhwc::stride(0) == 60 && Nhwc::stride(1) == 1 && Nhwc::stride(2) == 15 &&
              Nhwc::stride(3) == 3);
static_assert(Nhwc::offset(1, 2, 0, 1) == 65);

// 3. Blocked and padded.
using Blocked = static_layout<"nChw16c", 2, 17, 3, 3>;
static_assert(Blocked::padded_dims()[1] == 32);
static_assert(Blocked::stride(0) == 288 && Blocked::stride(1) == 144 && Blocked::stride(2) == 48 &&
              Blocked::stride(3) == 16);
static_assert(Blocked::offset(1, 16, 2, 0) == 528);
static_assert(Blocked::required_span_size() == 576 && !Blocked::is_exhaustive());

// 4. Multi-level blocks.
static_assert(tag<"OIhw4i16o4i"> == tag<"ABcd4b16a4b">);
static_assert(static_layout<"OIhw4i16o4i", 32, 32, 1, 1>::offset(17, 6, 0, 0) == 512 + 64 + 4 + 2);

// 5. Algebra.
// permute_axes {0,2,3,1}: c becomes dim 2, h dim 3, w dim 1; memory order n,c,h,w reads a,c,d,b.
static_assert(permute(tag<"nchw">, {0, 2, 3, 1}) == tag<"acdb">);
static_assert(block(tag<"abcd">, 1, 16) == tag<"aBcd16b">);
static_assert(block(block(tag<"abcd">, 1, 4), 0, 16) == tag<"ABcd4b16a">);

TEST(DocsExamples, Algebra) {
  EXPECT_EQ(to_string(permute(tag<"nchw">, {0, 2, 3, 1})), "acdb");
  strided_dims s;
  s.rank = 3;
  s.dims = {2, 3, 4};
  s.strides = {40, 4, 1};
  const strided_dims c = coalesce(s);
  ASSERT_EQ(c.rank, 2);
  EXPECT_EQ(c.dims[0], 2);
  EXPECT_EQ(c.strides[0], 40);
  EXPECT_EQ(c.dims[1], 12);
  EXPECT_EQ(c.strides[1], 1);

  const std::vector<dim_t> dims = {2, 16, 3, 3};
  absl::StatusOr<loop_nest> nest = joint_coalesce(nodes_of(*make_layout("nchw", dims)),
                                                  nodes_of(*make_layout("nhwc", dims)));
  ASSERT_TRUE(nest.ok());
  EXPECT_EQ(to_string(*nest), "{2: 144,144} {9: 1,16} {16: 9,1}");
}

TEST(DocsExamples, MemoryDescAndStrings) {
  absl::StatusOr<memory_desc> md = make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->size_bytes(), 576 * 4);
  EXPECT_EQ(verbose_md_string(*md), "f32:p:blocked:aBcd16b:f0");
  EXPECT_EQ(*benchdnn_args(*md), "--sdt=f32 --stag=aBcd16b 2x17x3x3");
  EXPECT_EQ(std::string(make_memory_desc({2, 3}, data_type::f32, "nchw").status().message()),
            "format tag 'nchw' is invalid: the tag's rank must equal the number of dims "
            "(the tag has 4 dims, the dims have 2)");
}

}  // namespace
}  // namespace tessera
