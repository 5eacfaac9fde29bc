// memory_desc: property tests over whole domains (every plain permutation up to 6D, random ones
// up to 12D, blocked layouts with padding), operations that must keep every element's offset,
// and every rejection naming its bad value.
#include "tessera/core/memory_desc.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/hash/hash_testing.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using dims_v = std::vector<dim_t>;

// Calls f(index) for every index in [0, extent) in row-major order.
template <class F>
void for_each_index(const dims_v& extent, F&& f) {
  for (dim_t e : extent) {
    if (e == 0) return;
  }
  dims_v idx(extent.size(), 0);
  while (true) {
    f(idx);
    int d = static_cast<int>(extent.size()) - 1;
    while (d >= 0 && ++idx[d] == extent[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

dim_t product(const dims_v& v) {
  return std::accumulate(v.begin(), v.end(), dim_t{1}, std::multiplies<>());
}

// Dense strides for dims laid out in `order` (outermost first), written independently of the
// library: the innermost dim has stride 1, each next one the extent of what it encloses.
dims_v dense_strides(const dims_v& dims, const std::vector<int>& order) {
  dims_v strides(dims.size());
  dim_t s = 1;
  for (int k = static_cast<int>(order.size()) - 1; k >= 0; --k) {
    strides[order[k]] = s;
    s *= dims[order[k]];
  }
  return strides;
}

std::string message(const absl::Status& s) { return std::string(s.message()); }

void expect_bijection(const memory_desc& md) {
  const dim_t n = md.nelems();
  std::vector<int> hits(n, 0);
  for_each_index(dims_v(md.dims().begin(), md.dims().end()), [&](const dims_v& i) {
    const dim_t off = md.offset(i);
    ASSERT_GE(off, 0);
    ASSERT_LT(off, n);
    ++hits[off];
  });
  for (dim_t k = 0; k < n; ++k) ASSERT_EQ(hits[k], 1) << "offset " << k;
  EXPECT_EQ(md.size_bytes(), n * bits_of(md.dt()) / 8);
  EXPECT_TRUE(md.is_dense());
  EXPECT_TRUE(md.is_plain());
  EXPECT_FALSE(md.is_blocked());
}

TEST(MemoryDesc, EveryPlainPermutationUpTo6DIsABijection) {
  const dims_v all_dims = {3, 2, 1, 4, 2, 3};
  for (int rank = 0; rank <= 6; ++rank) {
    const dims_v dims(all_dims.begin(), all_dims.begin() + rank);
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    int count = 0;
    do {
      auto md = memory_desc::with_strides(dims, data_type::f32, dense_strides(dims, order));
      ASSERT_TRUE(md.ok()) << md.status();
      expect_bijection(*md);
      ++count;
    } while (std::next_permutation(order.begin(), order.end()));
    EXPECT_EQ(count, std::max(1, static_cast<int>(std::tgamma(rank + 1) + 0.5)));
  }
}

TEST(MemoryDesc, RandomPermutationsUpTo12DAreBijections) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 7 + trial % 6;
    dims_v dims(rank);
    for (auto& d : dims) d = 1 + rng() % 3;
    while (product(dims) > 5000) dims[rng() % rank] = 1;
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    auto md = memory_desc::with_strides(dims, data_type::bf16, dense_strides(dims, order));
    ASSERT_TRUE(md.ok()) << md.status();
    expect_bijection(*md);
  }
}

// A dense blocked layout built by hand: `outer` lists the outer dims outermost first, the inner
// blocks follow densely. Strides are computed here from padded dims, independently.
blocking_desc dense_blocking(const dims_v& dims, const std::vector<int>& outer,
                             const std::vector<std::pair<int, dim_t>>& inner) {
  blocking_desc b;
  dims_v block(dims.size(), 1);
  dim_t inner_size = 1;
  b.inner_nblks = static_cast<int>(inner.size());
  for (size_t k = 0; k < inner.size(); ++k) {
    b.inner_idxs[k] = inner[k].first;
    b.inner_blks[k] = inner[k].second;
    block[inner[k].first] *= inner[k].second;
    inner_size *= inner[k].second;
  }
  dim_t s = inner_size;
  for (int k = static_cast<int>(outer.size()) - 1; k >= 0; --k) {
    const int d = outer[k];
    b.strides[d] = s;
    s *= (dims[d] + block[d] - 1) / block[d];
  }
  return b;
}

TEST(MemoryDesc, NChw16cMatchesTheTextbookFormula) {
  const dims_v dims = {2, 17, 3, 5};
  auto md = memory_desc::with_blocking(dims, data_type::f32, dense_blocking(dims, {0, 1, 2, 3}, {{1, 16}}));
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(dims_v(md->padded_dims().begin(), md->padded_dims().end()), (dims_v{2, 32, 3, 5}));
  EXPECT_TRUE(md->is_blocked());
  EXPECT_FALSE(md->is_dense());
  EXPECT_EQ(md->size_bytes(), 2 * 32 * 3 * 5 * 4);
  EXPECT_EQ(md->nelems(), 2 * 17 * 3 * 5);
  EXPECT_EQ(md->nelems(true), 2 * 32 * 3 * 5);
  for_each_index(dims, [&](const dims_v& i) {
    const dim_t want = i[0] * 32 * 15 + (i[1] / 16) * 15 * 16 + i[2] * 5 * 16 + i[3] * 16 + i[1] % 16;
    ASSERT_EQ(md->offset(i), want);
  });
}

TEST(MemoryDesc, MultiLevelBlocksMatchTheTextbookFormula) {
  // ABcd4b16a4b with dims 20x9x2x3: a padded to 32, b padded to 16.
  const dims_v dims = {20, 9, 2, 3};
  auto md = memory_desc::with_blocking(dims, data_type::s8,
                                       dense_blocking(dims, {0, 1, 2, 3}, {{1, 4}, {0, 16}, {1, 4}}));
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(dims_v(md->padded_dims().begin(), md->padded_dims().end()), (dims_v{32, 16, 2, 3}));
  for_each_index(dims, [&](const dims_v& i) {
    const dim_t a = i[0], b = i[1];
    const dim_t inner = ((b / 4) % 4) * 64 + (a % 16) * 4 + b % 4;
    const dim_t want = (a / 16) * (1 * 2 * 3 * 256) + (b / 16) * (2 * 3 * 256) + i[2] * 3 * 256 + i[3] * 256 + inner;
    ASSERT_EQ(md->offset(i), want);
  });
}

// Injective over all padded indices, and the offsets cover exactly [0, size).
void expect_blocked_covers_size(const memory_desc& md) {
  const dim_t elems = md.size_bytes() * 8 / bits_of(md.dt());
  std::vector<int> hits(elems, 0);
  for_each_index(dims_v(md.padded_dims().begin(), md.padded_dims().end()), [&](const dims_v& i) {
    const dim_t off = md.offset(i);
    ASSERT_GE(off, 0);
    ASSERT_LT(off, elems);
    ++hits[off];
  });
  for (dim_t k = 0; k < elems; ++k) ASSERT_EQ(hits[k], 1) << "offset " << k;
}

TEST(MemoryDesc, BlockedLayoutsWithPaddingAreInjectiveAndCoverTheirSize) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + trial % 5;
    dims_v dims(rank);
    for (auto& d : dims) d = 1 + rng() % 7;
    std::vector<int> outer(rank);
    std::iota(outer.begin(), outer.end(), 0);
    std::shuffle(outer.begin(), outer.end(), rng);
    std::vector<std::pair<int, dim_t>> inner;
    const int nblks = rng() % 4;
    for (int k = 0; k < nblks; ++k) inner.push_back({static_cast<int>(rng() % rank), dim_t{2} + rng() % 3});
    auto md = memory_desc::with_blocking(dims, data_type::f16, dense_blocking(dims, outer, inner));
    ASSERT_TRUE(md.ok()) << md.status();
    expect_blocked_covers_size(*md);
    EXPECT_EQ(md->nelems(true) * 2, md->size_bytes());
  }
}

// A dim held entirely by its inner blocks has one outer position, so its stride is never used and
// may be smaller than the block; the size must still cover every element of the block (a fuzzer
// found size_bytes() reporting the stride instead: 118 elements for a 192-element block).
TEST(MemoryDesc, SizeCoversTheInnerBlockWhateverTheUnusedStride) {
  blocking_desc b;
  b.strides[0] = 118;
  b.inner_nblks = 2;
  b.inner_blks[0] = 6;
  b.inner_idxs[0] = 0;
  b.inner_blks[1] = 32;
  b.inner_idxs[1] = 0;
  auto md = memory_desc::with_blocking({2}, data_type::f32, b);
  ASSERT_TRUE(md.ok()) << md.status();
  ASSERT_EQ(md->padded_dims()[0], 192);
  EXPECT_EQ(md->size_bytes(), 192 * 4);
  // Every reachable offset, padding included, lies inside the reported size.
  for (dim_t i = 0; i < md->padded_dims()[0]; ++i) {
    EXPECT_LT(md->offset({i}) * 4, md->size_bytes()) << i;
  }
}

// Empty tensors: the order of the dims must not decide whether the other dims' product
// overflows, and a submemory of an empty parent (any strides are accepted there) must not move
// offset0 past int64 (both found by fuzz_memory_desc under UBSan).
TEST(MemoryDesc, EmptyTensorsWithHugeOtherDims) {
  const dim_t big = dim_t{1} << 40;
  for (auto dims : {std::vector<dim_t>{0, big, big}, std::vector<dim_t>{big, big, 0}}) {
    auto md = memory_desc::with_strides(dims, data_type::f32, {1, 1, 1});
    ASSERT_TRUE(md.ok()) << md.status();
    EXPECT_EQ(md->nelems(), 0);
    EXPECT_EQ(md->size_bytes(), 0);
    auto p = md->permute_axes({2, 1, 0});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->nelems(true), 0);
    EXPECT_EQ(p->size_bytes(), 0);
    auto a = memory_desc::any(dims, data_type::f32);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->nelems(), 0);
  }
  // Reshaping an empty tensor: no offsets to keep, whatever the parent's strides.
  auto wide = memory_desc::with_strides({0, 4, 8}, data_type::f32, {1, std::numeric_limits<dim_t>::max() / 4, 3});
  ASSERT_TRUE(wide.ok()) << wide.status();
  auto r = wide->reshape({32, 0});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nelems(), 0);
  EXPECT_EQ(r->size_bytes(), 0);
  EXPECT_TRUE(wide->reshape({big, big, 0}).ok());        // strides 2^40, 1, 1 fit
  EXPECT_FALSE(wide->reshape({big, big, big, 0}).ok());  // a stride of 2^80: an error, not UB

  const dim_t huge = std::numeric_limits<dim_t>::max() / 2;
  auto md = memory_desc::with_strides({0, 4}, data_type::f32, {1, huge});
  ASSERT_TRUE(md.ok()) << md.status();
  auto sub = md->submemory({0, 1}, {0, 3});
  ASSERT_FALSE(sub.ok());
  EXPECT_NE(std::string(sub.status().message()).find("offset0"), std::string::npos) << sub.status();
}

TEST(MemoryDesc, SubmemoryOffsetsEqualParentOffsets) {
  const dims_v dims = {3, 33, 4, 5};
  auto plain = memory_desc::with_strides(dims, data_type::f32, dense_strides(dims, {0, 2, 3, 1}));
  auto blocked = memory_desc::with_blocking(dims, data_type::f32, dense_blocking(dims, {0, 1, 2, 3}, {{1, 16}}));
  ASSERT_TRUE(plain.ok() && blocked.ok());
  struct sub_case { dims_v sub, off; };
  const std::vector<sub_case> cases = {{{3, 33, 4, 5}, {0, 0, 0, 0}}, {{1, 16, 2, 3}, {2, 16, 1, 2}},
                                       {{2, 1, 4, 5}, {1, 32, 0, 0}},  {{3, 17, 1, 1}, {0, 16, 3, 4}},
                                       {{3, 8, 4, 5}, {0, 0, 0, 0}},   {{0, 16, 4, 5}, {3, 0, 0, 0}}};
  for (const memory_desc* parent : {&*plain, &*blocked}) {
    for (const auto& c : cases) {
      auto sub = parent->submemory(c.sub, c.off);
      ASSERT_TRUE(sub.ok()) << sub.status();
      EXPECT_EQ(dims_v(sub->dims().begin(), sub->dims().end()), c.sub);
      for_each_index(c.sub, [&](const dims_v& i) {
        dims_v p(i);
        for (size_t d = 0; d < p.size(); ++d) p[d] += c.off[d];
        ASSERT_EQ(sub->offset(i), parent->offset(p));
      });
      // The reported size covers every element the view reaches, counted from the buffer start.
      dim_t last = 0;
      for_each_index(c.sub, [&](const dims_v& i) { last = std::max(last, sub->offset(i)); });
      if (sub->nelems() > 0) EXPECT_GE(sub->size_bytes(), (last + 1) * 4);
    }
  }
  // A submemory of a submemory composes.
  auto s1 = plain->submemory({2, 20, 3, 4}, {1, 5, 1, 1});
  ASSERT_TRUE(s1.ok());
  auto s2 = s1->submemory({1, 10, 2, 2}, {1, 3, 1, 2});
  ASSERT_TRUE(s2.ok());
  for_each_index({1, 10, 2, 2}, [&](const dims_v& i) {
    ASSERT_EQ(s2->offset(i), plain->offset({i[0] + 2, i[1] + 8, i[2] + 2, i[3] + 3}));
  });
}

TEST(MemoryDesc, SubmemoryRejectsWhatOneDnnRejects) {
  const dims_v dims = {2, 17, 3, 3};
  auto md = memory_desc::with_blocking(dims, data_type::f32, dense_blocking(dims, {0, 1, 2, 3}, {{1, 16}}));
  ASSERT_TRUE(md.ok());
  auto bad = md->submemory({2, 17, 3, 3}, {0, 0, 1, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(message(bad.status()).find("dim 2"), std::string::npos) << bad.status();
  bad = md->submemory({2, 8, 3, 3}, {0, 8, 0, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(message(bad.status()).find("offset 8"), std::string::npos) << bad.status();
  bad = md->submemory({2, 17, 3}, {0, 0, 0});
  EXPECT_FALSE(bad.ok());
  bad = md->submemory({2, 17, 3, 3}, {0, -1, 0, 0});
  EXPECT_FALSE(bad.ok());
  auto any = memory_desc::any(dims, data_type::f32);
  EXPECT_FALSE(any->submemory(dims, {0, 0, 0, 0}).ok());
}

TEST(MemoryDesc, PermuteAxesKeepsEveryOffset) {
  const dims_v dims = {2, 19, 3, 4};
  auto plain = memory_desc::with_strides(dims, data_type::f32, dense_strides(dims, {0, 2, 3, 1}));
  auto blocked = memory_desc::with_blocking(dims, data_type::f32, dense_blocking(dims, {0, 1, 2, 3}, {{1, 8}, {0, 2}}));
  ASSERT_TRUE(plain.ok() && blocked.ok());
  std::vector<int> perm = {0, 1, 2, 3};
  do {
    for (const memory_desc* md : {&*plain, &*blocked}) {
      auto p = md->permute_axes(perm);
      ASSERT_TRUE(p.ok()) << p.status();
      for_each_index(dims, [&](const dims_v& i) {
        dims_v j(i.size());
        for (size_t d = 0; d < i.size(); ++d) j[perm[d]] = i[d];
        ASSERT_EQ(p->offset(j), md->offset(i));
      });
      EXPECT_EQ(p->size_bytes(), md->size_bytes());
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  auto bad = plain->permute_axes({0, 1, 1, 3});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(message(bad.status()).find("{0,1,1,3}"), std::string::npos) << bad.status();
  EXPECT_FALSE(plain->permute_axes({0, 1, 2}).ok());
  EXPECT_FALSE(plain->permute_axes({0, 1, 2, 4}).ok());
}

// Linear (row-major logical) index -> index.
dims_v unravel(dim_t lin, const dims_v& dims) {
  dims_v i(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    i[d] = lin % dims[d];
    lin /= dims[d];
  }
  return i;
}

void expect_reshape_keeps_offsets(const memory_desc& md, const dims_v& new_dims) {
  auto r = md.reshape(new_dims);
  ASSERT_TRUE(r.ok()) << r.status();
  const dims_v old_dims(md.dims().begin(), md.dims().end());
  for (dim_t lin = 0; lin < md.nelems(); ++lin) {
    ASSERT_EQ(r->offset(unravel(lin, new_dims)), md.offset(unravel(lin, old_dims))) << lin;
  }
  EXPECT_EQ(r->nelems(), md.nelems());
}

TEST(MemoryDesc, ReshapeKeepsEveryOffset) {
  const dims_v dims = {2, 3, 4, 5};
  auto abcd = memory_desc::with_strides(dims, data_type::f32, dense_strides(dims, {0, 1, 2, 3}));
  auto acdb = memory_desc::with_strides(dims, data_type::f32, dense_strides(dims, {0, 2, 3, 1}));
  ASSERT_TRUE(abcd.ok() && acdb.ok());
  expect_reshape_keeps_offsets(*abcd, {120});
  expect_reshape_keeps_offsets(*abcd, {6, 20});
  expect_reshape_keeps_offsets(*abcd, {2, 1, 3, 2, 2, 5, 1});
  expect_reshape_keeps_offsets(*acdb, {2, 3, 20});
  expect_reshape_keeps_offsets(*acdb, {1, 2, 3, 2, 2, 5, 1});
  const dims_v bdims = {2, 17, 3, 3};
  auto blocked = memory_desc::with_blocking(bdims, data_type::f32, dense_blocking(bdims, {0, 1, 2, 3}, {{1, 16}}));
  ASSERT_TRUE(blocked.ok());
  expect_reshape_keeps_offsets(*blocked, {2, 17, 9});
  expect_reshape_keeps_offsets(*blocked, {1, 2, 1, 17, 3, 3, 1});
  // Merging dims that are not dense and in order, or blocked, is refused with the dims named.
  auto bad = acdb->reshape({6, 20});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(message(bad.status()).find("{6,20}"), std::string::npos) << bad.status();
  EXPECT_FALSE(blocked->reshape({34, 9}).ok());
  bad = abcd->reshape({2, 3, 4, 6});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(message(bad.status()).find("144"), std::string::npos) << bad.status();
  EXPECT_FALSE(abcd->reshape({2, 3, 4, -5}).ok());
}

TEST(MemoryDesc, GappedStridesAndZeroDims) {
  auto gapped = memory_desc::with_strides({2, 3}, data_type::f32, {4, 1});
  ASSERT_TRUE(gapped.ok());
  EXPECT_FALSE(gapped->is_dense());
  EXPECT_EQ(gapped->size_bytes(), 32);  // oneDNN: max(2 * 4, 3 * 1) elements
  EXPECT_EQ(gapped->offset({1, 2}), 6);
  auto empty = memory_desc::with_strides({0, 3}, data_type::f32, {1, 1});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->nelems(), 0);
  EXPECT_EQ(empty->size_bytes(), 0);
  auto ones = memory_desc::with_strides({1, 3}, data_type::u8, {1, 1});
  ASSERT_TRUE(ones.ok()) << ones.status();  // size-1 dims take any stride
  EXPECT_TRUE(ones->is_dense());
  auto scalar = memory_desc::with_strides({}, data_type::f64, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->nelems(), 1);
  EXPECT_EQ(scalar->size_bytes(), 8);
  EXPECT_EQ(scalar->offset({}), 0);
}

TEST(MemoryDesc, AnyAndUndef) {
  auto any = memory_desc::any({2, 3}, data_type::bf16);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->kind(), format_kind::any);
  EXPECT_EQ(any->nelems(), 6);
  EXPECT_EQ(any->size_bytes(), 0);
  EXPECT_FALSE(any->is_plain());
  auto p = any->permute_axes({1, 0});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->dims()[0], 3);
  auto r = any->reshape({6});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind(), format_kind::any);
  memory_desc undef;
  EXPECT_EQ(undef.kind(), format_kind::undef);
  EXPECT_EQ(undef.nelems(), 0);
  EXPECT_EQ(undef.size_bytes(), 0);
}

TEST(MemoryDesc, InvalidInputsNameTheBadValue) {
  struct bad_case {
    dims_v dims, strides;
    std::string needle;
  };
  const std::vector<bad_case> cases = {
      {dims_v(13, 1), dims_v(13, 1), "rank 13"},
      {{2, -3}, {3, 1}, "dims[1] = -3"},
      {{2, 3}, {-3, 1}, "strides[0] = -3"},
      {{2, 3}, {1, 1}, "strides[0] = 1"},        // overlaps dim 1
      {{2, 3}, {2, 1}, "strides[0] = 2"},        // rows overlap by one element
      {{2, 3}, {3, 0}, "strides[1] = 0"},        // stride 0 on a dim of size 3
      {{2, 3}, {3, 1, 1}, "strides {3,1,1}"},    // rank mismatch
      {{1 << 20, 1 << 20, 1 << 20}, {dim_t{1} << 40, 1 << 20, 1}, "int64"},
  };
  for (const auto& c : cases) {
    auto md = memory_desc::with_strides(c.dims, data_type::f32, c.strides);
    ASSERT_FALSE(md.ok()) << c.needle;
    EXPECT_EQ(md.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(message(md.status()).find(c.needle), std::string::npos)
        << "'" << c.needle << "' not in: " << md.status();
  }
  // Element count fits, byte count does not: 2^61 f64 elements.
  auto huge = memory_desc::with_strides({dim_t{1} << 61}, data_type::f64, {1});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(message(huge.status()).find("int64"), std::string::npos) << huge.status();
  EXPECT_FALSE(memory_desc::with_strides({2}, data_type::undef, {1}).ok());
  blocking_desc b;
  b.strides = {16, 1};
  b.inner_nblks = 1;
  b.inner_blks[0] = 0;
  auto zero_blk = memory_desc::with_blocking({2, 3}, data_type::f32, b);
  ASSERT_FALSE(zero_blk.ok());
  EXPECT_NE(message(zero_blk.status()).find("size 0"), std::string::npos) << zero_blk.status();
  b.inner_blks[0] = 16;
  b.inner_idxs[0] = 2;
  auto bad_idx = memory_desc::with_blocking({2, 3}, data_type::f32, b);
  ASSERT_FALSE(bad_idx.ok());
  EXPECT_NE(message(bad_idx.status()).find("dim 2"), std::string::npos) << bad_idx.status();
}

TEST(MemoryDesc, EqualityAndHash) {
  auto a = memory_desc::with_strides({2, 3}, data_type::f32, {3, 1});
  auto a2 = memory_desc::with_strides({2, 3}, data_type::f32, {3, 1});
  auto t = memory_desc::with_strides({2, 3}, data_type::f32, {1, 2});
  auto h = memory_desc::with_strides({2, 3}, data_type::f16, {3, 1});
  auto s = a->submemory({1, 3}, {1, 0});
  auto any = memory_desc::any({2, 3}, data_type::f32);
  ASSERT_TRUE(a.ok() && a2.ok() && t.ok() && h.ok() && s.ok() && any.ok());
  EXPECT_EQ(*a, *a2);
  EXPECT_NE(*a, *t);
  EXPECT_NE(*a, *h);
  EXPECT_NE(*a, *any);
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({*a, *t, *h, *s, *any, memory_desc{}}));
}

}  // namespace
}  // namespace tessera
