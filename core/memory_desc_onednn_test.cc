// Differential test against oneDNN 2.6.3 (the test oracle only; the library never links it):
// construction from dims + strides, get_size, submemory, permute_axes and reshape on the same
// inputs must give the same accept/reject decision and the same descriptor fields.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/memory_desc.h"

namespace tessera {
namespace {

using dims_v = std::vector<dim_t>;

std::string str(const dims_v& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

memory_desc from_dnnl(const dnnl_memory_desc_t& d) {
  blocking_desc b;
  const auto& bd = d.format_desc.blocking;
  for (int i = 0; i < d.ndims; ++i) b.strides[i] = bd.strides[i];
  b.inner_nblks = bd.inner_nblks;
  for (int k = 0; k < bd.inner_nblks; ++k) {
    b.inner_blks[k] = bd.inner_blks[k];
    b.inner_idxs[k] = static_cast<int>(bd.inner_idxs[k]);
  }
  auto md = memory_desc::with_blocking(dims_v(d.dims, d.dims + d.ndims), data_type::f32, b);
  EXPECT_TRUE(md.ok()) << md.status();
  return md.ok() ? *md : memory_desc{};
}

// Every field Tessera and oneDNN share, and the size when oneDNN defines it (offset0 == 0).
void expect_same(const memory_desc& t, const dnnl_memory_desc_t& d, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(t.rank(), d.ndims);
  ASSERT_EQ(t.kind() == format_kind::any, d.format_kind == dnnl_format_kind_any);
  for (int i = 0; i < d.ndims; ++i) {
    EXPECT_EQ(t.dims()[i], d.dims[i]) << "dims[" << i << "]";
    EXPECT_EQ(t.padded_dims()[i], d.padded_dims[i]) << "padded_dims[" << i << "]";
    EXPECT_EQ(t.padded_offsets()[i], d.padded_offsets[i]) << "padded_offsets[" << i << "]";
  }
  if (d.format_kind != dnnl_blocked) return;
  EXPECT_EQ(t.offset0(), d.offset0);
  const auto& bd = d.format_desc.blocking;
  for (int i = 0; i < d.ndims; ++i) EXPECT_EQ(t.blocking().strides[i], bd.strides[i]) << "strides[" << i << "]";
  ASSERT_EQ(t.blocking().inner_nblks, bd.inner_nblks);
  for (int k = 0; k < bd.inner_nblks; ++k) {
    EXPECT_EQ(t.blocking().inner_blks[k], bd.inner_blks[k]);
    EXPECT_EQ(t.blocking().inner_idxs[k], bd.inner_idxs[k]);
  }
  if (d.offset0 == 0) EXPECT_EQ(t.size_bytes(), static_cast<int64_t>(dnnl_memory_desc_get_size(&d)));
}

TEST(MemoryDescVsOneDnn, ConstructionFromStrides) {
  struct stride_case {
    dims_v dims, strides;
  };
  const std::vector<stride_case> cases = {
      {{2, 3}, {3, 1}},        {{2, 3}, {1, 2}},          {{2, 3}, {4, 1}},        {{2, 3}, {1, 1}},
      {{2, 3}, {2, 1}},        {{2, 3}, {1, 3}},          {{1, 3}, {1, 1}},        {{0, 3}, {1, 1}},
      {{2, 3, 4}, {12, 1, 3}}, {{2, 3, 4}, {1, 2, 6}},    {{2, 3, 4}, {24, 8, 2}}, {{2, 3, 4}, {12, 4, 2}},
      {{2, 3, 4}, {6, 2, 1}},  {{4, 1, 5}, {5, 100, 1}},  {{7}, {3}},              {{2, 2, 2, 2}, {8, 4, 2, 1}},
      {{2, 2, 2, 2}, {1, 2, 4, 8}}, {{2, 2, 2, 2}, {1, 2, 4, 7}}, {{3, 5, 7}, {40, 8, 1}},
  };
  for (const auto& c : cases) {
    const std::string what = str(c.dims) + " strides " + str(c.strides);
    dnnl_memory_desc_t d;
    const bool dnnl_ok = dnnl_memory_desc_init_by_strides(&d, static_cast<int>(c.dims.size()), c.dims.data(),
                                                          dnnl_f32, c.strides.data()) == dnnl_success;
    auto t = memory_desc::with_strides(c.dims, data_type::f32, c.strides);
    EXPECT_EQ(t.ok(), dnnl_ok) << what << ": " << t.status();
    if (t.ok() && dnnl_ok) expect_same(*t, d, what);
  }
}

// Documented deviation: oneDNN accepts stride 0 on a dim of size > 1 (broadcast); Tessera
// rejects it as an overlap.
TEST(MemoryDescVsOneDnn, StrideZeroIsTheOneDocumentedDifference) {
  const dims_v dims = {2, 3}, strides = {0, 1};
  dnnl_memory_desc_t d;
  EXPECT_EQ(dnnl_memory_desc_init_by_strides(&d, 2, dims.data(), dnnl_f32, strides.data()), dnnl_success);
  EXPECT_FALSE(memory_desc::with_strides(dims, data_type::f32, strides).ok());
}

struct base_case {
  dims_v dims;
  dnnl_format_tag_t tag;
  const char* name;
};

std::vector<base_case> base_cases() {
  return {
      {{2, 17, 3, 3}, dnnl_nChw16c, "nChw16c"}, {{2, 32, 3, 3}, dnnl_nChw16c, "nChw16c"},
      {{3, 20, 2, 5}, dnnl_nChw8c, "nChw8c"},   {{2, 17, 3, 3}, dnnl_nchw, "nchw"},
      {{2, 17, 3, 3}, dnnl_nhwc, "nhwc"},       {{2, 17, 3, 3}, dnnl_chwn, "chwn"},
      {{20, 17, 3, 3}, dnnl_OIhw16i16o, "OIhw16i16o"}, {{1, 5, 1, 4}, dnnl_nchw, "nchw"},
      {{2, 1, 3, 4}, dnnl_nChw16c, "nChw16c"},  {{4, 6, 10}, dnnl_abc, "abc"},
      {{4, 6, 10}, dnnl_acb, "acb"},            {{2, 3, 4, 5, 6}, dnnl_ncdhw, "ncdhw"},
  };
}

std::vector<dims_v> reshape_targets(const dims_v& dims) {
  std::vector<dims_v> out;
  const dim_t n = std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>());
  out.push_back({n});
  dims_v with1 = dims;
  with1.insert(with1.begin(), 1);
  out.push_back(with1);
  with1 = dims;
  with1.push_back(1);
  out.push_back(with1);
  with1 = dims;
  with1.insert(with1.begin() + 1, 1);
  out.push_back(with1);
  with1 = dims;
  with1.insert(with1.begin() + 2, 1);
  out.push_back(with1);
  // Merge the two innermost dims, and the two outermost.
  dims_v inner_merged(dims.begin(), dims.end() - 2);
  inner_merged.push_back(dims[dims.size() - 2] * dims.back());
  out.push_back(inner_merged);
  dims_v outer_merged = {dims[0] * dims[1]};
  outer_merged.insert(outer_merged.end(), dims.begin() + 2, dims.end());
  out.push_back(outer_merged);
  // Split the last dim when it has a factor 2; drop a leading 1.
  if (dims.back() % 2 == 0) {
    dims_v split(dims.begin(), dims.end() - 1);
    split.push_back(2);
    split.push_back(dims.back() / 2);
    out.push_back(split);
  }
  if (dims[0] == 1) out.push_back(dims_v(dims.begin() + 1, dims.end()));
  out.push_back(dims_v(dims.size(), 1));  // wrong volume (unless everything is 1)
  return out;
}

// oneDNN 2.6.3's reshape can return a descriptor whose inner blocks name a dim that no longer
// exists or no longer divides its padded size (e.g. nChw16c 2x1x3x4 -> {24} keeps "16 on dim 1"
// on a rank-1 result). Tessera refuses those reshapes instead.
bool dnnl_desc_consistent(const dnnl_memory_desc_t& d) {
  if (d.format_kind != dnnl_blocked) return true;
  const auto& bd = d.format_desc.blocking;
  dims_v block(d.ndims, 1);
  for (int k = 0; k < bd.inner_nblks; ++k) {
    if (bd.inner_idxs[k] < 0 || bd.inner_idxs[k] >= d.ndims) return false;
    block[bd.inner_idxs[k]] *= bd.inner_blks[k];
  }
  for (int i = 0; i < d.ndims; ++i) {
    if (d.padded_dims[i] % block[i] != 0) return false;
  }
  return true;
}

TEST(MemoryDescVsOneDnn, TagsSubmemoryPermuteReshape) {
  int inconsistent = 0;
  int compared = 0;
  for (const auto& bc : base_cases()) {
    const int rank = static_cast<int>(bc.dims.size());
    dnnl_memory_desc_t d;
    ASSERT_EQ(dnnl_memory_desc_init_by_tag(&d, rank, bc.dims.data(), dnnl_f32, bc.tag), dnnl_success);
    const memory_desc t = from_dnnl(d);
    const std::string base = std::string(bc.name) + " " + str(bc.dims);
    expect_same(t, d, base);

    // submemory: whole, interior, right-border and sub-block ranges.
    std::vector<std::pair<dims_v, dims_v>> subs;
    subs.push_back({bc.dims, dims_v(rank, 0)});
    for (int k = 0; k < rank; ++k) {
      for (dim_t off : {dim_t{0}, dim_t{1}, dim_t{8}, dim_t{16}}) {
        for (dim_t len : {dim_t{1}, dim_t{2}, dim_t{8}, dim_t{16}, bc.dims[k] - off}) {
          dims_v sd = bc.dims, so(rank, 0);
          sd[k] = len;
          so[k] = off;
          subs.push_back({sd, so});
        }
      }
    }
    for (const auto& [sd, so] : subs) {
      const std::string what = base + " submemory " + str(sd) + " at " + str(so);
      dnnl_memory_desc_t r;
      const bool dnnl_ok = dnnl_memory_desc_init_submemory(&r, &d, sd.data(), so.data()) == dnnl_success;
      auto tr = t.submemory(sd, so);
      EXPECT_EQ(tr.ok(), dnnl_ok) << what << ": " << tr.status();
      if (tr.ok() && dnnl_ok) expect_same(*tr, r, what), ++compared;
    }

    // permute_axes: every permutation.
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    do {
      dnnl_memory_desc_t r;
      ASSERT_EQ(dnnl_memory_desc_permute_axes(&r, &d, perm.data()), dnnl_success);
      auto tr = t.permute_axes(perm);
      ASSERT_TRUE(tr.ok()) << tr.status();
      expect_same(*tr, r, base + " permute");
      ++compared;
    } while (std::next_permutation(perm.begin(), perm.end()));

    // reshape.
    for (const dims_v& nd : reshape_targets(bc.dims)) {
      const std::string what = base + " reshape to " + str(nd);
      dnnl_memory_desc_t r;
      bool dnnl_ok = dnnl_memory_desc_reshape(&r, &d, static_cast<int>(nd.size()), nd.data()) == dnnl_success;
      if (dnnl_ok && !dnnl_desc_consistent(r)) dnnl_ok = false, ++inconsistent;
      auto tr = t.reshape(nd);
      EXPECT_EQ(tr.ok(), dnnl_ok) << what << ": " << tr.status();
      if (tr.ok() && dnnl_ok) expect_same(*tr, r, what), ++compared;
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_LE(inconsistent, 3);  // the known oneDNN cases above, not a growing list
}

}  // namespace
}  // namespace tessera
