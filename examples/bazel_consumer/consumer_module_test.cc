// The consumer's module path: compile-time layouts and a reorder through `import tessera;`.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
import tessera;

using weights = tessera::static_layout<"OIhw16i16o", 32, 32, 3, 3>;
static_assert(weights::required_span_size() == 32 * 32 * 9);
static_assert(weights::offset(0, 1, 0, 0) == 16);  // i is the outer block, o the inner one

TEST(ConsumerModule, BlockedWeightsRoundTrip) {
  auto plain = tessera::make_memory_desc({32, 32, 3, 3}, tessera::data_type::f32, "oihw");
  auto blocked_md = tessera::make_memory_desc({32, 32, 3, 3}, tessera::data_type::f32, "OIhw16i16o");
  ASSERT_TRUE(plain.ok() && blocked_md.ok());
  std::vector<float> a(32 * 32 * 9), b(a.size()), c(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 251) - 100.f;
  auto to = tessera::reorder::create(*plain, *blocked_md);
  auto back = tessera::reorder::create(*blocked_md, *plain);
  ASSERT_TRUE(to.ok() && back.ok());
  ASSERT_TRUE(to->execute({{tessera::arg_from, {*plain, a.data()}}, {tessera::arg_to, {*blocked_md, b.data()}}}).ok());
  ASSERT_TRUE(back->execute({{tessera::arg_from, {*blocked_md, b.data()}}, {tessera::arg_to, {*plain, c.data()}}}).ok());
  EXPECT_EQ(a, c);
  EXPECT_EQ(b[weights::offset(5, 20, 1, 2)], a[((5 * 32 + 20) * 3 + 1) * 3 + 2]);
}
