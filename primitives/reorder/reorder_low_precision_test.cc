// Reorders to and from s4, u4, f4_e2m1, f4_e3m0 and e8m0: the library's element-wise kernel
// against the scalar reference of testing/reorder, bit for bit, over plain, transposed and blocked
// layouts, with grouped scales (f32, e8m0) and zero points (s4, u4, s32); every other kernel
// declines these types, with the reason.
#include <cstdint>
#include <cstring>
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
// float types values in [-24, 24] on a grid of 1/8 (midpoints of every 4-bit type included).
std::vector<char> random_buffer(const memory_desc& m, uint32_t seed) {
  std::vector<char> buf(static_cast<size_t>(m.size_bytes()) + 1);
  std::mt19937 rng(seed);
  if (is_low_precision(m.dt()) || is_integral(m.dt())) {
    for (char& c : buf) c = static_cast<char>(rng());
    return buf;
  }
  visit_data_type(m.dt(), [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i + sizeof(T) <= buf.size(); i += sizeof(T)) {
      const double v = static_cast<int>(rng() % 385) / 8.0 - 24.0;
      const T t = from_f64<T>(v);
      std::memcpy(buf.data() + i, &t, sizeof(T));
    }
  });
  return buf;
}

struct quant_case {
  std::optional<quant_param> src_scale, src_zp, dst_scale, dst_zp;
};

// Values for a quantization argument: scales 2^k (k in [-2, 2]) or small zero points.
memory quant_memory(const quant_param& q, bool zero_point, absl::Span<const dim_t> dims,
                    std::vector<std::vector<char>>& keep, uint32_t seed) {
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
    const double v = zero_point ? (dt == data_type::u4 ? k : k - 2) : std::ldexp(1.0, k - 2);
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

// Runs the library and the reference on the same inputs; returns "" or the first difference.
std::string compare_with_reference(const memory_desc& s, const memory_desc& d, const quant_case& qc,
                                   uint32_t seed) {
  primitive_attr attr;
  attr.src_scales = qc.src_scale;
  attr.src_zero_points = qc.src_zp;
  attr.dst_scales = qc.dst_scale;
  attr.dst_zero_points = qc.dst_zp;
  auto r = reorder::create(s, d, attr);
  if (!r.ok()) return std::string(r.status().message());
  const bool low_precision = is_low_precision(s.dt()) || is_low_precision(d.dt());
  if (low_precision && r->impl_name() != "ref:any:scalar") return "chose " + r->impl_name();
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
