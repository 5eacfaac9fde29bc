#include "tessera/formats/axis_view.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/internal/random_tag.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

TEST(AxisView, Example) {
  const memory_desc md = *make_memory_desc({2, 32, 3, 3}, data_type::f32, "nChw16c");
  const axis_view v = *axis_view_of(md, 1);
  ASSERT_EQ(v.axis.count, 2);
  EXPECT_EQ(v.axis.nodes[0], (layout_node{2, 144, 1, 16}));
  EXPECT_EQ(v.axis.nodes[1], (layout_node{16, 1, 1, 1}));
  ASSERT_EQ(v.others.rank, 2);
  EXPECT_EQ(v.others.dims[0], 2);
  EXPECT_EQ(v.others.strides[0], 288);
  EXPECT_EQ(v.others.dims[1], 9);
  EXPECT_EQ(v.others.strides[1], 16);
}

TEST(AxisView, AxisNodesAndRowLoopsReachEveryElementOnce) {
  std::mt19937 rng(37);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = 1 + trial % 5;
    const int axis = static_cast<int>(rng() % rank);
    tag_layout t = random_plain_tag(rng, rank);
    const dim_t sizes[] = {2, 4, 8, 16};
    for (int b = static_cast<int>(rng() % 3); b > 0; --b) t = block(t, axis, sizes[rng() % 4]);
    std::vector<dim_t> dims(rank);
    for (dim_t& d : dims) d = 1 + rng() % 7;
    const memory_desc md = *make_memory_desc(dims, data_type::f32, to_string(t));
    const std::string what = to_string(t) + " along " + std::to_string(axis);
    const axis_view v = *axis_view_of(md, axis);

    std::vector<dim_t> zero(rank, 0);
    const dim_t origin = md.offset(zero);
    for (dim_t a = 0; a < md.padded_dims()[axis]; ++a) {
      std::vector<dim_t> i(rank, 0);
      i[axis] = a;
      ASSERT_EQ(v.axis.offset(i), md.offset(i) - origin) << what;
    }
    std::vector<dim_t> want, got;
    tessera::testing::for_each_index(dims, [&](absl::Span<const dim_t> i) {
      want.push_back(md.offset(i) - origin);
    });
    dim_t rows = 1;
    for (int k = 0; k < v.others.rank; ++k) rows *= v.others.dims[k];
    for (dim_t r = 0; r < rows; ++r) {
      for (dim_t a = 0; a < dims[axis]; ++a) {
        std::vector<dim_t> i(rank, 0);
        i[axis] = a;
        got.push_back(v.others.offset_of_linear(r) + v.axis.offset(i));
      }
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << what;
    for (int k = 0; k + 1 < v.others.rank; ++k) {
      EXPECT_NE(v.others.strides[k], v.others.strides[k + 1] * v.others.dims[k + 1]) << what;
      EXPECT_GT(v.others.strides[k], v.others.strides[k + 1]) << what;
    }
  }
}

TEST(AxisView, ErrorsNameTheAxis) {
  const memory_desc md = *make_memory_desc({2, 3}, data_type::f32, "ab");
  EXPECT_EQ(axis_view_of(md, 2).status().message(), "axis_view_of: axis 2 is outside [0, 2)");
}

}  // namespace
}  // namespace tessera
