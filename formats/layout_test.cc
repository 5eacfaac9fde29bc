#include "tessera/formats/layout.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// ---- Compile time ----------------------------------------------------------------------------
using NChw16c = static_layout<"nChw16c", 2, 17, 3, 3>;
static_assert(StaticLayout<NChw16c>);
static_assert(NChw16c::padded_dims()[1] == 32);
static_assert(NChw16c::stride(0) == 288 && NChw16c::stride(1) == 144);
static_assert(NChw16c::stride(2) == 48 && NChw16c::stride(3) == 16);
static_assert(NChw16c::required_span_size() == 2 * 32 * 3 * 3);
static_assert(NChw16c::offset(1, 16, 2, 0) == 288 + 144 + 2 * 48 + 0);
static_assert(!NChw16c::is_exhaustive());

using Hwio = static_layout<"hwio", 8, 4, 3, 3>;  // o=8 i=4 h=3 w=3
static_assert(Hwio::stride(0) == 1 && Hwio::stride(1) == 8 && Hwio::stride(3) == 32);
static_assert(Hwio::stride(2) == 96 && Hwio::is_exhaustive());

using Meta = static_layout<"axb", 2, 3, 4, 5>;
static_assert(Meta::stride(1) == 1 && Meta::stride(3) == 3 && Meta::stride(0) == 60);

// ---- Helpers ---------------------------------------------------------------------------------

dim_t Product(const std::vector<dim_t>& v) {
  return std::accumulate(v.begin(), v.end(), dim_t{1}, std::multiplies<>());
}

// Offsets of every index in `domain` are distinct and below size; returns how many were hit.
void ExpectInjective(const layout& l, const std::vector<dim_t>& domain, const std::string& what) {
  std::vector<char> hit(static_cast<size_t>(l.required_span_size()), 0);
  bool ok = true;
  tessera::testing::for_each_index(domain, [&](absl::Span<const dim_t> idx) {
    if (!ok) return;
    dim_t off = l.offset(idx);
    if (off < 0 || off >= l.required_span_size() || hit[off]) {
      ADD_FAILURE() << what << ": offset " << off << " out of range or hit twice";
      ok = false;
      return;
    }
    hit[off] = 1;
  });
}

std::string Letters(const std::vector<int>& perm) {
  std::string s;
  for (int d : perm) s += static_cast<char>('a' + d);
  return s;
}

// ---- Properties ------------------------------------------------------------------------------
TEST(Layout, EveryPlainPermutationUpTo6DIsABijection) {
  const std::vector<dim_t> all_dims = {3, 2, 4, 2, 3, 2};
  for (int rank = 1; rank <= 6; ++rank) {
    std::vector<dim_t> dims(all_dims.begin(), all_dims.begin() + rank);
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    do {
      const std::string tag = Letters(perm);
      absl::StatusOr<layout> l = make_layout(tag, dims);
      ASSERT_TRUE(l.ok()) << l.status();
      ASSERT_EQ(l->required_span_size(), Product(dims)) << tag;
      EXPECT_TRUE(l->is_exhaustive());
      // Injective over a domain of exactly size() indices and bounded: a bijection.
      ExpectInjective(*l, dims, tag);
      // The innermost letter has stride 1; each letter's stride is the next one's times its dim.
      EXPECT_EQ(l->stride(perm[rank - 1]), 1) << tag;
      for (int k = 0; k + 1 < rank; ++k) {
        EXPECT_EQ(l->stride(perm[k]), l->stride(perm[k + 1]) * dims[perm[k + 1]]) << tag;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(Layout, RandomPermutationsUpTo12DAreBijections) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 7 + trial % 6;
    std::vector<dim_t> dims(rank);
    for (dim_t& d : dims) d = 1 + rng() % 3;
    while (Product(dims) > 4096) dims[rng() % rank] = 1;
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    absl::StatusOr<layout> l = make_layout(Letters(perm), dims);
    ASSERT_TRUE(l.ok()) << l.status();
    ASSERT_EQ(l->required_span_size(), Product(dims));
    ExpectInjective(*l, dims, Letters(perm));
  }
}

TEST(Layout, BlockedLayoutsWithPaddingAreInjectiveAndCoverExactlyTheirSize) {
  const std::vector<std::pair<std::string, std::vector<dim_t>>> cases = {
      {"aBcd16b", {2, 17, 3, 3}},     {"aBcd8b", {1, 13, 2, 5}},
      {"ABcd16a16b", {17, 33, 2, 1}}, {"ABcd4b16a4b", {18, 9, 2, 3}},
      {"BAcd16a16b", {5, 20, 1, 3}},  {"aBCde16c16b", {2, 17, 5, 1, 3}},
      {"Acdb16a", {3, 4, 2, 5}},      {"ABc2b32a8b", {33, 17, 2}},
      {"decbA16a", {17, 3, 2, 2, 3}}, {"ABcde4a8b8a4b", {33, 9, 1, 1, 2}},
      {"aBdC16b4c", {2, 17, 7, 3}},   {"cdBa4b", {5, 3, 2, 3}},
  };
  for (const auto& [tag, dims] : cases) {
    absl::StatusOr<layout> l = make_layout(tag, dims);
    ASSERT_TRUE(l.ok()) << tag << ": " << l.status();
    std::vector<dim_t> padded(l->padded_dims().begin(), l->padded_dims().end());
    for (size_t d = 0; d < dims.size(); ++d) {
      EXPECT_EQ(padded[d] % l->block_product(static_cast<int>(d)), 0) << tag;
      EXPECT_GE(padded[d], dims[d]);
      EXPECT_LT(padded[d] - dims[d], l->block_product(static_cast<int>(d)));
    }
    // Over the padded domain the layout is a bijection onto [0, size()) ...
    ASSERT_EQ(l->required_span_size(), Product(padded)) << tag;
    ExpectInjective(*l, padded, tag);
    // ... so over the logical domain it is injective with every offset below size().
    EXPECT_EQ(l->is_exhaustive(), padded == dims) << tag;
  }
}

TEST(Layout, BlockedOffsetsMatchTheTextbookFormula) {
  // nChw16c: ((n * Cb + c / 16) * H * W + h * W + w) * 16 + c % 16, written out by hand.
  const dim_t N = 2, C = 17, H = 3, W = 5, Cb = 2;
  absl::StatusOr<layout> l = make_layout("nChw16c", {N, C, H, W});
  ASSERT_TRUE(l.ok());
  tessera::testing::for_each_index({N, C, H, W}, [&](absl::Span<const dim_t> i) {
    EXPECT_EQ(l->offset(i), ((i[0] * Cb + i[1] / 16) * H * W + i[2] * W + i[3]) * 16 + i[1] % 16);
  });
  // OIhw4i16o4i (O=a, I=b): block (I/16, O/16, h, w), then tile [i/4 % 4][o % 16][i % 4].
  const dim_t O = 20, I = 17, KH = 2, KW = 3, Ob = 2, Ib = 2;
  absl::StatusOr<layout> w = make_layout("OIhw4i16o4i", {O, I, KH, KW});
  ASSERT_TRUE(w.ok());
  tessera::testing::for_each_index({O, I, KH, KW}, [&](absl::Span<const dim_t> i) {
    const dim_t o = i[0], in = i[1];
    const dim_t outer = ((o / 16 * Ib + in / 16) * KH + i[2]) * KW + i[3];
    EXPECT_EQ(w->offset(i), outer * 256 + ((in / 4) % 4) * 64 + (o % 16) * 4 + in % 4);
  });
  (void)Ob;
}

TEST(Layout, CompileTimeAndRunTimeAgree) {
  absl::StatusOr<layout> l = make_layout("nChw16c", {2, 17, 3, 3});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, NChw16c::value);
  tessera::testing::for_each_index({2, 32, 3, 3}, [&](absl::Span<const dim_t> i) {
    EXPECT_EQ(l->offset(i), NChw16c::offset(i));
  });
  using W = static_layout<"OIhw4i16o4i", 20, 17, 2, 3>;
  absl::StatusOr<layout> w = make_layout("ABcd4b16a4b", {20, 17, 2, 3});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, W::value);
  tessera::testing::for_each_index({32, 32, 2, 3}, [&](absl::Span<const dim_t> i) {
    EXPECT_EQ(w->offset(i), W::offset(i));
  });
}

TEST(Layout, ZeroSizeDimsFollowOneDnnStrides) {
  // oneDNN 2.6.3 (measured): nchw 2x0x3x3 -> strides 9 9 3 1; nChw16c 0x17x3x3 -> 288 144 48 16.
  absl::StatusOr<layout> a = make_layout("nchw", {2, 0, 3, 3});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(std::vector<dim_t>(a->strides().begin(), a->strides().end()),
            (std::vector<dim_t>{9, 9, 3, 1}));
  EXPECT_EQ(a->required_span_size(), 0);
  absl::StatusOr<layout> b = make_layout("nChw16c", {0, 17, 3, 3});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(std::vector<dim_t>(b->strides().begin(), b->strides().end()),
            (std::vector<dim_t>{288, 144, 48, 16}));
}

TEST(Layout, InvalidInputsNameTheBadValue) {
  auto msg = [](const absl::StatusOr<layout>& l) { return std::string(l.status().message()); };
  EXPECT_THAT(msg(make_layout("nchw", {2, 3})), HasSubstr("the tag has 4 dims, the dims have 2"));
  EXPECT_THAT(msg(make_layout("abcd", {2, -3, 4, 5})), HasSubstr("dim 1 is -3"));
  EXPECT_THAT(msg(make_layout("ab", {dim_t{1} << 40, dim_t{1} << 40})),
              HasSubstr("overflows int64"));
  EXPECT_THAT(msg(make_layout("aB16b", {2, (dim_t{1} << 62) + 1})), HasSubstr("overflows int64"));
  EXPECT_THAT(msg(make_layout("any", {2})), HasSubstr("'any' has no layout"));
  EXPECT_THAT(msg(make_layout("aBcd", {1, 2, 3, 4})), HasSubstr("'aBcd'"));
  std::vector<dim_t> d13(13, 1);
  EXPECT_THAT(msg(make_layout("abx", d13)), HasSubstr("the limit is 12"));
}

}  // namespace
}  // namespace tessera
