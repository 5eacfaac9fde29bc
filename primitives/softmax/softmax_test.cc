// Behaviour of the softmax primitives: kernel choice, `any`, in-place, padding, int8 scales,
// verbose lines, and bad input (clear Status, nothing written).
#include "tessera/primitives/softmax/softmax.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::plain;
using ::testing::HasSubstr;

std::vector<double> iota_values(size_t n, double scale) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<double>(i)) * scale;
  return v;
}

// Runs `bwd` from dst `y` with diff_src on diff_dst's buffer and on its own; both must agree.
void expect_backward_in_place_equals_out_of_place(const softmax_backward& bwd, const memory_desc& md,
                                                  std::vector<uint8_t>& y, double dd_scale,
                                                  const std::string& what) {
  auto dd = buffer(md);
  testing::write_logical(md, dd.data(), iota_values(md.nelems(), dd_scale));
  auto dx = buffer(md);
  ASSERT_TRUE(bwd.execute({{arg::dst, {md, y.data()}},
                           {arg::diff_dst, {md, dd.data()}},
                           {arg::diff_src, {md, dx.data()}}})
                  .ok());
  ASSERT_TRUE(bwd.execute({{arg::dst, {md, y.data()}},
                           {arg::diff_dst, {md, dd.data()}},
                           {arg::diff_src, {md, dd.data()}}})
                  .ok());
  EXPECT_EQ(dd, dx) << bwd.impl_name() << " " << what;
}

TEST(Softmax, PicksVectorKernelsByLayout) {
  const std::string isa(simd::name_of(simd::max_isa()));
  auto dense = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f32),
                                       *memory_desc::any({8, 100}, data_type::f32), 1);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ(dense->impl_name(), "xsimd:" + isa + ":dense");

  auto nchw = softmax_forward::create(softmax_alg::softmax, plain({2, 50, 7, 7}, data_type::f32),
                                      *memory_desc::any({2, 50, 7, 7}, data_type::f32), 1);
  ASSERT_TRUE(nchw.ok());
  EXPECT_EQ(nchw->impl_name(), "xsimd:" + isa + ":strided");

  auto nchw16c = softmax_forward::create(softmax_alg::softmax,
                                         blocked({2, 50, 7, 7}, data_type::f32, 1, 16),
                                         *memory_desc::any({2, 50, 7, 7}, data_type::f32), 1);
  ASSERT_TRUE(nchw16c.ok());
  EXPECT_EQ(nchw16c->impl_name(), "xsimd:" + isa + ":dense");

  auto forced = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f32),
                                        plain({8, 100}, data_type::f32), 1, {}, {"ref"});
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->impl_name(), "ref:any:scalar");

  // int8 and f64 have vector kernels; f64 mixed with another type goes to the reference kernel.
  auto s8 = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::s8),
                                    plain({8, 100}, data_type::f32), 1);
  ASSERT_TRUE(s8.ok());
  EXPECT_EQ(s8->impl_name(), "xsimd:" + isa + ":dense");
  auto f64 = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f64),
                                     plain({8, 100}, data_type::f64), 1);
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(f64->impl_name(), "xsimd:" + isa + ":dense");
  auto mixed = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f64),
                                       plain({8, 100}, data_type::f32), 1);
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->impl_name(), "ref:any:scalar");
}

TEST(Softmax, CapOnIsaIsHonoured) {
#if defined(__aarch64__)
  simd::scoped_max_isa cap(simd::isa::neon64);
  auto fwd = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f32),
                                     plain({8, 100}, data_type::f32), 1);
  ASSERT_TRUE(fwd.ok());
  EXPECT_EQ(fwd->impl_name(), "xsimd:neon64:dense");
#else
  simd::scoped_max_isa cap(simd::isa::sse4_2);
  auto fwd = softmax_forward::create(softmax_alg::softmax, plain({8, 100}, data_type::f32),
                                     plain({8, 100}, data_type::f32), 1);
  ASSERT_TRUE(fwd.ok());
  EXPECT_EQ(fwd->impl_name(), "xsimd:sse4_2:dense");
#endif
}

TEST(Softmax, AnyTakesTheSourceLayout) {
  const memory_desc src = plain({4, 6, 5}, data_type::f32, {2, 0, 1});
  auto fwd = softmax_forward::create(softmax_alg::softmax, src,
                                     *memory_desc::any({4, 6, 5}, data_type::bf16), 1);
  ASSERT_TRUE(fwd.ok());
  EXPECT_EQ(fwd->dst_desc().dt(), data_type::bf16);
  EXPECT_EQ(fwd->dst_desc().blocking(), src.blocking());
}

// Along axis 1, rows of 70 go in pairs (forward_row_pair), softmax and logsoftmax.
TEST(Softmax, InPlaceEqualsOutOfPlace) {
  for (const std::string& filter : softmax_test::kernel_filters()) {
    for (int axis : {0, 1}) {
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
        const memory_desc md = plain({33, 70}, data_type::f32);
        auto fwd = softmax_forward::create(alg, md, md, axis, {}, {filter});
        if (!fwd.ok()) continue;
        auto a = buffer(md);
        testing::write_logical(md, a.data(), iota_values(md.nelems(), 5));
        auto out = buffer(md);
        ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, out.data()}}}).ok());
        ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, a.data()}}}).ok());
        EXPECT_EQ(a, out) << fwd->impl_name() << " " << name_of(alg);

        if (alg != softmax_alg::softmax) continue;
        auto bwd = softmax_backward::create(alg, md, md, md, axis, {}, {filter});
        if (!bwd.ok()) continue;
        expect_backward_in_place_equals_out_of_place(*bwd, md, out, 1,
                                                     "axis " + std::to_string(axis));
      }
    }
  }
}

// An axis longer than the vector kernels' int32 counts of maxima goes to the reference kernel
// (logsoftmax forward only: nothing else counts). Creation only: nothing is allocated.
TEST(Softmax, LogsoftmaxAxisBeyondInt32CountsTakesTheReference) {
  const std::string isa(simd::name_of(simd::max_isa()));
  const dim_t longest = (dim_t{1} << 31) - 1;
  for (dim_t len : {longest, longest + 1}) {
    const memory_desc md = plain({1, len}, data_type::f32);
    auto log = softmax_forward::create(softmax_alg::logsoftmax, md, md, 1);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_EQ(log->impl_name(), len == longest ? "xsimd:" + isa + ":dense" : "ref:any:scalar");
    auto soft = softmax_forward::create(softmax_alg::softmax, md, md, 1);
    ASSERT_TRUE(soft.ok()) << soft.status();
    EXPECT_EQ(soft->impl_name(), "xsimd:" + isa + ":dense");
  }
  // The refusal is named when the vector kernel is asked for.
  const memory_desc md = plain({1, longest + 1}, data_type::f32);
  auto forced = softmax_forward::create(softmax_alg::logsoftmax, md, md, 1, {}, {"xsimd"});
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.status().message().find("2147483648 is above 2^31 - 1"), std::string::npos)
      << forced.status();
}

// The dense backward puts diff_src's vectors on whole cache lines by a head of up to one vector
// less one element, so where its rows are split depends on diff_src's address. Each element's
// result must not: diff_src at every 4-byte offset within a line (rows of 1000, 32 bytes off a
// line every other row, and of 37, 7 and 16) gives the bits of diff_src on a line, softmax and
// logsoftmax, with the elements around the tensor untouched.
TEST(Softmax, BackwardDiffSrcPlacementDoesNotChangeTheBits) {
  for (const std::string& filter : softmax_test::kernel_filters()) {
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (dim_t len : {1000, 37, 7, 16}) {
        const memory_desc md = plain({5, len}, data_type::f32);
        auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
        auto bwd = softmax_backward::create(alg, md, md, md, 1, {}, {filter});
        ASSERT_TRUE(fwd.ok() && bwd.ok());
        auto src = buffer(md);
        testing::write_logical(md, src.data(), iota_values(md.nelems(), 7));
        auto y = buffer(md);
        ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, y.data()}}}).ok());
        auto dy = buffer(md);
        testing::write_logical(md, dy.data(), iota_values(md.nelems(), 0.3));
        const size_t bytes = md.size_bytes();
        // One cache line of guard on either side of every placement.
        std::vector<uint8_t> storage(bytes + 4 * 64, 0x5a);
        const uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
        uint8_t* lined = storage.data() + (64 - base % 64) % 64 + 64;
        std::vector<uint8_t> expected;
        for (int offset = 0; offset < 64; offset += 4) {
          std::fill(storage.begin(), storage.end(), uint8_t{0x5a});
          uint8_t* dx = lined + offset;
          ASSERT_TRUE(bwd->execute({{arg::dst, {md, y.data()}},
                                    {arg::diff_dst, {md, dy.data()}},
                                    {arg::diff_src, {md, dx}}})
                          .ok());
          std::vector<uint8_t> got(dx, dx + bytes);
          if (offset == 0) expected = got;
          EXPECT_EQ(got, expected) << bwd->impl_name() << " len " << len << " offset " << offset;
          const auto untouched = [](const uint8_t* b, const uint8_t* e) {
            return std::all_of(b, e, [](uint8_t v) { return v == 0x5a; });
          };
          EXPECT_TRUE(untouched(storage.data(), dx) &&
                      untouched(dx + bytes, storage.data() + storage.size()))
              << bwd->impl_name() << " len " << len << " offset " << offset;
        }
      }
    }
  }
}

// The same logical results, bit for bit (as f64: exact for every type here), nChw16c's in `want`.
void expect_same_bits(const std::vector<double>& got, const std::vector<double>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want[i]))
        << what << " element " << i << ": " << got[i] << " against nChw16c's " << want[i];
  }
}

// Dense backward rows of up to four vectors are held in registers, and the next row is loaded
// before this one's results are stored (backward_short_rows). nhwc rows of C channels: in place
// and out of place agree, and where no sum takes four vectors at once (C < 32: below 4 vectors
// on avx2 and avx512bw; runs of 16 on sse4_2 group as its rows do), each element has the bits
// of nChw16c, whose rows of more than 16 go through the multi-run loops. f32 and bf16, softmax
// and logsoftmax, every ISA.
TEST(Softmax, BackwardShortRowsGetTheBitsOfTheGeneralLoops) {
  for (data_type dt : {data_type::f32, data_type::bf16}) {
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (dim_t c : {1, 3, 5, 13, 16, 17, 19, 31, 32, 47, 63, 64, 65}) {
        const std::vector<dim_t> dims = {2, c, 5, 3};
        const memory_desc nhwc = plain(dims, dt, {0, 2, 3, 1});
        const memory_desc nchw16c = blocked(dims, dt, 1, 16);
        for (const std::string& filter : softmax_test::kernel_filters()) {
          auto fwd = softmax_forward::create(alg, nhwc, nhwc, 1, {}, {filter});
          auto bwd = softmax_backward::create(alg, nhwc, nhwc, nhwc, 1, {}, {filter});
          auto bwd16 = softmax_backward::create(alg, nchw16c, nchw16c, nchw16c, 1, {}, {filter});
          ASSERT_TRUE(fwd.ok() && bwd.ok() && bwd16.ok()) << filter;
          auto src = buffer(nhwc), y = buffer(nhwc);
          testing::write_logical(nhwc, src.data(), iota_values(nhwc.nelems(), 6));
          ASSERT_TRUE(
              fwd->execute({{arg::src, {nhwc, src.data()}}, {arg::dst, {nhwc, y.data()}}}).ok());
          const std::string what = std::string(name_of(dt)) + " " + std::string(name_of(alg)) +
                                   " C " + std::to_string(c);
          expect_backward_in_place_equals_out_of_place(*bwd, nhwc, y, 0.7, what);
          if (c >= 32) continue;

          auto dy = buffer(nhwc), dx = buffer(nhwc);
          testing::write_logical(nhwc, dy.data(), iota_values(nhwc.nelems(), 0.7));
          ASSERT_TRUE(bwd->execute({{arg::dst, {nhwc, y.data()}},
                                    {arg::diff_dst, {nhwc, dy.data()}},
                                    {arg::diff_src, {nhwc, dx.data()}}})
                          .ok());
          auto y16 = buffer(nchw16c), dy16 = buffer(nchw16c), dx16 = buffer(nchw16c);
          testing::write_logical(nchw16c, y16.data(), testing::read_logical(nhwc, y.data()));
          testing::write_logical(nchw16c, dy16.data(), testing::read_logical(nhwc, dy.data()));
          ASSERT_TRUE(bwd16->execute({{arg::dst, {nchw16c, y16.data()}},
                                      {arg::diff_dst, {nchw16c, dy16.data()}},
                                      {arg::diff_src, {nchw16c, dx16.data()}}})
                          .ok());
          expect_same_bits(testing::read_logical(nhwc, dx.data()),
                           testing::read_logical(nchw16c, dx16.data()),
                           bwd->impl_name() + " " + what);
        }
      }
    }
  }
}

// Forward rows of one vector, or of up to four with a partial last one, whose dst is bf16 or f16
// are held in registers on avx512bw and sse4_2 (forward_short_rows). nhwc rows of C channels,
// some with -Inf elements, one all -Inf for softmax_inf_as_zero: in place and out of place
// agree, and where no sum takes four vectors at once (C < 32) each element has the bits of
// nChw16c, whose rows of more than 16 go through forward_dense_rows' multi-run loops. Not
// compared on avx2: its rows choose their exp by their range, and a single-run row keeps its
// exps where a multi-run row recomputes them with exp_diff, so their bits may differ (both
// within the accuracy test's bounds).
TEST(Softmax, ForwardShortRowsGetTheBitsOfTheGeneralLoops) {
  const std::vector<std::pair<data_type, data_type>> types = {
      {data_type::bf16, data_type::bf16}, {data_type::f32, data_type::bf16},
      {data_type::f16, data_type::f16}, {data_type::f32, data_type::f16}};
  for (const auto& [sdt, ddt] : types) {
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      for (dim_t c : {1, 3, 5, 13, 16, 17, 19, 31, 32, 47, 63, 64, 65}) {
        const std::vector<dim_t> dims = {2, c, 5, 3};
        const memory_desc src_nhwc = plain(dims, sdt, {0, 2, 3, 1});
        const memory_desc dst_nhwc = plain(dims, ddt, {0, 2, 3, 1});
        const memory_desc src16 = blocked(dims, sdt, 1, 16);
        const memory_desc dst16 = blocked(dims, ddt, 1, 16);
        // Row (n, h, w) holds logical elements (n, c, h, w) for every c.
        std::vector<double> values = iota_values(src_nhwc.nelems(), 20);
        const dim_t rows = 2 * 5 * 3;
        for (dim_t e = 0; e < src_nhwc.nelems(); ++e) {
          const dim_t row = (e / (c * 15)) * 15 + e % 15;
          const dim_t channel = (e / 15) % c;
          if (row % 4 == 1 && channel % 3 == 0 && channel + 1 < c) values[e] = -INFINITY;
          if (row == rows - 2 && alg == softmax_alg::softmax_inf_as_zero) values[e] = -INFINITY;
        }
        for (const std::string& filter : softmax_test::kernel_filters()) {
          auto fwd = softmax_forward::create(alg, src_nhwc, dst_nhwc, 1, {}, {filter});
          auto fwd16 = softmax_forward::create(alg, src16, dst16, 1, {}, {filter});
          if (!fwd.ok() || !fwd16.ok()) continue;  // f16 on sse4_2 has no vector kernel
          const std::string what = std::string(name_of(sdt)) + " -> " +
                                   std::string(name_of(ddt)) + " " + std::string(name_of(alg)) +
                                   " C " + std::to_string(c);
          // dst with a guard line after it: nothing is written past the last row.
          const size_t dst_bytes = dst_nhwc.size_bytes();
          auto src = buffer(src_nhwc), guarded = std::vector<uint8_t>(dst_bytes + 64, 0x5a);
          testing::write_logical(src_nhwc, src.data(), values);
          ASSERT_TRUE(fwd->execute({{arg::src, {src_nhwc, src.data()}},
                                    {arg::dst, {dst_nhwc, guarded.data()}}})
                          .ok());
          EXPECT_TRUE(std::all_of(guarded.begin() + dst_bytes, guarded.end(),
                                  [](uint8_t b) { return b == 0x5a; }))
              << fwd->impl_name() << " " << what << ": written past the tensor";
          const std::vector<uint8_t> dst(guarded.begin(), guarded.begin() + dst_bytes);
          if (sdt == ddt) {
            auto in_place = src;
            ASSERT_TRUE(fwd->execute({{arg::src, {src_nhwc, in_place.data()}},
                                      {arg::dst, {dst_nhwc, in_place.data()}}})
                            .ok());
            EXPECT_EQ(in_place, dst) << fwd->impl_name() << " " << what << " in place";
          }
          if (c >= 32 || filter.find("avx2") != std::string::npos) continue;

          auto src_b = buffer(src16), dst_b = buffer(dst16);
          testing::write_logical(src16, src_b.data(), values);
          ASSERT_TRUE(fwd16->execute({{arg::src, {src16, src_b.data()}},
                                      {arg::dst, {dst16, dst_b.data()}}})
                          .ok());
          expect_same_bits(testing::read_logical(dst_nhwc, dst.data()),
                           testing::read_logical(dst16, dst_b.data()),
                           fwd->impl_name() + " " + what);
        }
      }
    }
  }
}

// In-place along a strided axis, forward and backward, at lane counts where the strided kernels'
// vectors overlap (the last one ends at the last lane), leftover lanes go through dense rows, a
// vector is masked, or one sweep takes 5 to 8 vectors, with all -Inf lanes among them: every
// sweep must read its vectors before writing any.
TEST(Softmax, StridedInPlaceEqualsOutOfPlace) {
  for (dim_t lanes : std::vector<dim_t>{5, 13, 17, 20, 27, 40, 49, 64, 70, 141}) {
    const memory_desc md = plain({2, 23, lanes}, data_type::f32);
    std::vector<double> values = iota_values(md.nelems(), 9);
    for (dim_t i = 0; i < md.nelems(); i += lanes) {
      values[i] = -INFINITY;               // lane 0: all -Inf
      values[i + lanes - 1] = -INFINITY;   // the last lane: all -Inf
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
        if (!fwd.ok()) continue;
        auto a = buffer(md);
        testing::write_logical(md, a.data(), values);
        auto out = buffer(md);
        ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, out.data()}}}).ok());
        ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, a.data()}}}).ok());
        EXPECT_EQ(a, out) << fwd->impl_name() << " " << name_of(alg) << " lanes " << lanes;

        // Backward from that output, diff_src on diff_dst's buffer and on its own.
        if (alg == softmax_alg::softmax_inf_as_zero) continue;
        auto bwd = softmax_backward::create(alg, md, md, md, 1, {}, {filter});
        if (!bwd.ok()) continue;
        expect_backward_in_place_equals_out_of_place(
            *bwd, md, out, 4, std::string(name_of(alg)) + " lanes " + std::to_string(lanes));
      }
    }
  }
}

// A strided backward whose group is one contiguous block (nchw along C) takes its second sweep in
// memory order (backward_contiguous_dx); the same values with a padded axis stride (52 for 49
// lanes: not contiguous) take one vector per axis step. Both give the same bits, on every ISA,
// whole groups and a single split group, with dx at two offsets 4 bytes apart.
TEST(Softmax, BackwardContiguousGroupGivesTheBitsOfAPaddedOne) {
  for (const std::vector<dim_t>& dims :
       {std::vector<dim_t>{3, 37, 49}, {2, 23, 16}, {3, 29, 100}, {1, 1000, 49}}) {
    const dim_t lanes = dims[2], len = dims[1];
    const memory_desc md = plain(dims, data_type::f32);
    const memory_desc padded =
        *memory_desc::with_strides(dims, data_type::f32, {len * (lanes + 3), lanes + 3, 1});
    std::vector<double> y(static_cast<size_t>(md.nelems())), dy(y.size());
    for (size_t i = 0; i < y.size(); ++i) {
      y[i] = -static_cast<double>((i * 7919) % 1009) * 0.01;  // a logsoftmax-like range
      dy[i] = static_cast<double>((i * 104729) % 997) * 1e-3 - 0.5;
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        if (filter == "ref") continue;
        std::vector<std::vector<double>> results;
        for (const memory_desc* m : {&md, &padded}) {
          for (int shift : {0, 1}) {  // dx's buffer offset, in elements
            auto bwd = softmax_backward::create(alg, *m, *m, *m, 1, {}, {filter});
            ASSERT_TRUE(bwd.ok()) << bwd.status();
            auto yb = buffer(*m), dyb = buffer(*m);
            testing::write_logical(*m, yb.data(), y);
            testing::write_logical(*m, dyb.data(), dy);
            std::vector<uint8_t> dxb(buffer(*m).size() + 64);
            uint8_t* dx = dxb.data() + shift * sizeof(float);
            ASSERT_TRUE(bwd->execute({{arg::dst, {*m, yb.data()}},
                                      {arg::diff_dst, {*m, dyb.data()}},
                                      {arg::diff_src, {*m, dx}}})
                            .ok());
            results.push_back(testing::read_logical(*m, dx));
          }
        }
        for (size_t r = 1; r < results.size(); ++r) {
          EXPECT_EQ(results[r], results[0]) << filter << " " << name_of(alg) << " "
                                            << ::testing::PrintToString(dims) << " run " << r;
        }
      }
    }
  }
}

// A single strided group large enough for two threads is split along its axis (verbose line:
// axis_parts), forward and backward, on every ISA; two groups, a small group and many lanes are
// not. In-place gives the bits of out-of-place there too, with all -Inf lanes and a lane whose
// max lies in one part.
TEST(Softmax, SingleStridedGroupIsSplitAlongItsAxis) {
  struct split_case {
    std::vector<dim_t> dims;
    const char* parts;  // in the verbose line, or "" for no split
  };
  const std::vector<split_case> cases = {{{6000, 24}, " axis_parts:8"},
                                         {{2, 6000, 24}, ""},
                                         {{600, 24}, ""},
                                         {{40, 2000}, ""},
                                         {{2000, 17}, " axis_parts:2"},
                                         {{5001, 20}, " axis_parts:6"},
                                         {{9000, 8}, " axis_parts:4"},
                                         {{20001, 2}, " axis_parts:2"}};
  for (const split_case& c : cases) {
    const memory_desc md = plain(c.dims, data_type::f32);
    const int axis = static_cast<int>(c.dims.size()) - 2;
    const dim_t lanes = c.dims.back();
    std::vector<double> values = iota_values(md.nelems(), 9);
    for (dim_t i = 0; i < md.nelems(); i += lanes) {
      values[i] = -INFINITY;                                  // lane 0: all -Inf
      if (i >= md.nelems() / 2) values[i + 1] = -INFINITY;   // lane 1: -Inf in the later parts
    }
    values[lanes + 2] = 40;  // lane 2's max, in the first part
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        if (filter == "ref") continue;
        auto fwd = softmax_forward::create(alg, md, md, axis, {}, {filter});
        ASSERT_TRUE(fwd.ok()) << fwd.status();
        std::string what = fwd->impl_name() + " " + std::string(name_of(alg));
        for (dim_t d : c.dims) what += " " + std::to_string(d);
        auto a = buffer(md);
        testing::write_logical(md, a.data(), values);
        auto out = buffer(md);
        verbose_capture capture;
        {
          scoped_verbose on(true);
          ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, out.data()}}}).ok());
        }
        ASSERT_EQ(capture.lines_of("exec").size(), 1u);
        const std::string line = capture.lines_of("exec")[0];
        if (*c.parts) EXPECT_THAT(line, HasSubstr(std::string(c.parts) + ",")) << what;  // aux field
        else EXPECT_THAT(line, ::testing::Not(HasSubstr("axis_parts"))) << what;
        ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, a.data()}}}).ok());
        EXPECT_EQ(a, out) << what;

        // The backward splits the same groups into the same parts, on the forward's output.
        if (alg == softmax_alg::softmax_inf_as_zero) continue;
        auto bwd = softmax_backward::create(alg, md, md, md, axis, {}, {filter});
        ASSERT_TRUE(bwd.ok()) << bwd.status();
        auto dd = buffer(md);
        testing::write_logical(md, dd.data(), iota_values(md.nelems(), 3));
        auto dx = buffer(md);
        verbose_capture bwd_capture;
        {
          scoped_verbose on(true);
          ASSERT_TRUE(bwd->execute({{arg::dst, {md, out.data()}},
                                    {arg::diff_dst, {md, dd.data()}},
                                    {arg::diff_src, {md, dx.data()}}})
                          .ok());
        }
        ASSERT_EQ(bwd_capture.lines_of("exec").size(), 1u);
        const std::string bwd_line = bwd_capture.lines_of("exec")[0];
        if (*c.parts) EXPECT_THAT(bwd_line, HasSubstr(std::string(c.parts) + ",")) << what;
        else EXPECT_THAT(bwd_line, ::testing::Not(HasSubstr("axis_parts"))) << what;
        expect_backward_in_place_equals_out_of_place(*bwd, md, out, 3, what + " backward");
      }
    }
  }
}

// Short dense rows go in pairs, whose exp is chosen for both rows at once (on avx2 the pair takes
// exp_minus_nearby_f32 only when both rows' ranges allow it, else both rows go one at a time):
// every row, whatever its neighbour, gets the bits it gets as a problem of its own. Rows whose
// range allows that exp alternate with rows spanning more than 86 and rows beyond +-100, at
// lengths around the vector widths, and an odd row count leaves a last row alone. Rows 8 and 9
// decline on avx2 after a pair that did not, and the pair after them takes the pairs up again.
TEST(Softmax, ShortRowsGetTheBitsTheyGetAlone) {
  const std::vector<std::vector<double>> kinds = {
      {-3, 4}, {-150, 10}, {-2, 1},   {-5, 5}, {150, 160}, {-1, 0.5}, {-4, 4},
      {-1, 2}, {-3, 1},    {-120, 3}, {-2, 2}, {-6, 0},    {-1, 1}};
  const dim_t rows = static_cast<dim_t>(kinds.size());
  for (dim_t len : {1, 5, 8, 16, 37, 128, 200}) {
    const memory_desc md = plain({rows, len}, data_type::f32);
    const memory_desc row_md = plain({1, len}, data_type::f32);
    std::vector<float> values(static_cast<size_t>(rows * len));
    for (dim_t r = 0; r < rows; ++r) {
      const double lo = kinds[r][0], hi = kinds[r][1];
      for (dim_t i = 0; i < len; ++i) {
        const double t = 0.5 + 0.5 * std::sin(0.7 * static_cast<double>(i * rows + r));
        values[r * len + i] = static_cast<float>(len == 1 ? hi : lo + (hi - lo) * t);
      }
      if (len > 2) values[r * len + 1] = static_cast<float>(lo), values[r * len] = static_cast<float>(hi);
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
        auto one = softmax_forward::create(alg, row_md, row_md, 1, {}, {filter});
        if (!fwd.ok() || !one.ok()) continue;
        std::vector<float> dst(values.size());
        ASSERT_TRUE(fwd->execute({{arg::src, {md, values.data()}}, {arg::dst, {md, dst.data()}}})
                        .ok());
        for (dim_t r = 0; r < rows; ++r) {
          std::vector<float> alone(static_cast<size_t>(len));
          ASSERT_TRUE(one->execute({{arg::src, {row_md, values.data() + r * len}},
                                    {arg::dst, {row_md, alone.data()}}})
                          .ok());
          for (dim_t i = 0; i < len; ++i) {
            ASSERT_EQ(std::bit_cast<uint32_t>(dst[r * len + i]), std::bit_cast<uint32_t>(alone[i]))
                << fwd->impl_name() << " len " << len << " row " << r << " element " << i << ": "
                << dst[r * len + i] << " against " << alone[i] << " alone";
          }
        }
      }
    }
  }
}

// nChw16c / nChw8c along C: the vector kernels take four neighbouring rows at once (runs of one,
// two or four vectors, by ISA); rows that are all -Inf among them (NaN for softmax, 0 for
// softmax_inf_as_zero), a partial last block, and a row count that is not a multiple of four.
// With -Inf entries in two rows (each group of four then takes exp_diff), and without (on avx2
// every group takes exp_minus_nearby_f32).
TEST(Softmax, BlockedAxisFourRowsAtOnce) {
  for (bool with_minus_inf : {true, false}) for (dim_t block : {16, 8}) {
    const std::vector<dim_t> dims = {1, 37, 3, 3};  // 9 rows
    const memory_desc md = blocked(dims, data_type::f32, 1, block);
    std::vector<double> values(md.nelems());
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37 * i) * 20;
    for (dim_t c = 0; c < 37 && with_minus_inf; ++c) {
      values[c * 9 + 1] = -INFINITY;  // row (h 0, w 1)
      values[c * 9 + 6] = -INFINITY;  // row (h 2, w 0)
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::softmax_inf_as_zero}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
        if (!fwd.ok()) continue;
        auto src = buffer(md), dst = buffer(md);
        testing::write_logical(md, src.data(), values);
        ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
        const auto want = testing::softmax_forward_reference(alg, md, src.data(), 1);
        const auto got = testing::read_logical(md, dst.data());
        for (size_t i = 0; i < want.size(); ++i) {
          if (std::isnan(want[i])) {
            ASSERT_TRUE(std::isnan(got[i])) << fwd->impl_name() << " element " << i;
          } else {
            ASSERT_NEAR(got[i], want[i], 4 * 0x1p-23 * std::fabs(want[i]))
                << fwd->impl_name() << " block " << block << " element " << i;
          }
        }
      }
    }
  }
}

// nChw16c / nChw8c along C over more shapes than BlockedAxisFourRowsAtOnce: block counts that
// leave 0-3 blocks after a multiple of four; last blocks with a partial vector, a whole vector
// or none; images of 9 to 81 pixels, and of 4000 channels; images split between two threads
// (3 x 25 pixels, C >= 1400, so that a thread starts inside an image); a row whose range
// declines the nearby exp (its group of four then takes exp_diff); rows that are all -Inf;
// in place. Every result within 4 eps of the reference; the padding of dst zero.
TEST(Softmax, BlockedAxisAcrossShapesThreadsAndSpecials) {
  struct shape {
    std::vector<dim_t> dims;
    dim_t block;
  };
  const std::vector<shape> shapes = {
      {{2, 37, 3, 3}, 16},   {{1, 70, 9, 9}, 16},  {{3, 136, 5, 5}, 16}, {{1, 4000, 7, 7}, 16},
      {{2, 100, 4, 4}, 16},  {{1, 120, 3, 4}, 16}, {{2, 37, 3, 3}, 8},   {{3, 70, 5, 5}, 8},
      {{1, 200, 9, 9}, 8},
      // Rows long enough for two threads (softmax.cc: chunks of >= 32768 / C rows): 75 rows
      // split within the second image.
      {{3, 1400, 5, 5}, 16}, {{3, 2000, 5, 5}, 8},
  };
  enum class special { none, wide_range, minus_inf };
  for (const shape& sh : shapes) {
    const memory_desc md = blocked(sh.dims, data_type::f32, 1, sh.block);
    const dim_t channels = sh.dims[1], pixels = sh.dims[2] * sh.dims[3];
    for (special sp : {special::none, special::wide_range, special::minus_inf}) {
      std::vector<double> values(md.nelems());
      for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37 * i) * 20;
      // Logical nchw order: element (n, c, p) at (n * channels + c) * pixels + p.
      for (dim_t c = 0; c < channels; ++c) {
        const size_t at = static_cast<size_t>(c * pixels + pixels / 2);
        if (sp == special::wide_range) values[at] = c % 2 == 0 ? -150.0 : 10.0;
        if (sp == special::minus_inf) values[at] = -INFINITY;
      }
      auto src = buffer(md);
      testing::write_logical(md, src.data(), values);
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::softmax_inf_as_zero}) {
        const auto want = testing::softmax_forward_reference(alg, md, src.data(), 1);
        for (const std::string& filter : softmax_test::kernel_filters()) {
          auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
          if (!fwd.ok()) continue;
          for (int threads : {1, 2}) {
            for (bool in_place : {false, true}) {
              scoped_num_threads t(threads);
              auto dst = in_place ? src : buffer(md, 0xFF);
              auto in = src;
              void* out = in_place ? in.data() : dst.data();
              ASSERT_TRUE(fwd->execute({{arg::src, {md, in.data()}}, {arg::dst, {md, out}}}).ok());
              const uint8_t* result = static_cast<const uint8_t*>(out);
              const auto got = testing::read_logical(md, result);
              const std::string what = fwd->impl_name() + " dims " + std::to_string(sh.dims[0]) +
                                       "x" + std::to_string(channels) + "x" +
                                       std::to_string(pixels) + " block " +
                                       std::to_string(sh.block) + " special " +
                                       std::to_string(static_cast<int>(sp)) + " threads " +
                                       std::to_string(threads) + (in_place ? " in place" : "");
              for (size_t i = 0; i < want.size(); ++i) {
                if (std::isnan(want[i])) {
                  ASSERT_TRUE(std::isnan(got[i])) << what << " element " << i;
                } else {
                  // + 2^-148 for denormal results, as in softmax_accuracy_test.
                  ASSERT_NEAR(got[i], want[i], 4 * 0x1p-23 * std::fabs(want[i]) + 0x1p-148)
                      << what << " element " << i;
                }
              }
              const dim_t padded = md.padded_dims()[1];
              for (dim_t n = 0; n < sh.dims[0]; ++n) {
                for (dim_t c = channels; c < padded; ++c) {
                  for (dim_t p = 0; p < pixels; ++p) {
                    const dim_t at = ((n * padded + c / sh.block * sh.block) * pixels +
                                      p * sh.block + c % sh.block);
                    float v;
                    std::memcpy(&v, result + at * 4, 4);
                    ASSERT_EQ(v, 0.f) << what << " padding " << n << "," << c << "," << p;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// nC16c along C: the blocks of a row follow each other, so the row is one contiguous run for the
// dense kernels; the padding lanes after it stay zero.
TEST(Softmax, BlockedAxisWithAdjacentBlocks) {
  const memory_desc md = blocked({3, 37}, data_type::f32, 1, 16);
  std::vector<double> values(md.nelems());
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::cos(0.61 * i) * 30;
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
    for (const std::string& filter : softmax_test::kernel_filters()) {
      auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
      if (!fwd.ok()) continue;
      auto src = buffer(md), dst = buffer(md, 0xFF);
      testing::write_logical(md, src.data(), values);
      ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
      const auto want = testing::softmax_forward_reference(alg, md, src.data(), 1);
      const auto got = testing::read_logical(md, dst.data());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 4 * 0x1p-23 * std::fabs(want[i])) << fwd->impl_name() << " " << i;
      }
      for (dim_t n = 0; n < 3; ++n) {
        for (dim_t c = 37; c < 48; ++c) {
          float v;
          std::memcpy(&v, dst.data() + (n * 48 + c) * 4, 4);
          ASSERT_EQ(v, 0.f) << fwd->impl_name() << " padding " << n << "," << c;
        }
      }
    }
  }
}

// Blocked destinations: padding is written as zero whatever the buffer held.
TEST(Softmax, PaddingOfDestinationIsZero) {
  const std::vector<dim_t> dims = {2, 17, 3, 3};
  const memory_desc md = blocked(dims, data_type::f32, 1, 16);
  ASSERT_EQ(md.padded_dims()[1], 32);
  for (int axis : {1, 3}) {
    for (const std::string& filter : softmax_test::kernel_filters()) {
      auto fwd = softmax_forward::create(softmax_alg::logsoftmax, md, md, axis, {}, {filter});
      if (!fwd.ok()) continue;
      auto src = buffer(md);
      testing::write_logical(md, src.data(), iota_values(md.nelems(), 3));
      auto dst = buffer(md, 0xFF);  // NaN patterns everywhere
      ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
      std::array<dim_t, 4> idx{};
      for (idx[0] = 0; idx[0] < 2; ++idx[0])
        for (idx[1] = 17; idx[1] < 32; ++idx[1])
          for (idx[2] = 0; idx[2] < 3; ++idx[2])
            for (idx[3] = 0; idx[3] < 3; ++idx[3]) {
              float v;
              std::memcpy(&v, dst.data() + md.offset(idx) * 4, 4);
              ASSERT_EQ(v, 0.f) << fwd->impl_name() << " axis " << axis;
            }
      const auto want = testing::softmax_forward_reference(softmax_alg::logsoftmax, md, src.data(), axis);
      const auto got = testing::read_logical(md, dst.data());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i]) + 1e-6) << fwd->impl_name();
      }
    }
  }
}

// dst = round(softmax(src) * src_scale / dst_scale), and the 2.x output scale form.
// Executes `fwd` from `in` into `out` with common src and dst scales given as arguments.
absl::Status execute_with_scales(const softmax_forward& fwd, const memory_desc& src,
                                 const void* in, const memory_desc& dst, void* out,
                                 float src_scale, float dst_scale) {
  const memory_desc one = *memory_desc::with_strides({1}, data_type::f32, {1});
  return fwd.execute({{arg::src, {src, const_cast<void*>(in)}},
                      {arg::dst, {dst, out}},
                      {arg::src_scales, {one, &src_scale}},
                      {arg::dst_scales, {one, &dst_scale}}});
}

// Two padded dims (dims 1 and 2 blocked by 8 and 4, like a weights format): every padding element
// is zero, whichever dim is padded first, and the real elements are the softmax.
TEST(Softmax, PaddingOfDestinationIsZeroWithTwoBlockedDims) {
  const std::vector<dim_t> dims = {3, 17, 18};
  blocking_desc b;
  b.inner_nblks = 2;
  b.inner_blks[0] = 8;
  b.inner_idxs[0] = 1;
  b.inner_blks[1] = 4;
  b.inner_idxs[1] = 2;
  b.strides[2] = 32;
  b.strides[1] = 32 * 5;
  b.strides[0] = 32 * 5 * 3;
  const memory_desc md = *memory_desc::with_blocking(dims, data_type::f32, b);
  ASSERT_EQ(md.padded_dims()[1], 24);
  ASSERT_EQ(md.padded_dims()[2], 20);
  for (int axis : {0, 1, 2}) {
    for (const std::string& filter : softmax_test::kernel_filters()) {
      auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, axis, {}, {filter});
      if (!fwd.ok()) continue;
      auto src = buffer(md);
      testing::write_logical(md, src.data(), iota_values(md.nelems(), 3));
      auto dst = buffer(md, 0xFF);
      ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
      std::array<dim_t, 3> idx{};
      int padding_seen = 0;
      for (idx[0] = 0; idx[0] < 3; ++idx[0])
        for (idx[1] = 0; idx[1] < 24; ++idx[1])
          for (idx[2] = 0; idx[2] < 20; ++idx[2]) {
            if (idx[1] < 17 && idx[2] < 18) continue;
            ++padding_seen;
            float v;
            std::memcpy(&v, dst.data() + md.offset(idx) * 4, 4);
            ASSERT_EQ(v, 0.f) << fwd->impl_name() << " axis " << axis << " at " << idx[0] << ","
                              << idx[1] << "," << idx[2];
          }
      ASSERT_EQ(padding_seen, 3 * (24 * 20 - 17 * 18));
      const auto want = testing::softmax_forward_reference(softmax_alg::softmax, md, src.data(), axis);
      const auto got = testing::read_logical(md, dst.data());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 4 * 0x1p-23 * std::fabs(want[i])) << fwd->impl_name();
      }
    }
  }
}

TEST(Softmax, Int8Scales) {
  const memory_desc src = plain({4, 30}, data_type::s8);
  const memory_desc dst = plain({4, 30}, data_type::u8);
  auto in = buffer(src);
  std::vector<double> v(src.nelems());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>(i * 7 % 23) - 11);
  testing::write_logical(src, in.data(), v);
  primitive_attr attr;
  attr.src_scales = quant_param{0};
  attr.dst_scales = quant_param{0};
  auto fwd = softmax_forward::create(softmax_alg::softmax, src, dst, 1, attr);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  const float src_scale = 2.f, dst_scale = 1.f / 64;
  auto out = buffer(dst);
  ASSERT_TRUE(
      execute_with_scales(*fwd, src, in.data(), dst, out.data(), src_scale, dst_scale).ok());
  const auto want = testing::softmax_forward_reference(softmax_alg::softmax, src, in.data(), 1,
                                                       src_scale / dst_scale);
  const auto got = testing::read_logical(dst, out.data());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - std::clamp(want[i], 0.0, 255.0)), 1.0) << i;
  }

  primitive_attr oscale;
  oscale.oscale = output_scales{0, {128.f}};
  auto fwd2 = softmax_forward::create(softmax_alg::softmax, src, dst, 1, oscale);
  ASSERT_TRUE(fwd2.ok());
  auto out2 = buffer(dst);
  ASSERT_TRUE(fwd2->execute({{arg::src, {src, in.data()}}, {arg::dst, {dst, out2.data()}}}).ok());
  EXPECT_EQ(out, out2);  // 2 / (1/64) = 128
}

// f64 arithmetic whenever f64 is involved, scales included: src_scale / dst_scale = 3/7 is not a
// float, and rounding it to one would leave a 3e-8 relative error in f64 outputs.
TEST(Softmax, F64OutputsWithScalesKeepF64Accuracy) {
  for (data_type src_dt : {data_type::f64, data_type::f32}) {
    const memory_desc src = plain({4, 6}, src_dt);
    const memory_desc dst = plain({4, 6}, data_type::f64);
    auto in = buffer(src);
    testing::write_logical(src, in.data(), iota_values(src.nelems(), 5.0));
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      primitive_attr attr;
      attr.src_scales = quant_param{0};
      attr.dst_scales = quant_param{0};
      auto fwd = softmax_forward::create(alg, src, dst, 1, attr);
      ASSERT_TRUE(fwd.ok()) << fwd.status();
      auto out = buffer(dst);
      ASSERT_TRUE(execute_with_scales(*fwd, src, in.data(), dst, out.data(), 3.f, 7.f).ok());
      const auto want = testing::softmax_forward_reference(alg, src, in.data(), 1, 3.0 / 7.0);
      const auto got = testing::read_logical(dst, out.data());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_LE(std::fabs(got[i] - want[i]), 1e-12 * std::fabs(want[i]))
            << name_of(src_dt) << " " << name_of(alg) << " element " << i;
      }
    }
  }
}

TEST(Softmax, VerboseLine) {
  verbose_capture capture;
  scoped_verbose on(true);
  const memory_desc md = plain({2, 10}, data_type::f32);
  auto fwd = softmax_forward::create(softmax_alg::logsoftmax, md, md, 1);
  ASSERT_TRUE(fwd.ok());
  auto a = buffer(md), b = buffer(md);
  ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, b.data()}}}).ok());
  ASSERT_EQ(capture.lines_of("exec").size(), 1u);
  EXPECT_EQ(capture.lines().size(), 6u);  // the header's 5 lines and the execution's
  const std::string line = capture.lines_of("exec")[0];
  const size_t last = line.rfind(',');
  EXPECT_EQ(line.substr(0, last),
            "onednn_verbose,v1,primitive,exec,cpu,softmax," + fwd->impl_name() +
                ",forward_training,src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0,,"
                "alg:softmax_log axis:1,2x10");
  double ms = 0;
  EXPECT_TRUE(absl::SimpleAtod(line.substr(last + 1), &ms)) << line;
  EXPECT_GT(ms, 0.0);
}

// ---- bad input -------------------------------------------------------------------------------

TEST(SoftmaxBadInput, CreateErrorsNameTheValue) {
  const memory_desc f32 = plain({4, 5}, data_type::f32);
  auto st = softmax_forward::create(softmax_alg::softmax, f32, f32, 2).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("axis 2"));
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, f32, f32, -1).status().message(),
              HasSubstr("axis -1"));

  const memory_desc s32 = plain({4, 5}, data_type::s32);
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, s32, f32, 1).status().message(),
              HasSubstr("s32"));
  const memory_desc f8 = plain({4, 5}, data_type::f8_e5m2);
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, f32, f8, 1).status().message(),
              HasSubstr("f8_e5m2"));

  const memory_desc s8 = plain({4, 5}, data_type::s8);
  auto bwd = softmax_backward::create(softmax_alg::softmax, f32, f32, s8, 1);
  EXPECT_EQ(bwd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bwd.status().message(), HasSubstr("int8"));

  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, *memory_desc::any({4, 5}, data_type::f32),
                                      f32, 1)
                  .status()
                  .message(),
              HasSubstr("any"));
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, f32, plain({4, 6}, data_type::f32), 1)
                  .status()
                  .message(),
              HasSubstr("4x6"));
  EXPECT_THAT(softmax_forward::create(static_cast<softmax_alg>(7), f32, f32, 1).status().message(),
              HasSubstr("7"));

  primitive_attr zp;
  zp.src_zero_points = quant_param{0};
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, f32, f32, 1, zp).status().message(),
              HasSubstr("zero points"));
  primitive_attr mask;
  mask.dst_scales = quant_param{2};
  EXPECT_THAT(softmax_forward::create(softmax_alg::softmax, f32, f32, 1, mask).status().message(),
              HasSubstr("mask 2"));
  primitive_attr scales;
  scales.src_scales = quant_param{0};
  EXPECT_FALSE(softmax_backward::create(softmax_alg::softmax, f32, f32, f32, 1, scales).ok());

  // f64 to f32: a pair only the reference kernel takes.
  auto none = softmax_forward::create(softmax_alg::softmax, plain({4, 5}, data_type::f64), f32, 1,
                                      {}, {"xsimd"});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("xsimd"));
}

// Every execute error leaves every buffer as it was.
TEST(SoftmaxBadInput, ExecuteErrorsWriteNothing) {
  const memory_desc f32 = plain({4, 5}, data_type::f32);
  const memory_desc bf = plain({4, 5}, data_type::bf16);
  auto src = buffer(f32, 0x11);
  auto dst = buffer(f32, 0x22);
  const auto src0 = src, dst0 = dst;
  auto fwd = softmax_forward::create(softmax_alg::softmax, f32, f32, 1);
  ASSERT_TRUE(fwd.ok());
  auto expect_error = [&](const exec_args& args, const std::string& what) {
    const absl::Status st = fwd->execute(args);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << what;
    EXPECT_THAT(std::string(st.message()), HasSubstr(what));
    EXPECT_EQ(src, src0);
    EXPECT_EQ(dst, dst0);
  };
  expect_error({{arg::src, {f32, src.data()}}}, "dst is missing");
  expect_error({{arg::src, {f32, nullptr}}, {arg::dst, {f32, dst.data()}}}, "null");
  expect_error({{arg::src, {f32, src.data()}}, {arg::dst, {plain({4, 5}, data_type::f32, {1, 0}), dst.data()}}},
               "other than the one");
  expect_error({{arg::src, {f32, src.data()}}, {arg::dst, {f32, src.data() + 4}}}, "partially overlaps");

  // In-place with different types.
  auto mixed = softmax_forward::create(softmax_alg::softmax, f32, bf, 1);
  ASSERT_TRUE(mixed.ok());
  const absl::Status st = mixed->execute({{arg::src, {f32, src.data()}}, {arg::dst, {bf, src.data()}}});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("in-place"));
  EXPECT_EQ(src, src0);

  // Scales asked for but missing, or zero.
  primitive_attr attr;
  attr.dst_scales = quant_param{0};
  const memory_desc u8 = plain({4, 5}, data_type::u8);
  auto q = softmax_forward::create(softmax_alg::softmax, f32, u8, 1, attr);
  ASSERT_TRUE(q.ok());
  auto out = buffer(u8, 0x33);
  const auto out0 = out;
  EXPECT_THAT(std::string(q->execute({{arg::src, {f32, src.data()}}, {arg::dst, {u8, out.data()}}})
                              .message()),
              HasSubstr("dst_scales"));
  float zero = 0.f;
  const memory_desc one = *memory_desc::with_strides({1}, data_type::f32, {1});
  EXPECT_THAT(std::string(q->execute({{arg::src, {f32, src.data()}},
                                      {arg::dst, {u8, out.data()}},
                                      {arg::dst_scales, {one, &zero}}})
                              .message()),
              HasSubstr("value 0"));
  EXPECT_EQ(out, out0);

  // Backward: diff_src overlapping dst.
  auto bwd = softmax_backward::create(softmax_alg::softmax, f32, f32, f32, 1);
  ASSERT_TRUE(bwd.ok());
  auto dd = buffer(f32, 0x44);
  const auto dd0 = dd;
  EXPECT_FALSE(bwd->execute({{arg::dst, {f32, dst.data()}},
                             {arg::diff_dst, {f32, dd.data()}},
                             {arg::diff_src, {f32, dst.data()}}})
                   .ok());
  EXPECT_FALSE(bwd->execute({{arg::dst, {f32, dst.data()}}, {arg::diff_src, {f32, dd.data()}}}).ok());
  EXPECT_EQ(dst, dst0);
  EXPECT_EQ(dd, dd0);
}

// Arguments the primitive would not read are errors, as for the reorder: scales its attributes
// do not ask for, zero points, and the other direction's tensors. Nothing is written.
TEST(SoftmaxBadInput, ArgumentsThePrimitiveDoesNotReadAreRejected) {
  const memory_desc f32 = plain({4, 5}, data_type::f32);
  auto src = buffer(f32, 0x11);
  auto dst = buffer(f32, 0x22);
  auto extra = buffer(f32, 0x33);
  const auto dst0 = dst, extra0 = extra;
  float scale = 2.f;
  const memory_desc one = *memory_desc::with_strides({1}, data_type::f32, {1});
  auto fwd = softmax_forward::create(softmax_alg::softmax, f32, f32, 1);
  auto bwd = softmax_backward::create(softmax_alg::softmax, f32, f32, f32, 1);
  ASSERT_TRUE(fwd.ok() && bwd.ok());
  const std::pair<arg, std::string> forward_cases[] = {
      {arg::src_scales, "src_scales given, but the primitive was created without it"},
      {arg::dst_scales, "dst_scales given, but the primitive was created without it"},
      {arg::src_zero_points, "takes no src_zero_points"},
      {arg::diff_dst, "takes no diff_dst"},
      {arg::diff_src, "takes no diff_src"}};
  for (const auto& [which, message] : forward_cases) {
    SCOPED_TRACE(std::string(name_of(which)));
    exec_args args{{arg::src, {f32, src.data()}}, {arg::dst, {f32, dst.data()}}};
    if (which == arg::diff_dst || which == arg::diff_src) {
      args.set(which, memory{f32, extra.data()});
    } else {
      args.set(which, memory{one, &scale});
    }
    const absl::Status st = fwd->execute(args);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(st.message()), HasSubstr(message));
    EXPECT_EQ(dst, dst0);
  }
  for (arg which : {arg::src, arg::dst_scales}) {
    SCOPED_TRACE(std::string(name_of(which)));
    exec_args args{{arg::dst, {f32, dst.data()}},
                   {arg::diff_dst, {f32, src.data()}},
                   {arg::diff_src, {f32, extra.data()}}};
    if (which == arg::src) args.set(which, memory{f32, src.data()});
    else args.set(which, memory{one, &scale});
    const absl::Status st = bwd->execute(args);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(st.message()), HasSubstr("softmax backward"));
    EXPECT_EQ(extra, extra0);
  }
  // The same calls without the extra argument run.
  EXPECT_TRUE(fwd->execute({{arg::src, {f32, src.data()}}, {arg::dst, {f32, dst.data()}}}).ok());
  EXPECT_TRUE(bwd->execute({{arg::dst, {f32, dst.data()}},
                            {arg::diff_dst, {f32, src.data()}},
                            {arg::diff_src, {f32, extra.data()}}})
                  .ok());
}

TEST(Softmax, RankTwelveAndEmpty) {
  std::vector<dim_t> dims(12, 1);
  dims[3] = 3;
  dims[7] = 5;
  dims[11] = 2;
  const memory_desc md = plain(dims, data_type::f32);
  for (int axis : {3, 7, 11, 0}) {
    auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, axis);
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    auto a = buffer(md), b = buffer(md);
    testing::write_logical(md, a.data(), iota_values(md.nelems(), 2));
    ASSERT_TRUE(fwd->execute({{arg::src, {md, a.data()}}, {arg::dst, {md, b.data()}}}).ok());
    const auto want = testing::softmax_forward_reference(softmax_alg::softmax, md, a.data(), axis);
    const auto got = testing::read_logical(md, b.data());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6);
  }
  const memory_desc empty = plain({0, 5}, data_type::f32);
  auto fwd = softmax_forward::create(softmax_alg::softmax, empty, empty, 1);
  ASSERT_TRUE(fwd.ok());
  EXPECT_TRUE(fwd->execute({{arg::src, {empty, nullptr}}, {arg::dst, {empty, nullptr}}}).ok());
}

}  // namespace
}  // namespace tessera
