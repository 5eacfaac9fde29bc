// Runs Tessera's reorder and softmax in a workspace whose Abseil is its own, and reads their
// absl::Status results through that Abseil.
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include <tessera/formats/make_memory_desc.h>
#include <tessera/primitives/reorder/reorder.h>
#include <tessera/primitives/softmax/softmax.h>

namespace own_abseil_consumer {
bool tessera_uses_monorepo_abseil();
}

namespace {

using tessera::data_type;

TEST(OwnAbseil, TesseraIsBuiltAgainstTheWorkspacesAbseil) {
  EXPECT_TRUE(own_abseil_consumer::tessera_uses_monorepo_abseil());
}

TEST(OwnAbseil, ReorderNchwToNhwc) {
  const int64_t n = 2, c = 3, h = 4, w = 5;
  absl::StatusOr<tessera::memory_desc> src_md =
      tessera::make_memory_desc({n, c, h, w}, data_type::f32, "nchw");
  absl::StatusOr<tessera::memory_desc> dst_md =
      tessera::make_memory_desc({n, c, h, w}, data_type::f32, "nhwc");
  ASSERT_TRUE(src_md.ok()) << src_md.status();
  ASSERT_TRUE(dst_md.ok()) << dst_md.status();

  std::vector<float> src(n * c * h * w), dst(src.size(), -1.f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i);
  auto reorder = tessera::reorder::create(*src_md, *dst_md);
  ASSERT_TRUE(reorder.ok()) << reorder.status();
  absl::Status done = reorder->execute({{tessera::arg_from, {*src_md, src.data()}},
                                        {tessera::arg_to, {*dst_md, dst.data()}}});
  ASSERT_TRUE(done.ok()) << done;

  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw)
          ASSERT_EQ(dst[((in * h + ih) * w + iw) * c + ic], src[((in * c + ic) * h + ih) * w + iw])
              << in << "," << ic << "," << ih << "," << iw;
}

TEST(OwnAbseil, SoftmaxSumsRowsToOne) {
  const int rows = 3, cols = 7;
  auto md = tessera::make_memory_desc({rows, cols}, data_type::f32, "ab");
  ASSERT_TRUE(md.ok()) << md.status();
  std::vector<float> x(rows * cols), y(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = std::cos(0.5 * i) * 3;
  auto softmax = tessera::softmax_forward::create(tessera::softmax_alg::softmax, *md, *md, 1);
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  ASSERT_TRUE(softmax->execute({{tessera::arg::src, {*md, x.data()}}, {tessera::arg::dst, {*md, y.data()}}})
                  .ok());
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int col = 0; col < cols; ++col) sum += y[r * cols + col];
    EXPECT_NEAR(sum, 1.0, 1e-5) << r;
  }
}

TEST(OwnAbseil, BadAxisIsAnInvalidArgumentStatus) {
  auto md = tessera::make_memory_desc({2, 3}, data_type::f32, "ab");
  ASSERT_TRUE(md.ok()) << md.status();
  auto softmax = tessera::softmax_forward::create(tessera::softmax_alg::softmax, *md, *md, 2);
  ASSERT_FALSE(softmax.ok());
  EXPECT_EQ(softmax.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(softmax.status().message(), "axis 2 is out of range"))
      << softmax.status();
}

}  // namespace
