// The f64 forward (f64 src and dst) of the vector kernels, each ISA forced, against the f64
// reference: |y - r| <= 1e-12 |r| (docs/softmax.md, "Accuracy design"; the bound of the
// reference kernel's f64 results in softmax_accuracy_test), NaN and infinities exactly where the
// reference has them. The largest error seen is printed, in units of f64's eps (2^-52) |r|.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::plain;

constexpr double kBound = 1e-12;

std::vector<std::string> vector_filters() {
  std::vector<std::string> f;
  for (simd::isa i : simd::cpu_isas()) f.push_back("xsimd:" + std::string(simd::name_of(i)) + ":");
  return f;
}

// Runs alg on md with every vector kernel; returns the largest error in eps |r|.
double check_all_isas(softmax_alg alg, const memory_desc& md, int axis,
                      const std::vector<double>& values) {
  auto src_buf = buffer(md);
  testing::write_logical(md, src_buf.data(), values);
  const std::vector<double> exact = testing::softmax_forward_reference(alg, md, src_buf.data(), axis);
  double worst = 0;
  for (const std::string& filter : vector_filters()) {
    auto fwd = softmax_forward::create(alg, md, *memory_desc::any(md.dims(), data_type::f64), axis,
                                       {}, {filter});
    EXPECT_TRUE(fwd.ok()) << filter << ": " << fwd.status();
    if (!fwd.ok()) continue;
    auto dst_buf = buffer(fwd->dst_desc(), 0xA5);
    EXPECT_TRUE(fwd->execute({{arg::src, {md, src_buf.data()}},
                              {arg::dst, {fwd->dst_desc(), dst_buf.data()}}})
                    .ok());
    const auto got = testing::read_logical(fwd->dst_desc(), dst_buf.data());
    int failures = 0;
    std::string first;
    for (size_t i = 0; i < exact.size(); ++i) {
      const double r = exact[i], y = got[i];
      bool ok;
      if (std::isnan(r) || std::isnan(y) || std::isinf(r) || std::isinf(y)) {
        ok = (std::isnan(r) && std::isnan(y)) || r == y;
      } else {
        const double units = std::fabs(y - r) / (std::fabs(r) * 0x1p-52 + 1e-300);
        worst = std::max(worst, units);
        ok = std::fabs(y - r) <= kBound * std::fabs(r);
      }
      if (!ok && failures++ == 0) {
        first = "element " + std::to_string(i) + ": exact " + std::to_string(r) + " got " +
                std::to_string(y);
      }
    }
    EXPECT_EQ(failures, 0) << fwd->impl_name() << " " << name_of(alg) << " dims "
                           << ::testing::PrintToString(md.dims()) << " axis " << axis << ": "
                           << first;
  }
  return worst;
}

// Dense rows (plain, blocked as nChw16c and nChw8c), strided (nchw along C, a partial lane
// vector, few lanes along dim 0).
std::vector<std::pair<memory_desc, int>> layouts() {
  const data_type f64 = data_type::f64;
  return {
      {plain({7, 13}, f64), 1},          {plain({5, 1000}, f64), 1},
      {plain({2, 20000}, f64), 1},       {blocked({2, 50, 3, 3}, f64, 1, 16), 1},
      {blocked({2, 21, 2, 2}, f64, 1, 8), 1}, {plain({2, 50, 7, 7}, f64), 1},
      {plain({3, 40, 3}, f64), 1},       {plain({300, 8}, f64), 0},
      {plain({1000, 2}, f64), 0},
  };
}

TEST(SoftmaxF64, EveryKernelWithinTheBound) {
  std::mt19937 rng(64);
  std::uniform_real_distribution<double> u(-40, 40);
  double worst = 0;
  for (const auto& [md, axis] : layouts()) {
    std::vector<double> values(static_cast<size_t>(md.nelems()));
    for (auto& v : values) v = u(rng);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      worst = std::max(worst, check_all_isas(alg, md, axis, values));
    }
  }
  std::printf("f64 vector kernels: largest error %.2f eps |r|\n", worst);
}

// Rows of 24 (dense) and lanes of 5 (strided, along dim 0) holding a NaN, a +Inf, -Infs, all
// -Inf (NaN for softmax, 0 for softmax_inf_as_zero) and values far below the max (exps 0).
TEST(SoftmaxF64, SpecialValuesAsTheReference) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values(24 * 5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 7) - 3;
  values[3] = std::nan("");       // row 0 (dense) / lane 3 (strided)
  values[24 + 5] = inf;           // row 1 / lane 4
  values[48 + 1] = -inf;          // row 2 / lane 4
  values[48 + 2] = -2000;
  for (int i = 72; i < 96; ++i) values[i] = -inf;  // row 3 all -Inf
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                          softmax_alg::softmax_inf_as_zero}) {
    check_all_isas(alg, plain({5, 24}, data_type::f64), 1, values);
    check_all_isas(alg, plain({24, 5}, data_type::f64), 0, values);
  }
}

// Rows of 203 (1624 bytes: each row's last sweep finds the next row's max, tails on every ISA)
// with the special values of the test above, one kind per row, so that each kind's max comes
// from the row before.
TEST(SoftmaxF64, SpecialValuesFoundByThePreviousRow) {
  const double inf = std::numeric_limits<double>::infinity();
  constexpr int kLen = 203;
  std::vector<double> values(kLen * 7);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<double>(i)) * 9;
  values[kLen * 1 + 200] = std::nan("");
  values[kLen * 2 + 7] = inf;
  for (int i = 0; i < kLen; ++i) values[kLen * 3 + i] = -inf;
  values[kLen * 4 + 202] = -inf;
  values[kLen * 4 + 100] = -2000;
  values[kLen * 5 + 202] = 40;  // the max in the tail
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                          softmax_alg::softmax_inf_as_zero}) {
    check_all_isas(alg, plain({7, kLen}, data_type::f64), 1, values);
  }
}

// In place (dst = src buffer): each element is read before it is written.
TEST(SoftmaxF64, InPlaceGivesTheSameResults) {
  for (const auto& [md, axis] : layouts()) {
    std::vector<double> values(static_cast<size_t>(md.nelems()));
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<double>(i)) * 9;
    auto in = buffer(md);
    testing::write_logical(md, in.data(), values);
    for (const std::string& filter : vector_filters()) {
      auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, axis, {}, {filter});
      ASSERT_TRUE(fwd.ok()) << fwd.status();
      auto out = buffer(md);
      ASSERT_TRUE(fwd->execute({{arg::src, {md, in.data()}}, {arg::dst, {md, out.data()}}}).ok());
      auto same = in;
      ASSERT_TRUE(fwd->execute({{arg::src, {md, same.data()}}, {arg::dst, {md, same.data()}}}).ok());
      EXPECT_EQ(same, out) << fwd->impl_name();
    }
  }
}

}  // namespace
}  // namespace tessera
