// Reorders to and from s4, u4, f4_e2m1, f4_e3m0 and e8m0: the library's element-wise kernel
// and the 4-bit weight kernel (quant_rows, on every ISA of this machine) against the scalar
// reference of testing/reorder, bit for bit, over plain, transposed and blocked layouts, with
// grouped scales (f32, f16, bf16, e8m0) and zero points (s4, u4, s8, u8, s32); every other kernel
// declines these types, with the reason.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/reorder/reference.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  absl::StatusOr<memory_desc> m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << m.status() << " " << tag << " " << name_of(dt);
  return *m;
}

// Random bytes for low-precision and integer buffers (every pattern is a valid code); for the
// float types values in [-24, 24] on a grid of 1/8 (midpoints of every 4-bit type included), one
// in eight a special value (NaN, infinities, far out of every 4-bit range, ties).
std::vector<char> random_buffer(const memory_desc& m, uint32_t seed) {
  std::vector<char> buf(static_cast<size_t>(m.size_bytes()) + 1);
  std::mt19937 rng(seed);
  if (is_low_precision(m.dt()) || is_integral(m.dt())) {
    for (char& c : buf) c = static_cast<char>(rng());
    return buf;
  }
  constexpr double kSpecials[] = {std::numeric_limits<double>::quiet_NaN(),
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  1e4, -1e4, 7.5, -8.5, 15.5, 0.5, -0.5, -0.0};
  visit_data_type(m.dt(), [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i + sizeof(T) <= buf.size(); i += sizeof(T)) {
      const double v = rng() % 8 == 0 ? kSpecials[rng() % std::size(kSpecials)]
                                      : static_cast<int>(rng() % 385) / 8.0 - 24.0;
      const T t = from_f64<T>(v);
      std::memcpy(buf.data() + i, &t, sizeof(T));
    }
  });
  return buf;
}

struct quant_case {
  std::optional<quant_param> src_scale, src_zp, dst_scale, dst_zp;
};

// Values for a quantization argument: scales 2^k (k in [-2, 2]) or, half the time when the type
// holds more than powers of two, fractions whose products and quotients round; small zero points.
memory quant_memory(const quant_param& q, bool zero_point, absl::Span<const dim_t> dims,
                    std::vector<std::vector<char>>& keep, uint32_t seed) {
  constexpr double kFractions[] = {0.3, 1.75, 1.0 / 3, 10.0, 0.7};
  const int rank = static_cast<int>(dims.size());
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    if (q.mask & (1 << d)) n *= dims[d] / quant_group(q, rank, d);
  }
  const data_type dt = q.dt != data_type::undef ? q.dt : zero_point ? data_type::s32 : data_type::f32;
  const memory_desc m = *memory_desc::with_strides({n}, dt, {1});
  keep.emplace_back(static_cast<size_t>(m.size_bytes()));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng() % 5);
    double v = zero_point ? (dt == data_type::u4 ? k : k - 2) : std::ldexp(1.0, k - 2);
    if (!zero_point && dt != data_type::e8m0 && rng() % 2) v = kFractions[k];
    if (is_low_precision(dt)) {
      store_code(dt, keep.back().data(), i, low_precision_from_f64(dt, v));
    } else {
      visit_data_type(dt, [&](auto tag) {
        using T = decltype(tag);
        const T t = from_f64<T>(v);
        std::memcpy(keep.back().data() + i * sizeof(T), &t, sizeof(T));
      });
    }
  }
  return memory{m, keep.back().data()};
}

bool is_quant_rows(const std::string& impl) { return impl.find(":quant_rows") != std::string::npos; }

// Runs the library (through the implementations `filter` names, any ISA of the CPU) and the
// reference on the same inputs; returns "" or the first difference, or why the library refused.
std::string compare_with_reference(const memory_desc& s, const memory_desc& d, const quant_case& qc,
                                   uint32_t seed, const std::string& filter = "") {
  primitive_attr attr;
  attr.src_scales = qc.src_scale;
  attr.src_zero_points = qc.src_zp;
  attr.dst_scales = qc.dst_scale;
  attr.dst_zero_points = qc.dst_zp;
  simd::scoped_max_isa all(simd::detected_isa());
  auto r = reorder::create(s, d, attr, {.impl_filter = filter});
  if (!r.ok()) return std::string(r.status().message());
  const bool low_precision = is_low_precision(s.dt()) || is_low_precision(d.dt());
  if (low_precision && r->impl_name() != "ref:any:scalar" && !is_quant_rows(r->impl_name())) {
    return "chose " + r->impl_name();
  }
  std::vector<char> src = random_buffer(s, seed);
  std::vector<char> got = random_buffer(d, seed + 1), want = got;
  std::vector<std::vector<char>> keep;
  exec_args args{{arg_from, {s, src.data()}}, {arg_to, {d, got.data()}}};
  exec_args quant;
  uint32_t k = seed;
  for (auto [which, q, zp] : {std::tuple{arg::src_scales, &qc.src_scale, false},
                              std::tuple{arg::src_zero_points, &qc.src_zp, true},
                              std::tuple{arg::dst_scales, &qc.dst_scale, false},
                              std::tuple{arg::dst_zero_points, &qc.dst_zp, true}}) {
    if (!*q) continue;
    const memory m = quant_memory(**q, zp, d.dims(), keep, ++k);
    args.set(which, m);
    quant.set(which, m);
  }
  if (absl::Status st = r->execute(args); !st.ok()) return std::string(st.message());
  if (absl::Status st = testing::reference_reorder({s, src.data()}, {d, want.data()}, attr, quant);
      !st.ok()) {
    return std::string(st.message());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return "byte " + std::to_string(i) + ": got " + std::to_string(uint8_t(got[i])) + " want " +
             std::to_string(uint8_t(want[i]));
    }
  }
  return "";
}

constexpr data_type kByteTypes[] = {data_type::f32, data_type::f64, data_type::bf16,
                                    data_type::f16, data_type::s8,  data_type::u8,
                                    data_type::s32, data_type::f8_e4m3};

TEST(ReorderLowPrecision, ToAndFromEveryTypeMatchesTheReference) {
  const std::vector<dim_t> dims = {2, 5, 3, 3};
  for (data_type lp : kLowPrecisionDataTypes) {
    for (data_type other : kByteTypes) {
      for (auto [stag, dtag] : {std::pair{"abcd", "acdb"}, std::pair{"acdb", "abcd"},
                                std::pair{"abcd", "aBcd16b"}, std::pair{"aBcd16b", "abcd"}}) {
        EXPECT_EQ(compare_with_reference(md(dims, other, stag), md(dims, lp, dtag), {}, 7), "")
            << name_of(other) << " " << stag << " -> " << name_of(lp) << " " << dtag;
        EXPECT_EQ(compare_with_reference(md(dims, lp, stag), md(dims, other, dtag), {}, 8), "")
            << name_of(lp) << " " << stag << " -> " << name_of(other) << " " << dtag;
      }
    }
    for (data_type lp2 : kLowPrecisionDataTypes) {
      EXPECT_EQ(compare_with_reference(md({15, 16}, lp, "ab"), md({15, 16}, lp2, "ba"), {}, 9), "")
          << name_of(lp) << " -> " << name_of(lp2);
    }
  }
}

TEST(ReorderLowPrecision, OddSizesKeepTheLastNibble) {
  // 15 elements: the high nibble of the last byte is outside the tensor; the reorder keeps it.
  const memory_desc s = md({3, 5}, data_type::f32, "ab"), d = md({3, 5}, data_type::u4, "ba");
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<float> src(15, 3.f);
  std::vector<uint8_t> dst(8, 0xFF);
  ASSERT_TRUE(r->execute({{arg_from, {s, src.data()}}, {arg_to, {d, dst.data()}}}).ok());
  for (int i = 0; i < 7; ++i) EXPECT_EQ(dst[i], 0x33) << i;
  EXPECT_EQ(dst[7], 0xF3);
}

TEST(ReorderLowPrecision, WeightDecompressionAndCompressionWithGroups) {
  const std::vector<dim_t> dims = {8, 32};
  const quant_param scale_f16{.mask = 3, .dt = data_type::f16, .groups = {1, 16}};
  const quant_param scale_e8m0{.mask = 3, .dt = data_type::e8m0, .groups = {8, 1}};
  const quant_param zp_s4{.mask = 3, .dt = data_type::s4, .groups = {1, 16}};
  const quant_param zp_u4{.mask = 2, .dt = data_type::u4};
  const quant_param zp_s32{.mask = 0};
  for (data_type w : {data_type::s4, data_type::u4, data_type::s8}) {
    for (data_type f : {data_type::f32, data_type::bf16, data_type::f16}) {
      for (const quant_case& qc :
           {quant_case{scale_f16, zp_s4, {}, {}}, quant_case{scale_e8m0, zp_u4, {}, {}},
            quant_case{scale_f16, zp_s32, {}, {}}}) {
        EXPECT_EQ(compare_with_reference(md(dims, w, "ab"), md(dims, f, "ba"), qc, 11), "")
            << name_of(w) << " -> " << name_of(f);
        const quant_case back{{}, {}, qc.src_scale, qc.src_zp};
        EXPECT_EQ(compare_with_reference(md(dims, f, "ab"), md(dims, w, "ab"), back, 12), "")
            << name_of(f) << " -> " << name_of(w);
      }
    }
  }
}

// The 4-bit weight kernel of every ISA of this machine (no kernel may go untested).
std::vector<std::string> quant_rows_filters() {
  simd::scoped_max_isa all(simd::detected_isa());
  std::vector<std::string> filters;
  for (const std::string& name : reorder_kernel_names()) {
    if (is_quant_rows(name)) filters.push_back(name);
  }
  return filters;
}

// Scales and zero points the 4-bit kernel reads per row and per column: common, along the last
// dim, along the leading dims, grouped along either (groups dividing their dims), of every type.
std::vector<quant_case> weight_quant_cases(absl::Span<const dim_t> dims, bool compress) {
  const int rank = static_cast<int>(dims.size());
  const int last = 1 << (rank - 1), all = (1 << rank) - 1;
  const dim_t rows = rank > 1 ? dims[rank - 2] : 1;
  const dim_t row_group = rows % 3 == 0 ? 3 : rows % 2 == 0 ? 2 : 1;
  std::vector<int64_t> by_rows(static_cast<size_t>(std::min(rank, 2)), 1), by_columns = by_rows;
  by_rows.front() = rank > 1 ? row_group : 1;
  by_columns.back() = 2;
  const std::vector<std::pair<quant_param, quant_param>> scale_zp = {
      {{.mask = 0}, {.mask = 0}},
      {{.mask = last, .dt = data_type::f16}, {.mask = last, .dt = data_type::s8}},
      {{.mask = all, .dt = data_type::bf16, .groups = by_rows},
       {.mask = all, .groups = by_rows}},
      {{.mask = all, .groups = by_columns}, {.mask = all, .dt = data_type::u8, .groups = by_columns}},
      {{.mask = all & ~last}, {.mask = last, .dt = data_type::s4, .groups = {2}}},
      {{.mask = all, .dt = data_type::e8m0, .groups = by_rows}, {.mask = 0, .dt = data_type::u4}},
  };
  std::vector<quant_case> cases = {{}};
  for (const auto& [scale, zp] : scale_zp) {
    if (compress) {
      cases.push_back({{}, {}, scale, zp});
      cases.push_back({{}, {}, scale, {}});
      cases.push_back({quant_param{.mask = 0}, {}, scale, zp});  // a src scale as well
    } else {
      cases.push_back({scale, zp, {}, {}});
      cases.push_back({scale, {}, {}, {}});
      cases.push_back({scale, zp, quant_param{.mask = 0}, {}});  // a dst scale as well
    }
  }
  return cases;
}

TEST(ReorderLowPrecision, QuantRowsMatchTheReferenceOnEveryIsa) {
  const std::vector<std::string> filters = quant_rows_filters();
  ASSERT_FALSE(filters.empty()) << "no quant_rows kernel on this machine";
  // Whole vectors, tails of every ISA's width (50 = 3 * 16 + 2), leading dims, one byte.
  const std::vector<std::vector<dim_t>> shapes = {{8, 32}, {3, 50}, {2, 3, 34}, {1, 2}, {4, 160}};
  int ran = 0;
  for (const std::string& filter : filters) {
    for (const std::vector<dim_t>& dims : shapes) {
      const char* tag = dims.size() == 3 ? "abc" : "ab";
      for (data_type w : {data_type::s4, data_type::u4}) {
        for (data_type f : {data_type::f32, data_type::bf16, data_type::f16}) {
          uint32_t seed = 40;
          for (const quant_case& qc : weight_quant_cases(dims, false)) {
            EXPECT_EQ(compare_with_reference(md(dims, w, tag), md(dims, f, tag), qc, ++seed, filter),
                      "") << filter << " " << name_of(w) << " -> " << name_of(f) << " "
                          << dims.size() << "D case " << seed;
            ++ran;
          }
          for (const quant_case& qc : weight_quant_cases(dims, true)) {
            EXPECT_EQ(compare_with_reference(md(dims, f, tag), md(dims, w, tag), qc, ++seed, filter),
                      "") << filter << " " << name_of(f) << " -> " << name_of(w) << " "
                          << dims.size() << "D case " << seed;
            ++ran;
          }
        }
      }
    }
  }
  EXPECT_GT(ran, 0);
}

// Rows over two threads, and dsts of 8 MiB and more, whose f32 and bf16 stores stream on AVX-512.
TEST(ReorderLowPrecision, QuantRowsSplitAcrossThreadsMatchTheReference) {
  scoped_num_threads two(2);
  for (const std::string& filter : quant_rows_filters()) {
    const quant_param scale{.mask = 3, .groups = {128, 1}};
    const quant_param zp{.mask = 3, .dt = data_type::s8, .groups = {128, 1}};
    for (data_type f : {data_type::f32, data_type::bf16}) {
      const std::vector<dim_t> big = {f == data_type::f32 ? 512 : 1024, 4096};
      EXPECT_EQ(compare_with_reference(md(big, data_type::u4, "ab"), md(big, f, "ab"),
                                       {scale, zp, {}, {}}, 5, filter),
                "")
          << filter << " u4 -> " << name_of(f);
    }
  }
  const std::vector<dim_t> dims = {96, 1024};  // six times the smallest task
  const quant_param scale{.mask = 3, .dt = data_type::f16, .groups = {32, 1}};
  const quant_param zp{.mask = 3, .dt = data_type::u8, .groups = {32, 1}};
  for (const std::string& filter : quant_rows_filters()) {
    EXPECT_EQ(compare_with_reference(md(dims, data_type::f32, "ab"), md(dims, data_type::u4, "ab"),
                                     {{}, {}, scale, zp}, 3, filter),
              "")
        << filter;
    EXPECT_EQ(compare_with_reference(md(dims, data_type::s4, "ab"), md(dims, data_type::bf16, "ab"),
                                     {scale, zp, {}, {}}, 4, filter),
              "")
        << filter;
  }
}

TEST(ReorderLowPrecision, QuantRowsDeclineWithTheReason) {
  simd::scoped_max_isa all(simd::detected_isa());
  const auto refused = [](const memory_desc& s, const memory_desc& d, primitive_attr a = {}) {
    auto r = reorder::create(s, d, a, {.impl_filter = ":quant_rows"});
    EXPECT_FALSE(r.ok()) << r->impl_name();
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_THAT(refused(md({4, 33}, data_type::f32, "ab"), md({4, 33}, data_type::s4, "ab")),
              HasSubstr("the s4 rows do not start on bytes (last dim 33"));
  EXPECT_THAT(refused(md({4, 32}, data_type::f32, "ab"), md({4, 32}, data_type::u4, "ba")),
              HasSubstr("not both dense row-major"));
  EXPECT_THAT(refused(md({4, 32}, data_type::f64, "ab"), md({4, 32}, data_type::s4, "ab")),
              HasSubstr("not a 4-bit weight reorder (f64 -> s4"));
  EXPECT_THAT(refused(md({4, 32}, data_type::u4, "ab"), md({4, 32}, data_type::s8, "ab")),
              HasSubstr("not a 4-bit weight reorder (u4 -> s8"));
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 1.f};
  EXPECT_THAT(refused(md({4, 32}, data_type::f32, "ab"), md({4, 32}, data_type::u4, "ab"), sum),
              HasSubstr("the sum post-op"));
}

TEST(ReorderLowPrecision, OtherKernelsDeclineWithTheReason) {
  simd::scoped_max_isa all(simd::detected_isa());
  const memory_desc s = md({4, 32}, data_type::u4, "ab"), d = md({4, 32}, data_type::u4, "ab");
  auto forced = reorder::create(s, d, {}, {.impl_filter = "native:any:copy"});
  ASSERT_FALSE(forced.ok());
  EXPECT_THAT(forced.status().message(),
              HasSubstr("s4, u4, f4_e2m1, f4_e3m0, e8m0 and stochastic rounding take the "
                        "element-wise reference"));
  auto r = reorder::create(s, d);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->impl_name(), "ref:any:scalar");
}

TEST(ReorderLowPrecision, QuantTypesAreChecked) {
  primitive_attr a;
  a.src_zero_points = quant_param{.mask = 0, .dt = data_type::f4_e2m1};
  auto r = reorder::create(md({2, 4}, data_type::s4, "ab"), md({2, 4}, data_type::f32, "ab"), a);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("src_zero_points of type f4_e2m1"));
  primitive_attr b;
  b.src_scales = quant_param{.mask = 0, .dt = data_type::s4};
  r = reorder::create(md({2, 4}, data_type::s4, "ab"), md({2, 4}, data_type::f32, "ab"), b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("src_scales of type s4"));
}

}  // namespace
}  // namespace tessera
