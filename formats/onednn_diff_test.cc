// Differential test against oneDNN 2.6.3: for every name of dnnl::memory::format_tag, our layout
// (and memory_desc) of the same name and dims has oneDNN's padded dims, strides, inner blocks and
// size. oneDNN is the oracle here only; the library never links it.
#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"

namespace tessera {
namespace {

struct named_tag {
  const char* name;
  dnnl::memory::format_tag tag;
};

const std::vector<named_tag>& AllOneDnnTags() {
  static const auto* tags = new std::vector<named_tag>{
#define X(name) {#name, dnnl::memory::format_tag::name},
#include "formats/testdata/onednn_format_tags.inc"
#undef X
  };
  return *tags;
}

// Dims of each rank: plain, padded (17 and 33 with 16/32/48/64 blocks), ones and a zero.
std::vector<std::vector<dim_t>> DimsOfRank(int rank) {
  const std::vector<std::vector<dim_t>> base = {
      {2, 17, 3, 5, 2, 3, 2, 2, 1, 2, 1, 2},
      {17, 33, 1, 4, 3, 1, 2, 1, 2, 1, 2, 1},
      {64, 16, 2, 2, 1, 2, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {3, 0, 2, 3, 1, 2, 1, 1, 1, 1, 1, 1},
      {5, 40, 7, 1, 2, 1, 1, 1, 1, 1, 1, 1},
  };
  std::vector<std::vector<dim_t>> out;
  for (const auto& b : base) out.emplace_back(b.begin(), b.begin() + rank);
  return out;
}

TEST(OneDnnDiff, EveryFormatTagMatchesOneDnn) {
  int checked = 0;
  for (const named_tag& t : AllOneDnnTags()) {
    absl::StatusOr<tag_layout> parsed = parse_tag(t.name);
    EXPECT_TRUE(parsed.ok()) << t.name << ": " << parsed.status();
    if (!parsed.ok()) continue;
    for (const std::vector<dim_t>& dims : DimsOfRank(parsed->rank)) {
      SCOPED_TRACE(std::string(t.name) + " " + dims_to_string(dims));
      dnnl::memory::desc ref(dnnl::memory::dims(dims.begin(), dims.end()),
                             dnnl::memory::data_type::f32, t.tag);
      ASSERT_EQ(ref.data.ndims, parsed->rank);
      absl::StatusOr<layout> l = make_layout(t.name, dims);
      ASSERT_TRUE(l.ok()) << l.status();
      const auto& blk = ref.data.format_desc.blocking;
      for (int d = 0; d < parsed->rank; ++d) {
        EXPECT_EQ(l->padded_dims()[d], ref.data.padded_dims[d]) << "dim " << d;
        EXPECT_EQ(l->stride(d), blk.strides[d]) << "dim " << d;
      }
      ASSERT_EQ(l->tag().nblks, blk.inner_nblks);
      for (int k = 0; k < blk.inner_nblks; ++k) {
        EXPECT_EQ(l->tag().blk_sizes[k], blk.inner_blks[k]) << "block " << k;
        EXPECT_EQ(l->tag().blk_dims[k], blk.inner_idxs[k]) << "block " << k;
      }
      EXPECT_EQ(l->required_span_size() * 4, static_cast<dim_t>(ref.get_size()));

      // The memory_desc built from the tag agrees too, and prints a tag that parses back.
      absl::StatusOr<memory_desc> md = make_memory_desc(dims, data_type::f32, t.name);
      ASSERT_TRUE(md.ok()) << md.status();
      EXPECT_EQ(md->size_bytes(), static_cast<int64_t>(ref.get_size()));
      for (int d = 0; d < parsed->rank; ++d) {
        EXPECT_EQ(md->padded_dims()[d], ref.data.padded_dims[d]);
        EXPECT_EQ(md->blocking().strides[d], blk.strides[d]);
      }
      absl::StatusOr<memory_desc> back =
          parse_verbose_md(verbose_md_string(*md), dims_to_string(md->dims()));
      ASSERT_TRUE(back.ok()) << verbose_md_string(*md) << ": " << back.status();
      EXPECT_EQ(*back, *md) << verbose_md_string(*md);
      ++checked;
    }
  }
  EXPECT_GT(checked, 900 * 6);
}

}  // namespace
}  // namespace tessera
