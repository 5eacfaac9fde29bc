#include "tessera/primitives/common/zero_padding.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

TEST(ZeroPadding, ClearsExactlyThePaddingElements) {
  const char* tags[] = {"nChw16c", "nChw8c", "aBc4b", "ABcd8b8a", "ABcd4a4b", "Acdb16a", "aBCd2b4c2b"};
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const std::string tag = tags[trial % 7];
    const int rank = tag.find('d') != std::string::npos || tag[0] == 'n' ? 4 : 3;
    std::vector<dim_t> dims(rank);
    for (dim_t& d : dims) d = 1 + rng() % 20;
    const memory_desc md = *make_memory_desc(dims, data_type::bf16, tag);
    std::vector<uint16_t> buf(md.size_bytes() / 2, 0xFFFF);
    const padding_boxes pad = padding_of(md);
    // Half the rows of every box through zero_padding_rows, the rest through zero_padding.
    for (size_t b = 0; b < pad.boxes.size(); ++b) {
      zero_padding_rows(pad, b, 0, padding_rows(pad.boxes[b]) / 2, buf.data());
    }
    zero_padding(pad, buf.data());
    std::vector<char> logical(buf.size(), 0);
    tessera::testing::for_each_index(md.dims(), [&](absl::Span<const dim_t> i) {
      logical[md.offset(i)] = 1;
    });
    for (size_t off = 0; off < buf.size(); ++off) {
      ASSERT_EQ(buf[off], logical[off] ? 0xFFFF : 0) << tag << " offset " << off;
    }
  }
}

TEST(ZeroPadding, NoBoxesWithoutPadding) {
  EXPECT_TRUE(padding_of(*make_memory_desc({2, 32, 3}, data_type::f32, "aBc16b")).boxes.empty());
  EXPECT_TRUE(padding_of(*make_memory_desc({2, 0, 3}, data_type::f32, "aBc16b")).boxes.empty());
  EXPECT_TRUE(padding_of(*make_memory_desc({2, 17}, data_type::f32, "ab")).boxes.empty());
}

}  // namespace
}  // namespace tessera
