// Tessera through `import tessera;` only: no Tessera header is included here.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
import tessera;

// Compile-time tags and static layouts.
static_assert(tessera::tag<"nChw16c"> == tessera::tag<"aBcd16b">);
using blocked = tessera::static_layout<"nChw16c", 2, 17, 3, 3>;
static_assert(tessera::StaticLayout<blocked>);
static_assert(blocked::required_span_size() == 2 * 32 * 3 * 3);
static_assert(blocked::offset(0, 16, 0, 0) == 16 * 3 * 3);
using transposed = tessera::static_layout<"ba", 4, 5>;
static_assert(transposed::stride(0) == 1 && transposed::stride(1) == 4);
static_assert(tessera::FloatingElement<tessera::bf16>);

namespace {

TEST(ImportOnly, ReorderTransposes) {
  auto src_md = tessera::make_memory_desc({4, 5}, tessera::data_type::f32, "ab");
  auto dst_md = tessera::make_memory_desc({4, 5}, tessera::data_type::f32, "ba");
  ASSERT_TRUE(src_md.ok() && dst_md.ok());
  std::vector<float> src(20), dst(20, -1.f);
  for (int i = 0; i < 20; ++i) src[i] = float(i);
  auto r = tessera::reorder::create(*src_md, *dst_md);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->execute({{tessera::arg_from, {*src_md, src.data()}},
                          {tessera::arg_to, {*dst_md, dst.data()}}})
                  .ok());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(dst[transposed::offset(i, j)], src[i * 5 + j]);
}

TEST(ImportOnly, SoftmaxOfEqualValuesIsUniform) {
  auto md = tessera::make_memory_desc({3, 8}, tessera::data_type::f32, "ab");
  ASSERT_TRUE(md.ok());
  std::vector<float> x(24, 2.5f), y(24, 0.f);
  auto sm = tessera::softmax_forward::create(tessera::softmax_alg::softmax, *md, *md, 1);
  ASSERT_TRUE(sm.ok()) << sm.status().ToString();
  ASSERT_TRUE(sm->execute({{tessera::arg::src, {*md, x.data()}}, {tessera::arg::dst, {*md, y.data()}}}).ok());
  for (float v : y) EXPECT_FLOAT_EQ(v, 0.125f);
}

TEST(ImportOnly, VerboseLevelsParseAsOneDnnDoes) {
  auto two = tessera::parse_verbose_flags("2");
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(*two, tessera::verbose_flags::level2);
  EXPECT_EQ(*two & tessera::verbose_flags::create_profile, tessera::verbose_flags::create_profile);
  {
    tessera::scoped_verbose on(tessera::verbose_flags::level1 |
                               tessera::verbose_flags::create_dispatch);
    EXPECT_EQ(tessera::verbose_setting(),
              tessera::verbose_flags::level1 | tessera::verbose_flags::create_dispatch);
  }
  EXPECT_FALSE(tessera::parse_verbose_flags("exec").ok());
}

}  // namespace
