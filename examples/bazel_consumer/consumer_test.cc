// Runs Tessera's reorder and softmax from another workspace, through the public headers.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "image_tiles.h"
#include <tessera/formats/make_memory_desc.h>
#include <tessera/primitives/reorder/reorder.h>
#include <tessera/primitives/softmax/softmax.h>

namespace {

using tessera::data_type;

TEST(Consumer, ReorderPlainToBlockedMatchesCompileTimeLayout) {
  using image = consumer::blocked_image<2, 17, 3, 3>;
  auto src_md = tessera::make_memory_desc({2, 17, 3, 3}, data_type::f32, "nchw");
  auto dst_md = tessera::make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  ASSERT_TRUE(src_md.ok() && dst_md.ok());
  ASSERT_EQ(dst_md->size_bytes(), image::buffer_elements * 4);

  std::vector<float> src(2 * 17 * 3 * 3);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i);
  std::vector<float> dst(image::buffer_elements, -1.f);
  auto r = tessera::reorder::create(*src_md, *dst_md);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->execute({{tessera::arg_from, {*src_md, src.data()}},
                          {tessera::arg_to, {*dst_md, dst.data()}}})
                  .ok());

  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 32; ++c)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 3; ++w) {
          float got = dst[image::tile_offset(n, c / 16, h, w) + c % 16];
          float want = c < 17 ? src[((n * 17 + c) * 3 + h) * 3 + w] : 0.f;  // padding is zero
          ASSERT_EQ(got, want) << n << "," << c << "," << h << "," << w;
        }
}

TEST(Consumer, SoftmaxRowsMatchTheFormula) {
  const int rows = 4, cols = 10;
  auto md = tessera::make_memory_desc({rows, cols}, data_type::f32, "ab");
  ASSERT_TRUE(md.ok());
  std::vector<float> x(rows * cols), y(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = std::sin(0.37 * i) * 5;
  auto sm = tessera::softmax_forward::create(tessera::softmax_alg::softmax, *md, *md, /*axis=*/1);
  ASSERT_TRUE(sm.ok()) << sm.status();
  ASSERT_TRUE(sm->execute({{tessera::arg::src, {*md, x.data()}}, {tessera::arg::dst, {*md, y.data()}}}).ok());
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, double(x[r * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(double(x[r * cols + c]) - mx);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(double(x[r * cols + c]) - mx) / sum;
      EXPECT_NEAR(y[r * cols + c], want, 4 * 1.2e-7 * want) << r << "," << c;
    }
  }
}

}  // namespace
