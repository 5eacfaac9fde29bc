// Every kernel on every ISA of this machine against the scalar reference, bit for bit: layouts
// (plain, permuted, blocked with padding, strided with offset0, zero-size), all 81 type pairs,
// random values and the saturation probes, and attributes.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/internal/test_case.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/simd/isa.h"

namespace tessera::reorder_test {
namespace {

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  absl::StatusOr<memory_desc> m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << tag << ": " << m.status();
  return *m;
}

struct layout_pair {
  std::vector<dim_t> dims;
  const char* src;
  const char* dst;
};

// Chosen so that every kernel has work: contiguous runs, permutations, blocked <-> plain with
// padded blocks, odd sizes and tails, zero-size dims.
const std::vector<layout_pair>& layout_pairs() {
  static const auto* pairs = new std::vector<layout_pair>{
      {{2, 17, 3, 5}, "nchw", "nchw"},      {{2, 17, 3, 5}, "nchw", "nhwc"},
      {{2, 17, 3, 5}, "nhwc", "nchw"},      {{2, 17, 3, 5}, "nchw", "nChw16c"},
      {{2, 17, 3, 5}, "nChw16c", "nchw"},   {{2, 17, 3, 5}, "nhwc", "nChw8c"},
      {{3, 40, 2, 2}, "nChw8c", "nChw16c"}, {{37, 19}, "ab", "ba"},
      {{130, 3}, "ab", "ba"},               {{1, 1}, "ab", "ba"},
      {{19, 18, 3, 3}, "oihw", "OIhw16i16o"}, {{19, 18, 3, 3}, "OIhw16i16o", "oihw"},
      {{2, 0, 3, 3}, "nchw", "nhwc"},       {{2, 3, 4, 5, 6}, "abcde", "acdeb"},
      {{301}, "a", "a"},                    {{5, 3, 7}, "abc", "cba"},
      {{40, 35}, "ab", "ba"},               {{2, 33, 5, 7}, "nchw", "nChw16c"},
      {{2, 33, 5, 7}, "nChw16c", "nchw"},   {{1, 24, 9, 4}, "nhwc", "nchw"},
      // Partial blocks whose padding the transpose writes with the data: one channel (its
      // node dropped as size 1), three channels, a second block of one.
      {{2, 1, 5, 7}, "nchw", "nChw16c"},    {{2, 3, 5, 7}, "nchw", "nChw16c"},
      {{1, 17, 2, 9}, "nchw", "nChw8c"},
      // Short src runs (hw) widened by the node that continues them in src (i): 144 columns of
      // whole blocks, 5-element groups across three i blocks, o padding written by the tiles.
      {{32, 32, 3, 3}, "oihw", "OIhw16i16o"}, {{16, 48, 1, 5}, "oihw", "OIhw16i16o"},
      {{17, 16, 2, 2}, "oihw", "OIhw16i16o"},
  };
  return *pairs;
}

constexpr data_type kTypes[] = {data_type::f32,     data_type::f64, data_type::bf16,
                                data_type::f16,     data_type::f8_e5m2, data_type::f8_e4m3,
                                data_type::s32,     data_type::s8,  data_type::u8};

// Runs the cases through every implementation and checks each kernel ran on something.
void check_all_impls(const std::vector<reorder_case>& cases, bool expect_every_impl) {
  std::map<std::string, int> accepted;
  for (const std::string& filter : all_impl_filters()) {
    for (const reorder_case& c : cases) {
      case_result r = run_case(c, filter);
      if (!r.accepted) continue;
      ++accepted[filter];
      ASSERT_EQ(r.mismatch, "") << filter << " on " << describe(c);
    }
    // The 4-bit kernel takes none of these types: reorder_low_precision_test requires it to run.
    const bool four_bit_only = filter.find(":quant_rows") != std::string::npos;
    if (expect_every_impl && !four_bit_only) {
      EXPECT_GT(accepted[filter], 0) << filter << " never accepted a case";
    }
  }
}

TEST(ReorderKernels, EveryLayoutPairAndTypePairMatchesReference) {
  std::vector<reorder_case> cases;
  uint64_t seed = 1;
  for (const layout_pair& lp : layout_pairs()) {
    for (data_type s : kTypes) {
      for (data_type d : kTypes) {
        // The full type matrix on a few layouts, a sample of it on the others (deterministic).
        if (lp.dims.size() != 4 && (seed % 3) != 0) {
          ++seed;
          continue;
        }
        cases.push_back({md(lp.dims, s, lp.src), md(lp.dims, d, lp.dst), {}, fill_kind::random,
                         seed++});
      }
    }
  }
  check_all_impls(cases, true);
}

TEST(ReorderKernels, SaturationProbesMatchReference) {
  std::vector<reorder_case> cases;
  for (data_type s : kTypes) {
    for (data_type d : kTypes) {
      cases.push_back({md({67}, s, "a"), md({67}, d, "a"), {}, fill_kind::probe});
      cases.push_back({md({3, 41}, s, "ab"), md({3, 41}, d, "ba"), {}, fill_kind::probe});
    }
  }
  check_all_impls(cases, false);
}

TEST(ReorderKernels, SpecSaturationExamples) {
  // The spec: 1024.f -> s8 gives 127; -124.f -> u8 gives 0. Checked on every implementation
  // by value, not only against the reference.
  for (const std::string& filter : all_impl_filters()) {
    for (auto [value, dt, want] : {std::tuple{1024.f, data_type::s8, 127},
                                   std::tuple{-124.f, data_type::u8, 0}}) {
      std::vector<float> src(40, value);
      std::vector<uint8_t> dst(40, 0x55);
      auto s = md({40}, data_type::f32, "a"), d = md({40}, dt, "a");
      absl::StatusOr<reorder> r = reorder::create(s, d, {}, {.impl_filter = filter});
      if (!r.ok()) continue;
      ASSERT_TRUE(r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}).ok());
      for (uint8_t v : dst) {
        ASSERT_EQ(dt == data_type::s8 ? static_cast<int>(static_cast<int8_t>(v)) : v, want)
            << filter;
      }
    }
  }
}

primitive_attr scales(int src_mask, int dst_mask) {
  primitive_attr a;
  if (src_mask >= 0) a.src_scales = quant_param{.mask = src_mask};
  if (dst_mask >= 0) a.dst_scales = quant_param{.mask = dst_mask};
  return a;
}

// The common attributes the one-pass transpose + conversion accepts: none, src and dst scales,
// an output scale of 0.5, and that with the sum post-op (beta 0.5).
std::vector<primitive_attr> common_transpose_attrs() {
  std::vector<primitive_attr> attrs(1);
  attrs.push_back(scales(0, 0));
  primitive_attr a;
  a.oscale = output_scales{.mask = 0, .values = {0.5f}};
  attrs.push_back(a);
  a.sum = sum_post_op{.beta = 0.5f};
  attrs.push_back(a);
  return attrs;
}

TEST(ReorderKernels, AttributesMatchReference) {
  std::vector<primitive_attr> float_attrs;
  float_attrs.push_back(scales(0, -1));
  float_attrs.push_back(scales(2, -1));   // per channel
  float_attrs.push_back(scales(-1, 0));
  float_attrs.push_back(scales(0, 2));
  {
    primitive_attr a;
    a.oscale = output_scales{.mask = 0, .values = {0.5f}};
    float_attrs.push_back(a);
    a.sum = sum_post_op{.beta = 1.f};
    float_attrs.push_back(a);
    primitive_attr b;
    b.sum = sum_post_op{.beta = 0.25f};
    float_attrs.push_back(b);
    primitive_attr c;
    c.oscale = output_scales{.mask = 2, .values = std::vector<float>(17, 0.f)};
    for (int i = 0; i < 17; ++i) c.oscale->values[i] = 0.25f * (i + 1);
    float_attrs.push_back(c);
  }
  std::vector<reorder_case> cases;
  uint64_t seed = 5;
  const std::vector<dim_t> dims = {2, 17, 3, 5};
  for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::s8},
                          std::pair{data_type::f32, data_type::u8},
                          std::pair{data_type::s8, data_type::f32},
                          std::pair{data_type::f32, data_type::f32},
                          std::pair{data_type::f32, data_type::bf16},
                          std::pair{data_type::bf16, data_type::s8},
                          std::pair{data_type::s32, data_type::s8},
                          std::pair{data_type::f64, data_type::u8},
                          std::pair{data_type::f16, data_type::f8_e4m3}}) {
    for (const auto& [stag, dtag] : {std::pair{"nchw", "nchw"}, std::pair{"nchw", "nhwc"},
                                     std::pair{"nhwc", "nChw16c"},
                                     std::pair{"oihw", "OIhw16i16o"}}) {
      std::vector<primitive_attr> attrs = float_attrs;
      if (is_integral(sdt)) {
        primitive_attr a = scales(0, -1);
        a.src_zero_points = quant_param{.mask = 0};
        attrs.push_back(a);
        a.src_zero_points = quant_param{.mask = 2};
        attrs.push_back(a);
      }
      if (is_integral(ddt)) {
        primitive_attr a = scales(0, 0);
        a.dst_zero_points = quant_param{.mask = 0};
        attrs.push_back(a);
        a.sum = sum_post_op{.beta = 0.5f};
        attrs.push_back(a);
        primitive_attr b;
        b.sum = sum_post_op{.beta = 2.f, .zero_point = 3};
        attrs.push_back(b);
        primitive_attr c;
        c.dst_zero_points = quant_param{.mask = 3};
        attrs.push_back(c);
      }
      for (const primitive_attr& a : attrs) {
        cases.push_back({md(dims, sdt, stag), md(dims, ddt, dtag), a, fill_kind::random, seed++});
      }
    }
  }
  check_all_impls(cases, false);
}

// Zero points on floating sides (oneDNN 3.x) and zero points given as s8 or u8: common and per
// dim, with scales and the sum, through every kernel on plain, transposed and blocked layouts.
TEST(ReorderKernels, ZeroPointsOfAnyTypeOnAnySideMatchReference) {
  std::vector<primitive_attr> attrs;
  for (data_type zdt : {data_type::undef, data_type::s8, data_type::u8}) {
    primitive_attr a;
    a.src_zero_points = quant_param{.mask = 0, .dt = zdt};
    attrs.push_back(a);
    primitive_attr b = scales(0, 0);
    b.dst_zero_points = quant_param{.mask = 0, .dt = zdt};
    attrs.push_back(b);
    primitive_attr c;
    c.src_zero_points = quant_param{.mask = 2, .dt = zdt};
    c.dst_zero_points = quant_param{.mask = 1, .dt = zdt};
    attrs.push_back(c);
    primitive_attr d = b;
    d.sum = sum_post_op{.beta = 0.5f};
    attrs.push_back(d);
  }
  std::vector<reorder_case> cases;
  uint64_t seed = 900;
  const std::vector<dim_t> dims = {2, 17, 3, 5};
  for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::f32},
                          std::pair{data_type::f32, data_type::bf16},
                          std::pair{data_type::s8, data_type::f32},
                          std::pair{data_type::u8, data_type::f16},
                          std::pair{data_type::bf16, data_type::s8},
                          std::pair{data_type::f16, data_type::f8_e5m2},
                          std::pair{data_type::f64, data_type::f32}}) {
    for (const auto& [stag, dtag] : {std::pair{"nchw", "nchw"}, std::pair{"nchw", "nhwc"},
                                     std::pair{"nhwc", "nChw16c"}}) {
      for (const primitive_attr& a : attrs) {
        cases.push_back({md(dims, sdt, stag), md(dims, ddt, dtag), a, fill_kind::random, seed++});
      }
    }
  }
  check_all_impls(cases, false);
}

// Grouped scales and zero points (groups over the last dims), scales given as f16 or bf16:
// weight compression and decompression shapes through every kernel.
TEST(ReorderKernels, GroupedScalesOfAnyTypeMatchReference) {
  std::vector<primitive_attr> attrs;
  for (data_type sdt_scale : {data_type::f32, data_type::f16, data_type::bf16}) {
    primitive_attr a;
    a.src_scales = quant_param{.mask = 3, .dt = sdt_scale, .groups = {8, 1}};
    attrs.push_back(a);
    primitive_attr b;
    b.src_scales = quant_param{.mask = 3, .dt = sdt_scale, .groups = {1, 16}};
    b.src_zero_points = quant_param{.mask = 3, .dt = data_type::s8, .groups = {1, 16}};
    attrs.push_back(b);
    primitive_attr c;
    c.dst_scales = quant_param{.mask = 2, .dt = sdt_scale, .groups = {1, 4}};
    c.dst_zero_points = quant_param{.mask = 1, .dt = data_type::u8, .groups = {8, 1}};
    attrs.push_back(c);
  }
  std::vector<reorder_case> cases;
  uint64_t seed = 1300;
  for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::s8},
                          std::pair{data_type::s8, data_type::f32},
                          std::pair{data_type::u8, data_type::bf16},
                          std::pair{data_type::f16, data_type::u8},
                          std::pair{data_type::bf16, data_type::f16}}) {
    for (const auto& [stag, dtag] : {std::pair{"ab", "ab"}, std::pair{"ab", "ba"},
                                     std::pair{"ba", "ab"}}) {
      for (const primitive_attr& a : attrs) {
        cases.push_back({md({48, 64}, sdt, stag), md({48, 64}, ddt, dtag), a, fill_kind::random,
                         seed++});
      }
    }
  }
  check_all_impls(cases, false);
}

TEST(ReorderKernels, StridedWithOffsetMatchesReference) {
  // A 5x7 window at (2, 3) of a 9x12 f32 matrix into a dense transposed bf16 matrix and back.
  auto parent = md({9, 12}, data_type::f32, "ab");
  absl::StatusOr<memory_desc> sub = parent.submemory({5, 7}, {2, 3});
  ASSERT_TRUE(sub.ok()) << sub.status();
  ASSERT_NE(sub->offset0(), 0);
  std::vector<reorder_case> cases = {
      {*sub, md({5, 7}, data_type::bf16, "ba")},
      {*sub, md({5, 7}, data_type::f32, "ab")},
      {md({5, 7}, data_type::s8, "ba"), *sub},
  };
  check_all_impls(cases, false);
}

TEST(ReorderKernels, FusedTransposeConvertMatchesReference) {
  // Full and partial 16x16 tiles (33 channels, 35 pixels) through the one-pass transpose +
  // conversion, with the common attributes it accepts.
  const std::vector<primitive_attr> attrs = common_transpose_attrs();
  std::vector<reorder_case> cases;
  uint64_t seed = 11;
  const std::vector<dim_t> dims = {2, 33, 5, 7};
  for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::s8},
                          std::pair{data_type::f32, data_type::u8},
                          std::pair{data_type::f32, data_type::bf16},
                          std::pair{data_type::s32, data_type::s8},
                          std::pair{data_type::s32, data_type::f32}}) {
    for (const primitive_attr& at : attrs) {
      for (fill_kind f : {fill_kind::random, fill_kind::probe}) {
        cases.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), at, f, seed++});
      }
    }
    primitive_attr zp = scales(0, 0);
    zp.dst_zero_points = quant_param{.mask = 0};
    if (is_integral(ddt)) {
      cases.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), zp, fill_kind::random,
                       seed++});
    }
  }
  check_all_impls(cases, false);
}

TEST(ReorderKernels, ByteDestinationsFrom64RowBlocksMatchReference) {
  // 8-bit dst from 32-bit src with >= 64 dst-contiguous rows: 64-row blocks converted before
  // the transpose, one 64-byte row per column. 64 channels (rows back to back: whole lines,
  // shifted when dst is off a line by a multiple of 4 bytes, plain stores otherwise), 128 (two
  // blocks, rows 128 bytes apart), 80 and 70 (a block, then 16-row tiles for the rest); 35
  // pixels (a partial last tile), 400 (two strips), 323 and 279 (ending in a partial 16-column
  // group of the local byte block); common attributes, the sum post-op (which keeps the 16-row
  // tiles), random and probe values.
  std::vector<primitive_attr> attrs = common_transpose_attrs();
  {
    primitive_attr zp = scales(0, 0);
    zp.dst_zero_points = quant_param{.mask = 0};
    attrs.push_back(zp);
    primitive_attr szp;
    szp.src_zero_points = quant_param{.mask = 0};
    attrs.push_back(szp);
  }
  std::vector<reorder_case> cases;
  uint64_t seed = 500;
  for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::s8},
                          std::pair{data_type::f32, data_type::u8},
                          std::pair{data_type::s32, data_type::s8},
                          std::pair{data_type::s32, data_type::u8}}) {
    for (const std::vector<dim_t>& dims :
         {std::vector<dim_t>{2, 64, 5, 7}, std::vector<dim_t>{1, 64, 20, 20},
          std::vector<dim_t>{1, 128, 5, 7}, std::vector<dim_t>{1, 80, 3, 7},
          std::vector<dim_t>{2, 70, 1, 17}, std::vector<dim_t>{1, 64, 17, 19},
          std::vector<dim_t>{1, 128, 9, 31}}) {
      cases.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), {}, fill_kind::probe,
                       seed++});
      for (const primitive_attr& at : attrs) {
        if (at.src_zero_points && !is_integral(sdt)) continue;
        cases.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), at, fill_kind::random,
                         seed++});
      }
      if (dims[1] != 64) continue;  // only back-to-back rows depend on the distance
      for (int misalign : {0, 1, 4, 48, 60}) {
        reorder_case c{md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), attrs[2], fill_kind::random,
                       seed++};
        c.dst_misalign = misalign;
        cases.push_back(c);
      }
    }
  }
  check_all_impls(cases, false);
}

// The large cases through every transpose and convert candidate (each 8+ MiB of dst).
void check_large(const std::vector<reorder_case>& cases) {
  for (const std::string& filter : all_impl_filters()) {
    if (filter.find("transpose") == std::string::npos &&
        filter.find("convert") == std::string::npos) {
      continue;
    }
    for (const reorder_case& c : cases) {
      case_result r = run_case(c, filter);
      if (!r.accepted) continue;
      ASSERT_EQ(r.mismatch, "") << filter << " on " << describe(c);
    }
  }
}

TEST(ReorderKernels, LargeDestinationsWithStreamingStoresMatchReference) {
  // 2048 x 1040 f32 (8.1 MiB of dst): the transpose writes around the cache from this size on.
  // 1 x 1 x 256 x 520 into nChw16c (8.1 MiB of dst, 15/16 of it padding): one-element blocks
  // written whole, padding included (dst 16 bytes off a line: four 16-byte stores per row on
  // avx2, one unaligned 64-byte store on avx512bw).
  // f32 -> bf16 (src on lines, plain stores) and f32 with the sum post-op (its dst lines are
  // cached by the read of the old values) are the large non-streamed contiguous runs.
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 0.5f};
  check_large({
      {md({2048, 1040}, data_type::f32, "ab"), md({2048, 1040}, data_type::f32, "ba")},
      {md({1, 1, 256, 520}, data_type::f32, "nchw"),
       md({1, 1, 256, 520}, data_type::f32, "nChw16c")},
      {md({4, 1050001}, data_type::f32, "ab"), md({4, 1050001}, data_type::bf16, "ab")},
      {md({2, 1050001}, data_type::f32, "ab"), md({2, 1050001}, data_type::f32, "ab"), sum},
  });
}

TEST(ReorderKernels, LargeNarrowingRunsWithBothOperandsOnLinesMatchReference) {
  // Contiguous conversions to narrower elements with 8+ MiB of dst, src and dst both on a line:
  // AVX-512 puts src on its lines, which puts dst on its own, and streams the stores (f32 ->
  // bf16 two vectors per 64-byte line, f32 -> u8 16-byte stores); the odd lengths end in a
  // partial vector.
  std::vector<reorder_case> cases{
      {md({4, 1050001}, data_type::f32, "ab"), md({4, 1050001}, data_type::bf16, "ab")},
      {md({4, 2100001}, data_type::f32, "ab"), md({4, 2100001}, data_type::u8, "ab")},
  };
  for (reorder_case& c : cases) c.src_misalign = c.dst_misalign = 0;
  check_large(cases);
}

TEST(ReorderKernels, LargeStreamedRowsAndWideningRunsMatchReference) {
  // The one-channel nChw16c case with dst on a cache line (whole rows streamed one by one: four
  // 16-byte stores on avx2, one 64-byte store on avx512bw), and
  // a contiguous conversion to wider elements with 8+ MiB of dst (u8 -> bf16: dst on lines, two
  // vectors per streamed 64-byte line). A test of its own so that the shards share the work.
  reorder_case one_channel_on_line{md({1, 1, 256, 520}, data_type::f32, "nchw"),
                                   md({1, 1, 256, 520}, data_type::f32, "nChw16c")};
  one_channel_on_line.dst_misalign = 0;
  check_large({
      one_channel_on_line,
      {md({4, 1050001}, data_type::u8, "ab"), md({4, 1050001}, data_type::bf16, "ab")},
  });
}

TEST(ReorderKernels, LargeTransposesInSixteenRowBlocksMatchReference) {
  // 8+ MiB of dst through 16-row blocks (AVX2 moves two 8x8 tiles per block, streamed): nchw ->
  // nChw16c with 33 channels (16-lane rows back to back, then one-element blocks written whole)
  // with dst on a line, 16 bytes off one (16-byte streamed stores) and 4 off (plain stores);
  // nhwc -> nchw with 136 channels and 16640 rows per column, whose first rows up to dst's line
  // go through the partial tile (16 bytes off: 12 rows, 4 off: 15) and whose last ones through
  // 8-row tiles, dst on a line (no head) too.
  // And nchw -> nhwc with 48 and 64 channels (AVX2: dst off a line, whole 48/64-row columns, 8
  // at a time; on a line, 16 rows at a time across each strip; 127 x 131 leaves strips with 5
  // columns past the last full tile).
  std::vector<reorder_case> cases{
      {md({3, 48, 127, 131}, data_type::f32, "nchw"), md({3, 48, 127, 131}, data_type::f32, "nhwc")},
      {md({2, 64, 128, 130}, data_type::f32, "nchw"), md({2, 64, 128, 130}, data_type::f32, "nhwc")},
  };
  for (reorder_case c : {cases[0], cases[1]}) {
    c.dst_misalign = 0;
    cases.push_back(c);
  }
  for (int misalign : {0, 16, 4}) {
    reorder_case blocked{md({1, 33, 256, 260}, data_type::f32, "nchw"),
                         md({1, 33, 256, 260}, data_type::f32, "nChw16c")};
    reorder_case planar{md({1, 136, 128, 130}, data_type::f32, "nhwc"),
                        md({1, 136, 128, 130}, data_type::f32, "nchw")};
    blocked.dst_misalign = planar.dst_misalign = misalign;
    cases.push_back(blocked);
    cases.push_back(planar);
  }
  check_large(cases);
}

TEST(ReorderKernels, LargeEightAndSixteenBitTransposesInLineBandsMatchReference) {
  // 8+ MiB of 8- or 16-bit dst, or of src and dst together (the last two cases), streamed,
  // with dst on a line: bands of 64 bytes of dst rows (32 rows of f16 / bf16, 64 of s8 / u8)
  // across each strip, every dst line streamed whole from a local block. nchw -> nhwc with 48
  // f16 channels (a band, then 16 rows plainly) and 96 u8 channels (a band, then 32 rows), whose
  // 171- and 301-pixel rows end in a partial column tile; 64 channels (whole bands). nhwc ->
  // nchw as tall strips (the next band prefetched): 64 and 40 channels (a partial column tile
  // of 8). Dst 16 bytes off a line keeps the row blocks.
  std::vector<reorder_case> cases{
      {md({2, 48, 257, 171}, data_type::f16, "nchw"), md({2, 48, 257, 171}, data_type::f16, "nhwc")},
      {md({2, 64, 128, 260}, data_type::bf16, "nchw"), md({2, 64, 128, 260}, data_type::bf16, "nhwc")},
      {md({1, 96, 300, 301}, data_type::u8, "nchw"), md({1, 96, 300, 301}, data_type::u8, "nhwc")},
      {md({2, 64, 256, 260}, data_type::s8, "nchw"), md({2, 64, 256, 260}, data_type::s8, "nhwc")},
      {md({1, 64, 256, 260}, data_type::f16, "nhwc"), md({1, 64, 256, 260}, data_type::f16, "nchw")},
      {md({1, 40, 256, 416}, data_type::bf16, "nhwc"), md({1, 40, 256, 416}, data_type::bf16, "nchw")},
      {md({1, 64, 512, 260}, data_type::s8, "nhwc"), md({1, 64, 512, 260}, data_type::s8, "nchw")},
      {md({1, 64, 256, 260}, data_type::u8, "nchw"), md({1, 64, 256, 260}, data_type::u8, "nhwc")},
      {md({1, 64, 128, 260}, data_type::f16, "nhwc"), md({1, 64, 128, 260}, data_type::f16, "nchw")},
  };
  const size_t on_line = cases.size();
  for (size_t i = 0; i < on_line; ++i) cases[i].dst_misalign = 0;
  cases.push_back(cases[0]);  // 16 bytes off a line
  cases.back().dst_misalign = 16;
  check_large(cases);
}

TEST(ReorderKernels, LargeHalfToFloatTransposesMatchReference) {
  // f16 <-> f32 transposes with 8+ MiB of dst, in one pass (AVX2's 8x8 and AVX-512's 16x16 tiles
  // widen f16 on the loads, narrow to it on the stores). nchw -> nhwc into f32 with dst on a line
  // (AVX-512 streams its whole 64-byte rows), 16 bytes off one (plain stores), with the sum
  // post-op (never streamed), 130-pixel rows ending in a partial column tile; f32 -> f16 nhwc ->
  // nchw with 40 channels (a partial column tile of 8).
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 0.5f};
  std::vector<reorder_case> cases{
      {md({2, 64, 128, 130}, data_type::f16, "nchw"), md({2, 64, 128, 130}, data_type::f32, "nhwc")},
      {md({2, 64, 128, 130}, data_type::f16, "nchw"), md({2, 64, 128, 130}, data_type::f32, "nhwc")},
      {md({2, 64, 128, 130}, data_type::f16, "nchw"), md({2, 64, 128, 130}, data_type::f32, "nhwc"),
       sum},
      {md({2, 40, 256, 210}, data_type::f32, "nhwc"), md({2, 40, 256, 210}, data_type::f16, "nchw")},
  };
  cases[0].dst_misalign = 0;
  cases[1].dst_misalign = 16;
  cases[2].dst_misalign = 0;
  check_large(cases);
}

TEST(ReorderKernels, PartialColumnTilesOfSixteenRowBlocksMatchReference) {
  // 32-bit transposes whose strips end in a partial column tile (cols % 8 = 1..7) below 16-row
  // blocks: AVX2 moves 4 of its columns as a 16x4 tile (whole 16-byte src loads) and masked
  // 8-row tiles the rest. nchw -> nhwc with 16, 32 and 40 channels (one, two and two-and-a-half
  // row blocks) and 9-23 columns per image (every remainder 1-7), f32 and s32, dst on a line,
  // 16 and 4 bytes off one; then 8+ MiB of dst (streamed): 16 channels with 131076 columns (4
  // past the last full tile) and 131079 (7 past), dst on a line and 16 bytes off one.
  std::vector<reorder_case> small;
  for (dim_t c : {16, 32, 40}) {
    for (std::vector<dim_t> hw : {std::vector<dim_t>{3, 3}, {2, 5}, {1, 11}, {3, 4}, {13, 1},
                                  {2, 7}, {3, 5}, {4, 5}, {1, 23}}) {
      for (data_type dt : {data_type::f32, data_type::s32}) {
        for (int misalign : {0, 16, 4}) {
          const std::vector<dim_t> dims{2, c, hw[0], hw[1]};
          reorder_case rc{md(dims, dt, "nchw"), md(dims, dt, "nhwc")};
          rc.dst_misalign = misalign;
          small.push_back(rc);
        }
      }
    }
  }
  check_all_impls(small, false);
  std::vector<reorder_case> large;
  for (dim_t w : {131076, 131079}) {
    for (int misalign : {0, 16}) {
      reorder_case rc{md({1, 16, 1, w}, data_type::f32, "nchw"),
                      md({1, 16, 1, w}, data_type::f32, "nhwc")};
      rc.dst_misalign = misalign;
      large.push_back(rc);
    }
  }
  check_large(large);
}

TEST(ReorderKernels, LargeBandedTransposesMatchReference) {
  // 8+ MiB of dst through the banded transpose (src rows 4 KiB or more apart), which AVX2 moves
  // band by band through a local block, streaming each column's run of dst, or, in strips of
  // kWideBandCols (1024) columns or more whose dst rows are on lines after the head, 16 rows at a
  // time, each column's 16 rows streamed as one line (1040 columns: a wide strip, then the rest
  // in bands; the rows past the last 16-row band and the partial column tile plainly): dst on a
  // line (every run streamed whole), 16 and 4 bytes off one (a head of 12 or 15 rows first,
  // plainly), and dst rows 2045 elements apart (runs off the lines: their partial end lines
  // stored plainly; no wide strip) with 1037 columns (strips ending in a partial column tile)
  // and 2045 rows (a last band of 61 rows: 56 through the block, 5 plainly).
  std::vector<reorder_case> cases;
  for (int misalign : {0, 16, 4}) {
    reorder_case c{md({2048, 1040}, data_type::f32, "ab"), md({2048, 1040}, data_type::f32, "ba")};
    c.dst_misalign = misalign;
    cases.push_back(c);
  }
  cases.push_back({md({2045, 1037}, data_type::f32, "ab"), md({2045, 1037}, data_type::f32, "ba")});
  check_large(cases);
}

TEST(ReorderKernels, LargeByteDestinationsWithStreamingStoresMatchReference) {
  // f32 -> s8/u8 nchw -> nhwc with 8 MiB of dst, through the AVX-512 transpose only (the one
  // kernel with 64-row byte blocks; 8 M elements per reference run): 64-byte rows back to back
  // streamed as whole shifted lines (dst 16 bytes off a line), and rows 128 bytes apart
  // streamed directly (dst on a line).
  reorder_case back_to_back{md({8, 64, 128, 128}, data_type::f32, "nchw"),
                            md({8, 64, 128, 128}, data_type::s8, "nhwc")};
  reorder_case apart{md({4, 128, 128, 128}, data_type::f32, "nchw"),
                     md({4, 128, 128, 128}, data_type::u8, "nhwc")};
  apart.dst_misalign = 0;
  // And 32 planes of 1517 pixels: one whole-plane strip per task (wide byte strips), taken as a
  // 1024-column chunk of the local block and a partial one of 493 (30 groups and 13 columns).
  reorder_case wide{md({32, 64, 37, 41}, data_type::f32, "nchw"),
                    md({32, 64, 37, 41}, data_type::s8, "nhwc")};
  for (const reorder_case& c : {back_to_back, apart, wide}) {
    case_result r = run_case(c, "xsimd:avx512bw:transpose");
    if (!r.accepted) GTEST_SKIP() << "no AVX-512 on this machine";
    ASSERT_EQ(r.mismatch, "") << describe(c);
  }
}

TEST(ReorderKernels, Avx2ByteDestinationsStreamedThroughALocalBlockMatchReference) {
  // f32 -> s8/u8 nchw -> nhwc streamed on AVX2 (64 rows at a time through a local block of row
  // quads, 1024-column chunks of strips up to 4096 columns, each column's 64 bytes stored back to
  // back): 8 MiB of dst (a large dst) on a line (non-temporal stores); 24+ MiB of src into
  // 6.5 MiB of dst (streamed by the source rule) with 128 channels (two 64-row blocks,
  // non-temporal) and with 96 (rows off the lines: plain stores; one 64-row block and a 32-row
  // block after it); 64 channels of 181 x 183 pixels, dst 16 bytes off a line (a last strip of
  // 355 columns: a partial chunk of 44 groups and a partial column tile of 3). The quantization
  // in each of with_block_lanes' three forms: a src scale alone (large_dst), none (large_src,
  // rows_off_lines), and src and dst scales with a dst zero point (partial_chunk).
  reorder_case large_dst{md({8, 64, 128, 128}, data_type::f32, "nchw"),
                         md({8, 64, 128, 128}, data_type::s8, "nhwc"), scales(0, -1)};
  reorder_case large_src{md({2, 128, 160, 160}, data_type::f32, "nchw"),
                         md({2, 128, 160, 160}, data_type::u8, "nhwc")};
  reorder_case rows_off_lines{md({4, 96, 128, 128}, data_type::f32, "nchw"),
                              md({4, 96, 128, 128}, data_type::s8, "nhwc")};
  reorder_case partial_chunk{md({4, 64, 181, 183}, data_type::f32, "nchw"),
                             md({4, 64, 181, 183}, data_type::s8, "nhwc"), scales(0, 0)};
  partial_chunk.attr.dst_zero_points = quant_param{.mask = 0};
  large_dst.dst_misalign = large_src.dst_misalign = rows_off_lines.dst_misalign = 0;
  partial_chunk.dst_misalign = 16;
  for (const reorder_case& c : {large_dst, large_src, rows_off_lines, partial_chunk}) {
    case_result r = run_case(c, "xsimd:avx2:transpose");
    if (!r.accepted) GTEST_SKIP() << "no AVX2 on this machine";
    EXPECT_EQ(r.mismatch, "") << describe(c);
  }
}

TEST(ReorderKernels, DestinationsOffCacheLinesMatchReference) {
  // Long columns (>= 128 rows, dst rows a multiple of 64 bytes apart) let the AVX-512
  // transpose start with a partial row block that brings dst to a cache line: distances from
  // the line, plain and grouped columns (abc -> cba 256x4x5: runs of 5 widened by b), bit
  // copies and one-pass conversions; long contiguous runs convert their first elements up to
  // the line one by one; 64-byte rows back to back (nChw16c, also with one channel) at every
  // distance too.
  std::vector<reorder_case> cases;
  uint64_t seed = 300;
  for (int misalign : {0, 4, 16, 48, 60}) {
    for (const auto& [dims, stag, dtag] :
         {std::tuple{std::vector<dim_t>{320, 37}, "ab", "ba"},
          std::tuple{std::vector<dim_t>{1, 32, 16, 9}, "nhwc", "nchw"},
          std::tuple{std::vector<dim_t>{256, 4, 5}, "abc", "cba"},
          std::tuple{std::vector<dim_t>{1000}, "a", "a"},
          std::tuple{std::vector<dim_t>{2, 16, 5, 7}, "nchw", "nChw16c"},
          std::tuple{std::vector<dim_t>{1, 1, 9, 11}, "nchw", "nChw16c"}}) {
      for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::f32},
                              std::pair{data_type::s32, data_type::s32},
                              std::pair{data_type::f32, data_type::s32},
                              std::pair{data_type::f32, data_type::bf16}}) {
        reorder_case c{md(dims, sdt, stag), md(dims, ddt, dtag), {}, fill_kind::random, seed++};
        c.dst_misalign = misalign;
        cases.push_back(c);
      }
    }
  }
  check_all_impls(cases, false);
}

TEST(ReorderKernels, ConvertRunsWithSrcAndDstOffCacheLinesMatchReference) {
  // Contiguous conversions of 256+ elements put the operand with the wider elements on a cache
  // line first (src for f32 -> bf16 / s8, dst for bf16 / u8 -> f32), converting the elements
  // before it, and the tail, through a local block; bf16 dst is stored two vectors (64 bytes)
  // at a time. Runs around the 256-element threshold and longer, src and dst each at several
  // distances from a line, with and without the sum post-op (which reads the old dst in the
  // head, the pair loop and the tail).
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 0.5f};
  std::vector<reorder_case> cases;
  uint64_t seed = 700;
  for (int src_misalign : {0, 4, 36, 60}) {
    for (int dst_misalign : {0, 2, 16, 50}) {
      for (dim_t n : {255, 256, 301, 1000}) {
        for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::bf16},
                                std::pair{data_type::s32, data_type::bf16},
                                std::pair{data_type::f32, data_type::s8},
                                std::pair{data_type::bf16, data_type::f32},
                                std::pair{data_type::u8, data_type::bf16},
                                std::pair{data_type::bf16, data_type::bf16}}) {
          for (const primitive_attr& attr : {primitive_attr{}, sum}) {
            reorder_case c{md({n}, sdt, "a"), md({n}, ddt, "a"), attr, fill_kind::random, seed++};
            c.src_misalign = src_misalign;
            // Element-aligned, as any typed pointer is (2 and 50 become 0 and 48 for f32).
            c.dst_misalign = dst_misalign - dst_misalign % (bits_of(ddt) / 8);
            cases.push_back(c);
          }
        }
      }
    }
  }
  check_all_impls(cases, false);
}

// f16 and the f8 types convert through <tessera/simd/convert.h>'s lanes (F16C for f16 on avx2
// and avx512bw): every ISA's convert kernel must take them, and its transpose too (in one pass
// for f32 / s32 -> f16 and f16 -> f32 on AVX2 and AVX-512, else through scratch), and match the reference bit for bit: random
// values and the probes (Inf, NaN, ties, denormals, values past each type's range), runs around
// the 256-element head threshold with src and dst off their lines, with and without attributes.
TEST(ReorderKernels, HalfAndEightBitFloatsTakeTheVectorConversions) {
  primitive_attr scale_and_sum = scales(0, -1);
  scale_and_sum.sum = sum_post_op{.beta = 0.5f};
  const std::vector<primitive_attr> attrs = {primitive_attr{}, scales(0, 0), scale_and_sum};
  const std::pair<data_type, data_type> pairs[] = {
      {data_type::f32, data_type::f16},     {data_type::f16, data_type::f32},
      {data_type::f16, data_type::bf16},    {data_type::bf16, data_type::f8_e5m2},
      {data_type::f8_e4m3, data_type::f32}, {data_type::f32, data_type::f8_e4m3},
      {data_type::f16, data_type::s8},      {data_type::u8, data_type::f16},
      {data_type::f8_e5m2, data_type::f16}, {data_type::s32, data_type::f8_e5m2}};
  for (simd::isa isa : simd::cpu_isas()) {
    const std::string convert = absl::StrCat("xsimd:", simd::name_of(isa), ":convert");
    const std::string transpose = absl::StrCat("xsimd:", simd::name_of(isa), ":transpose");
    uint64_t seed = 900;
    for (auto [sdt, ddt] : pairs) {
      for (const primitive_attr& attr : attrs) {
        for (dim_t n : {7, 255, 301, 1000}) {
          for (fill_kind fill : {fill_kind::random, fill_kind::probe}) {
            reorder_case c{md({n}, sdt, "a"), md({n}, ddt, "a"), attr, fill, seed++};
            c.src_misalign = 2 * (seed % 3) * (bits_of(sdt) / 8);
            c.dst_misalign = 16 - 16 % (bits_of(ddt) / 8) - (seed % 2) * (bits_of(ddt) / 8);
            const case_result r = run_case(c, convert);
            ASSERT_TRUE(r.accepted) << convert << " declined " << describe(c);
            ASSERT_EQ(r.mismatch, "") << convert << " on " << describe(c);
          }
        }
        const std::vector<dim_t> dims = {2, 35, 5, 7};
        reorder_case t{md(dims, sdt, "nchw"), md(dims, ddt, "nhwc"), attr, fill_kind::random,
                       seed++};
        const case_result r = run_case(t, transpose);
        ASSERT_TRUE(r.accepted) << transpose << " declined " << describe(t);
        ASSERT_EQ(r.mismatch, "") << transpose << " on " << describe(t);
      }
    }
  }
}

// Calls f(gather, sdt, ddt, has_f64) for every ISA's gather kernel name and every type pair.
template <class F>
void for_each_gather_and_type_pair(const F& f) {
  for (simd::isa isa : simd::cpu_isas()) {
    const std::string gather = absl::StrCat("xsimd:", simd::name_of(isa), ":gather");
    for (data_type sdt : kTypes) {
      for (data_type ddt : kTypes) {
        f(gather, sdt, ddt, sdt == data_type::f64 || ddt == data_type::f64);
      }
    }
  }
}

TEST(ReorderKernels, GatherTakesSmallProblemsOfTinyTilesAndMatchesReference) {
  // Small problems whose transpose tiles would have fewer than 64 elements, required to be taken
  // by every ISA's gather kernel: full reversals (abcd -> dcba: tiles of 2 x 4 and 1 x 3 with a
  // 1x17x5x3) for all 81 type pairs (f64 only as a plain copy: it has no vector conversion), with
  // random and probe values; the common attributes (none, scales, an output scale, with the sum)
  // and a dst zero point for integral dst; a padded blocked dst (1x3x2x2 into nChw16c: 13 of
  // each 16-element block are padding, zero whatever the attributes). And nchw -> nhwc (tiles
  // of 192): taken for conversions (at most 512 elements, no padding), not for bit copies.
  std::vector<primitive_attr> attrs = common_transpose_attrs();
  primitive_attr zp = scales(0, -1);
  zp.dst_zero_points = quant_param{.mask = 0};
  zp.sum = sum_post_op{.beta = 0.5f};
  uint64_t seed = 1300;
  for_each_gather_and_type_pair([&](const std::string& gather, data_type sdt, data_type ddt,
                                    bool has_f64) {
    std::vector<reorder_case> cases;
    for (fill_kind fill : {fill_kind::random, fill_kind::probe}) {
      cases.push_back({md({2, 16, 3, 4}, sdt, "abcd"), md({2, 16, 3, 4}, ddt, "dcba"), {},
                       fill, seed++});
    }
    cases.push_back({md({1, 17, 5, 3}, sdt, "abcd"), md({1, 17, 5, 3}, ddt, "dcba"), {},
                     fill_kind::random, seed++});
    for (const primitive_attr& attr : attrs) {
      cases.push_back({md({2, 16, 3, 4}, sdt, "abcd"), md({2, 16, 3, 4}, ddt, "dcba"), attr,
                       fill_kind::random, seed++});
      cases.push_back({md({1, 3, 2, 2}, sdt, "nchw"), md({1, 3, 2, 2}, ddt, "nChw16c"), attr,
                       fill_kind::random, seed++});
    }
    if (is_integral(ddt)) {
      cases.push_back({md({2, 16, 3, 4}, sdt, "abcd"), md({2, 16, 3, 4}, ddt, "dcba"), zp,
                       fill_kind::random, seed++});
    }
    for (const reorder_case& c : cases) {
      const bool declined = has_f64 && !(sdt == ddt && c.attr.empty());
      const case_result r = run_case(c, gather);
      ASSERT_EQ(r.accepted, !declined) << gather << " on " << describe(c);
      ASSERT_EQ(r.mismatch, "") << gather << " on " << describe(c);
    }
    // Tiles of 192 (nchw -> nhwc): conversions of up to 512 elements only.
    for (const primitive_attr& attr : {primitive_attr{}, attrs[1]}) {
      const reorder_case c{md({2, 16, 3, 4}, sdt, "nchw"), md({2, 16, 3, 4}, ddt, "nhwc"),
                           attr, fill_kind::random, seed++};
      const case_result r = run_case(c, gather);
      ASSERT_EQ(r.accepted, !has_f64 && !(sdt == ddt && attr.empty()))
          << gather << " on " << describe(c);
      ASSERT_EQ(r.mismatch, "") << gather << " on " << describe(c);
    }
  });
}

// Per-dimension attributes over 16 channels (dim 1): per-channel src scales, src scales over
// dims 0-1 with per-channel dst scales, and a per-channel output scale.
struct per_channel_attrs {
  primitive_attr src_c, src_nc_dst_c, oscale_c;
};
per_channel_attrs sixteen_channel_attrs() {
  per_channel_attrs a{scales(2, -1), scales(3, 2), {}};
  a.oscale_c.oscale = output_scales{.mask = 2, .values = std::vector<float>(16, 0.f)};
  for (int i = 0; i < 16; ++i) a.oscale_c.oscale->values[i] = 0.125f * (i % 7 + 1);
  return a;
}

TEST(ReorderKernels, GatherTakesPerDimensionAttributesAndMatchesReference) {
  // Per-dimension scales and zero points (which the transpose kernels decline, and the convert
  // kernel where they vary along its runs, as here) through every ISA's gather, required to be
  // taken for all 64 type pairs without f64 (f64: declined, it has no conversion through f32):
  // per-channel src scales (random and probe values), src scales over dims 0-1 with
  // per-channel dst scales, a per-channel output scale, each on 2x16x3x4 nchw -> nhwc and
  // abcd -> dcba; a per-channel src scale into a padded nChw16c (1x3x2x2: the padding stays
  // zero) and on 2x64x5x5 (3200 elements, tiles of 1600); per-channel zero points on integral
  // sides, and with the sum post-op (beta 0.5).
  const auto [src_c, src_nc_dst_c, oscale_c] = sixteen_channel_attrs();
  uint64_t seed = 1700;
  for_each_gather_and_type_pair([&](const std::string& gather, data_type sdt, data_type ddt,
                                    bool has_f64) {
    std::vector<reorder_case> cases;
    for (const char* dtag : {"nhwc", "dcba"}) {
      for (fill_kind fill : {fill_kind::random, fill_kind::probe}) {
        cases.push_back({md({2, 16, 3, 4}, sdt, "nchw"), md({2, 16, 3, 4}, ddt, dtag), src_c,
                         fill, seed++});
      }
      for (const primitive_attr& attr : {src_nc_dst_c, oscale_c}) {
        cases.push_back({md({2, 16, 3, 4}, sdt, "nchw"), md({2, 16, 3, 4}, ddt, dtag), attr,
                         fill_kind::random, seed++});
      }
    }
    cases.push_back({md({1, 3, 2, 2}, sdt, "nchw"), md({1, 3, 2, 2}, ddt, "nChw16c"), src_c,
                     fill_kind::random, seed++});
    cases.push_back({md({2, 64, 5, 5}, sdt, "nchw"), md({2, 64, 5, 5}, ddt, "nhwc"), src_c,
                     fill_kind::random, seed++});
    primitive_attr zps = src_c;
    if (is_integral(sdt)) zps.src_zero_points = quant_param{.mask = 2};
    if (is_integral(ddt)) zps.dst_zero_points = quant_param{.mask = 3};
    cases.push_back({md({2, 16, 3, 4}, sdt, "nchw"), md({2, 16, 3, 4}, ddt, "nhwc"), zps,
                     fill_kind::random, seed++});
    zps.sum = sum_post_op{.beta = 0.5f};
    cases.push_back({md({2, 16, 3, 4}, sdt, "nchw"), md({2, 16, 3, 4}, ddt, "dcba"), zps,
                     fill_kind::random, seed++});
    for (const reorder_case& c : cases) {
      const case_result r = run_case(c, gather);
      ASSERT_EQ(r.accepted, !has_f64) << gather << " on " << describe(c);
      ASSERT_EQ(r.mismatch, "") << gather << " on " << describe(c);
    }
  });
}

TEST(ReorderKernels, ConvertTakesPerDimensionAttributesConstantAlongItsRunsAndMatchesReference) {
  // Per-dimension scales and zero points over dims outside the contiguous run keep one value per
  // run, which the convert kernel takes as common values. Required to be taken by every ISA's
  // convert kernel, bit for bit as the reference: nchw -> nchw with per-channel src scales
  // (random and probe values), src scales over dims 0-1 with per-channel dst scales, a
  // per-channel output scale, per-channel src and per-(n, c) dst zero points on integral sides
  // with and without the sum post-op; oihw -> oihw with per-output-channel scales; 2x64x7x7
  // (beyond the gather's 4096 elements) and runs of 70000 elements split into pieces between
  // tasks. nhwc -> nhwc per channel (the run is the channels) must be declined.
  const auto [src_c, src_nc_dst_c, oscale_c] = sixteen_channel_attrs();
  uint64_t seed = 2100;
  for (simd::isa isa : simd::cpu_isas()) {
    const std::string convert = absl::StrCat("xsimd:", simd::name_of(isa), ":convert");
    for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::s8},
                            std::pair{data_type::f32, data_type::u8},
                            std::pair{data_type::s8, data_type::f32},
                            std::pair{data_type::u8, data_type::s8},
                            std::pair{data_type::s32, data_type::u8},
                            std::pair{data_type::f32, data_type::f32},
                            std::pair{data_type::f32, data_type::bf16},
                            std::pair{data_type::bf16, data_type::s8},
                            std::pair{data_type::f16, data_type::u8},
                            std::pair{data_type::f32, data_type::f8_e4m3}}) {
      std::vector<reorder_case> taken;
      const std::vector<dim_t> dims = {2, 16, 9, 9};
      for (fill_kind fill : {fill_kind::random, fill_kind::probe}) {
        taken.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nchw"), src_c, fill, seed++});
      }
      for (const primitive_attr& attr : {src_nc_dst_c, oscale_c}) {
        taken.push_back(
            {md(dims, sdt, "nchw"), md(dims, ddt, "nchw"), attr, fill_kind::random, seed++});
      }
      primitive_attr zps = src_c;
      if (is_integral(sdt)) zps.src_zero_points = quant_param{.mask = 2};
      if (is_integral(ddt)) zps.dst_zero_points = quant_param{.mask = 3};
      taken.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nchw"), zps, fill_kind::random,
                       seed++});
      zps.sum = sum_post_op{.beta = 0.5f};
      taken.push_back({md(dims, sdt, "nchw"), md(dims, ddt, "nchw"), zps, fill_kind::random,
                       seed++});
      taken.push_back({md({32, 16, 3, 3}, sdt, "oihw"), md({32, 16, 3, 3}, ddt, "oihw"),
                       scales(1, -1), fill_kind::random, seed++});
      taken.push_back({md({2, 64, 7, 7}, sdt, "nchw"), md({2, 64, 7, 7}, ddt, "nchw"), src_c,
                       fill_kind::random, seed++});
      taken.push_back({md({1, 3, 1, 70000}, sdt, "nchw"), md({1, 3, 1, 70000}, ddt, "nchw"),
                       scales(2, 2), fill_kind::random, seed++});
      for (const reorder_case& c : taken) {
        const case_result r = run_case(c, convert);
        ASSERT_TRUE(r.accepted) << convert << " on " << describe(c);
        ASSERT_EQ(r.mismatch, "") << convert << " on " << describe(c);
      }
      const reorder_case channels_last{md(dims, sdt, "nhwc"), md(dims, ddt, "nhwc"), src_c,
                                       fill_kind::random, seed++};
      EXPECT_FALSE(run_case(channels_last, convert).accepted) << describe(channels_last);
    }
  }
}

TEST(ReorderKernels, TransposesWithSrcOffCacheLinesMatchReference) {
  // When src's rows share their offset from a cache line, the transpose's strips after the first
  // start on src's lines and the AVX-512 kernel takes the columns before the line as a partial
  // first tile (64+ columns after it); short column ranges keep whole tiles. src and dst at
  // several distances from a line (rows a multiple of 64 bytes apart, so that they share it):
  // several strips (ab -> ba 70 x 320, 17 x 1504), one strip of 320 columns (nchw -> nhwc), and
  // 64 columns (nhwc -> nchw: no head), and 143 rows of 40 (nhwc -> nchw: the AVX-512 tall
  // strip with its prefetch, two whole tiles and a partial one); oihw -> OIhw16i16o, whose
  // strips of 16 rows x 144 grouped columns go through a local block (grouped_strip: split
  // loads when src is off a line) and whose third strip (one row and padding) takes the tiles;
  // bit copies, the one-pass conversion and the two-pass one through scratch.
  std::vector<reorder_case> cases;
  uint64_t seed = 900;
  for (int src_misalign : {0, 4, 16, 52}) {
    for (int dst_misalign : {0, 16}) {
      for (const auto& [dims, stag, dtag] :
           {std::tuple{std::vector<dim_t>{70, 320}, "ab", "ba"},
            std::tuple{std::vector<dim_t>{17, 1504}, "ab", "ba"},
            std::tuple{std::vector<dim_t>{2, 20, 8, 40}, "nchw", "nhwc"},
            std::tuple{std::vector<dim_t>{1, 64, 5, 7}, "nhwc", "nchw"},
            std::tuple{std::vector<dim_t>{1, 40, 13, 11}, "nhwc", "nchw"},
            std::tuple{std::vector<dim_t>{33, 32, 3, 3}, "oihw", "OIhw16i16o"}}) {
        for (auto [sdt, ddt] : {std::pair{data_type::f32, data_type::f32},
                                std::pair{data_type::s32, data_type::s32},
                                std::pair{data_type::f32, data_type::s8},
                                std::pair{data_type::f32, data_type::bf16}}) {
          reorder_case c{md(dims, sdt, stag), md(dims, ddt, dtag), {}, fill_kind::random, seed++};
          c.src_misalign = src_misalign;
          c.dst_misalign = dst_misalign;
          cases.push_back(c);
        }
      }
    }
  }
  check_all_impls(cases, false);
}

TEST(ReorderKernels, BandedTransposesMatchReference) {
  // Transposes whose src rows are a page or more apart and that have more than one band of 64
  // rows move band by band, column blocks outermost within a band, prefetching the next band's
  // rows (banded_transpose). Two or three bands, the last one partial; src and dst at several
  // distances from a cache line (partial first row and column blocks); elements of every size
  // (register tiles for 32-bit, element loops for the others); the one-pass conversion and the
  // two-pass one through scratch; nchw -> nhwc with 70 channels (two images, strips of 256
  // columns).
  std::vector<reorder_case> cases;
  uint64_t seed = 1100;
  for (auto [src_misalign, dst_misalign] : {std::pair{0, 0}, std::pair{4, 16}, std::pair{52, 0}}) {
    for (const auto& [dims, stag, dtag, sdt, ddt] :
         {std::tuple{std::vector<dim_t>{150, 1030}, "ab", "ba", data_type::f32, data_type::f32},
          std::tuple{std::vector<dim_t>{2, 70, 32, 33}, "nchw", "nhwc", data_type::f32,
                     data_type::f32},
          std::tuple{std::vector<dim_t>{70, 4100}, "ab", "ba", data_type::u8, data_type::u8},
          std::tuple{std::vector<dim_t>{70, 2050}, "ab", "ba", data_type::bf16, data_type::bf16},
          std::tuple{std::vector<dim_t>{70, 520}, "ab", "ba", data_type::f64, data_type::f64},
          std::tuple{std::vector<dim_t>{70, 1030}, "ab", "ba", data_type::f32, data_type::bf16},
          std::tuple{std::vector<dim_t>{70, 2050}, "ab", "ba", data_type::bf16, data_type::f32}}) {
      reorder_case c{md(dims, sdt, stag), md(dims, ddt, dtag), {}, fill_kind::random, seed++};
      c.src_misalign = src_misalign - src_misalign % (bits_of(sdt) / 8);
      c.dst_misalign = dst_misalign - dst_misalign % (bits_of(ddt) / 8);
      cases.push_back(c);
    }
  }
  check_all_impls(cases, false);
}

}  // namespace
}  // namespace tessera::reorder_test
