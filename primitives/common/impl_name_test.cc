#include "tessera/primitives/common/impl_name.h"

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(ImplName, BuildsEngineIsaKernel) {
  EXPECT_EQ(impl_name(kEngineXsimd, "avx2", "convert"), "xsimd:avx2:convert");
  EXPECT_EQ(impl_name(kEngineNative, kAnyIsa, "copy"), "native:any:copy");
  EXPECT_EQ(impl_name(kEngineRef, kAnyIsa, "scalar"), "ref:any:scalar");
}

TEST(ImplName, ParsesWhatItBuilds) {
  const auto p = parse_impl_name(impl_name("xsimd", "avx512bw", "transpose16x16"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, (impl_name_parts{"xsimd", "avx512bw", "transpose16x16"}));
}

TEST(ImplName, RejectsOtherShapes) {
  EXPECT_EQ(parse_impl_name(""), std::nullopt);
  EXPECT_EQ(parse_impl_name("xsimd:avx2"), std::nullopt);
  EXPECT_EQ(parse_impl_name("xsimd:avx2:dense:extra"), std::nullopt);
  EXPECT_EQ(parse_impl_name("xsimd::dense"), std::nullopt);
  EXPECT_EQ(parse_impl_name(":avx2:dense"), std::nullopt);
}

}  // namespace
}  // namespace tessera
