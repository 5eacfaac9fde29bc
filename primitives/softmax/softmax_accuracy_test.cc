// Accuracy of every kernel (each ISA forced, and the reference kernel) against the float64
// reference, over random shapes, axes, layouts, types and algorithms, plus special inputs.
//
// Bounds (eps = 2^-23, the f32 machine epsilon; results y, exact r):
//   forward f32, softmax and logsoftmax:  |y - r| <= 4 eps |r|   (+ 2^-148 for denormal results)
//   forward bf16/f16 output:  |y - r| <= ulp(r)/2 + 4 eps |r|, i.e. the correctly rounded value
//                             except when r is within 4 eps of a rounding tie
//   forward f64:              |y - r| <= 1e-12 |r|
//   forward s8/u8 output:     |y - saturate(r)| <= 1
//   backward f32:  |y - r| <= 4 eps B, with B = |dst| (|diff_dst| + sum|diff_dst dst|) for softmax and
//                  |diff_dst| + exp(dst) sum|diff_dst| for logsoftmax (the size of the operands: the
//                  subtraction in the formula can cancel, so no relative bound exists)
//   backward bf16/f16 output: the f32 bound + ulp(r)/2.
// The largest error seen per kernel and type is printed (in units of the bound's eps).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::kernel_filters;
using softmax_test::plain;
using softmax_test::ulp_of;

constexpr double kEps = 1.0 / (1 << 23);
constexpr double kDenormFloor = 0x1p-148;

// Largest error / allowed-scale seen, per "kernel dt alg".
std::map<std::string, double>& worst() {
  static std::map<std::string, double> w;
  return w;
}

void note(const std::string& key, double v) {
  double& w = worst()[key];
  w = std::max(w, v);
}

class PrintWorst : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const auto& [k, v] : worst()) std::printf("max error %-50s %.3f\n", k.c_str(), v);
  }
};
const auto* const kPrinter = ::testing::AddGlobalTestEnvironment(new PrintWorst);

// Checks a forward result against the exact one; returns the number of failures.
int check_forward(const std::string& kernel, softmax_alg alg, data_type dt,
                  const std::vector<double>& exact, const std::vector<double>& got,
                  std::string& first) {
  int failures = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    const double r = exact[i], y = got[i];
    bool ok;
    double err_units = 0;  // error / (eps |r|)
    if (std::isnan(r) || std::isnan(y)) {
      ok = std::isnan(r) && std::isnan(y);
    } else if (std::isinf(r) || std::isinf(y)) {
      ok = r == y;
    } else if (dt == data_type::s8 || dt == data_type::u8) {
      const double sat = std::clamp(r, softmax_test::min_of(dt), softmax_test::max_of(dt));
      err_units = std::fabs(y - sat);
      ok = err_units <= 1;
    } else if (dt == data_type::f64) {
      err_units = std::fabs(y - r) / (std::fabs(r) * 1e-12 + 1e-300);
      ok = err_units <= 1;
    } else {
      const double rounding = dt == data_type::f32 ? 0 : ulp_of(dt, r) / 2;
      const double excess = std::max(0.0, std::fabs(y - r) - rounding);
      err_units = excess / (kEps * std::fabs(r) + kDenormFloor);
      ok = err_units <= 4;
    }
    note(kernel + " " + std::string(name_of(dt)) + " " + std::string(name_of(alg)), err_units);
    if (!ok && failures++ == 0) {
      first = "element " + std::to_string(i) + ": exact " + std::to_string(r) + " got " +
              std::to_string(y) + " (" + std::to_string(err_units) + " units)";
    }
  }
  return failures;
}

struct random_problem {
  std::vector<dim_t> dims;
  int axis;
  int layout;  // 0 plain, 1 permuted, 2 strided, 3 axis innermost, 4 blocked
};

random_problem draw(std::mt19937& rng) {
  random_problem p;
  const int rank = std::uniform_int_distribution<int>(1, 5)(rng);
  dim_t budget = 6000;
  for (int d = 0; d < rank; ++d) {
    const dim_t hi = std::max<dim_t>(1, std::min<dim_t>(budget, d == 0 ? 300 : 40));
    const dim_t n = std::uniform_int_distribution<dim_t>(1, hi)(rng);
    p.dims.push_back(n);
    budget = std::max<dim_t>(1, budget / n);
  }
  p.axis = std::uniform_int_distribution<int>(0, rank - 1)(rng);
  p.layout = std::uniform_int_distribution<int>(0, 4)(rng);
  return p;
}

memory_desc layout_of(const random_problem& p, data_type dt, std::mt19937& rng) {
  const int rank = static_cast<int>(p.dims.size());
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  switch (p.layout) {
    case 1: std::shuffle(order.begin(), order.end(), rng); return plain(p.dims, dt, order);
    case 2: return plain(p.dims, dt, {}, 3);
    case 3:
      order.erase(order.begin() + p.axis);
      order.push_back(p.axis);
      return plain(p.dims, dt, order);
    case 4: {
      const int bdim = (rng() % 2) ? p.axis : static_cast<int>(rng() % rank);
      return blocked(p.dims, dt, bdim, (rng() % 2) ? 16 : 8);
    }
    default: return plain(p.dims, dt);
  }
}

std::vector<double> random_values(size_t n, data_type dt, std::mt19937& rng) {
  std::vector<double> v(n);
  if (dt == data_type::s8 || dt == data_type::u8) {
    std::uniform_int_distribution<int> d(static_cast<int>(softmax_test::min_of(dt)),
                                         static_cast<int>(softmax_test::max_of(dt)));
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_real_distribution<double> d(-20, 20);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

// Floors on the vector kernels' runs of the tests below, for the ISAs a CPU of the architecture
// has: x86-64 has two or three (sse4_2 and up), aarch64 neon64 alone (30 forward runs and 18
// outside-range backward runs there, each ISA's share).
#if defined(__aarch64__)
constexpr int kMinForwardRuns = 29;
constexpr int kMinOutsideRangeRuns = 17;
#else
constexpr int kMinForwardRuns = 60;
constexpr int kMinOutsideRangeRuns = 18;
#endif

TEST(SoftmaxAccuracy, ForwardRandomProblemsEveryKernel) {
  std::mt19937 rng(1234);
  const data_type types[] = {data_type::f32, data_type::f32, data_type::bf16, data_type::f16,
                             data_type::f64, data_type::s8,  data_type::u8};
  const softmax_alg algs[] = {softmax_alg::softmax, softmax_alg::logsoftmax,
                              softmax_alg::softmax_inf_as_zero};
  int vector_runs = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const random_problem p = draw(rng);
    const data_type sdt = types[rng() % std::size(types)];
    data_type ddt = (rng() % 3) ? sdt : types[rng() % std::size(types)];
    if (sdt == data_type::s8 || sdt == data_type::u8) ddt = (rng() % 2) ? data_type::f32 : ddt;
    const softmax_alg alg = algs[rng() % 3];
    const memory_desc src = layout_of(p, sdt, rng);
    const bool dst_any = rng() % 2;
    const memory_desc dst_req = dst_any ? *memory_desc::any(p.dims, ddt) : layout_of(p, ddt, rng);

    auto src_buf = buffer(src);
    testing::write_logical(src, src_buf.data(), random_values(src.nelems(), sdt, rng));

    primitive_attr attr;
    float dst_scale = 1.f;
    if (ddt == data_type::s8 || ddt == data_type::u8) {
      attr.dst_scales = quant_param{0};
      dst_scale = alg == softmax_alg::logsoftmax ? 0.25f : 1.f / 128;
    }
    const std::vector<double> exact =
        testing::softmax_forward_reference(alg, src, src_buf.data(), p.axis, 1.0 / dst_scale);

    for (const std::string& filter : kernel_filters()) {
      auto fwd = softmax_forward::create(alg, src, dst_req, p.axis, attr, {filter});
      if (!fwd.ok()) {
        ASSERT_EQ(fwd.status().code(), absl::StatusCode::kNotFound) << fwd.status();
        continue;
      }
      if (filter != "ref") ++vector_runs;
      auto dst_buf = buffer(fwd->dst_desc(), 0xA5);
      exec_args args{{arg::src, {src, src_buf.data()}}, {arg::dst, {fwd->dst_desc(), dst_buf.data()}}};
      memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
      if (attr.dst_scales) args.set(arg::dst_scales, {scale_md, &dst_scale});
      ASSERT_TRUE(fwd->execute(args).ok());
      const auto got = testing::read_logical(fwd->dst_desc(), dst_buf.data());
      std::string first;
      const int failures = check_forward(fwd->impl_name(), alg, ddt, exact, got, first);
      EXPECT_EQ(failures, 0) << fwd->impl_name() << " " << name_of(alg) << " " << name_of(sdt)
                             << "->" << name_of(ddt) << " dims " << ::testing::PrintToString(p.dims)
                             << " axis " << p.axis << " layout " << p.layout << ": " << first;
    }
  }
  EXPECT_GT(vector_runs, kMinForwardRuns);  // the vector kernels were really exercised
}

// Backward of `alg` on md (type dt) with every kernel: dst is a real softmax output rounded to dt,
// diff_dst uniform in [-1, 1]. Bound: 4 eps times the operand size of each element (see the top of
// the file; f64: 1e-12). Counts the runs of vector kernels in vector_runs.
// dst_values: dst's logical values instead of a real softmax output (nullptr: the output);
// diff_dst_values likewise instead of uniform ones.
void check_backward(const random_problem& p, const memory_desc& md, data_type dt, softmax_alg alg,
                    std::mt19937& rng, int& vector_runs,
                    const std::vector<double>* dst_values = nullptr,
                    const std::vector<double>* diff_dst_values = nullptr) {
  // dst: a real softmax output (rounded to dt); diff_dst: uniform in [-1, 1].
  auto src_buf = buffer(md);
  testing::write_logical(md, src_buf.data(), random_values(md.nelems(), data_type::f32, rng));
  auto dst_buf = buffer(md);
  testing::write_logical(md, dst_buf.data(),
                         dst_values != nullptr
                             ? *dst_values
                             : testing::softmax_forward_reference(alg, md, src_buf.data(), p.axis));
  auto dd_buf = buffer(md);
  std::vector<double> dd(md.nelems());
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : dd) x = u(rng);
  if (diff_dst_values != nullptr) dd = *diff_dst_values;
  testing::write_logical(md, dd_buf.data(), dd);

  const auto y = testing::read_logical(md, dst_buf.data());
  const auto dy = testing::read_logical(md, dd_buf.data());
  const auto exact =
      testing::softmax_backward_reference(alg, md, dst_buf.data(), md, dd_buf.data(), p.axis);
  // Operand size per element.
  std::vector<double> size(exact.size());
  {
    dim_t inner = 1;
    for (size_t d = p.axis + 1; d < p.dims.size(); ++d) inner *= p.dims[d];
    const dim_t len = p.dims[p.axis];
    const dim_t outer = static_cast<dim_t>(exact.size()) / (len * inner);
    for (dim_t o = 0; o < outer; ++o) {
      for (dim_t i = 0; i < inner; ++i) {
        double s = 0;
        for (dim_t a = 0; a < len; ++a) {
          const dim_t k = (o * len + a) * inner + i;
          s += alg == softmax_alg::logsoftmax ? std::fabs(dy[k]) : std::fabs(dy[k] * y[k]);
        }
        for (dim_t a = 0; a < len; ++a) {
          const dim_t k = (o * len + a) * inner + i;
          size[k] = alg == softmax_alg::logsoftmax ? std::fabs(dy[k]) + std::exp(y[k]) * s
                                                   : std::fabs(y[k]) * (std::fabs(dy[k]) + s);
        }
      }
    }
  }
  for (const std::string& filter : kernel_filters()) {
    const memory_desc diff_src_req =
        (rng() % 2) ? *memory_desc::any(p.dims, dt) : md;
    auto bwd = softmax_backward::create(alg, diff_src_req, md, md, p.axis, {}, {filter});
    if (!bwd.ok()) {
      ASSERT_EQ(bwd.status().code(), absl::StatusCode::kNotFound) << bwd.status();
      continue;
    }
    if (filter != "ref") ++vector_runs;
    auto dx_buf = buffer(bwd->diff_src_desc(), 0x5A);
    ASSERT_TRUE(bwd->execute({{arg::dst, {md, dst_buf.data()}},
                              {arg::diff_dst, {md, dd_buf.data()}},
                              {arg::diff_src, {bwd->diff_src_desc(), dx_buf.data()}}})
                    .ok());
    const auto got = testing::read_logical(bwd->diff_src_desc(), dx_buf.data());
    int failures = 0;
    std::string first;
    for (size_t i = 0; i < exact.size(); ++i) {
      const double tol_eps = dt == data_type::f64 ? 1e-12 / kEps : 4;
      const double rounding =
          (dt == data_type::bf16 || dt == data_type::f16) ? ulp_of(dt, exact[i]) / 2 : 0;
      const double excess = std::max(0.0, std::fabs(got[i] - exact[i]) - rounding);
      const double units = excess / (kEps * size[i] + kDenormFloor);
      note(bwd->impl_name() + " " + std::string(name_of(dt)) + " bwd " +
               std::string(name_of(alg)),
           units);
      if (!(units <= tol_eps) && failures++ == 0) {
        first = "element " + std::to_string(i) + ": exact " + std::to_string(exact[i]) +
                " got " + std::to_string(got[i]) + " (" + std::to_string(units) + " units)";
      }
    }
    EXPECT_EQ(failures, 0) << bwd->impl_name() << " " << name_of(alg) << " " << name_of(dt)
                           << " dims " << ::testing::PrintToString(p.dims) << " axis " << p.axis
                           << " layout " << p.layout << ": " << first;
  }
}

TEST(SoftmaxAccuracy, BackwardRandomProblemsEveryKernel) {
  std::mt19937 rng(99);
  const data_type types[] = {data_type::f32, data_type::f32, data_type::bf16, data_type::f16,
                             data_type::f64};
  int vector_runs = 0;
  for (int iter = 0; iter < 80; ++iter) {
    const random_problem p = draw(rng);
    const data_type dt = types[rng() % std::size(types)];
    const softmax_alg alg = (rng() % 2) ? softmax_alg::softmax : softmax_alg::logsoftmax;
    const memory_desc md = layout_of(p, dt, rng);
    check_backward(p, md, dt, alg, rng, vector_runs);
  }
  EXPECT_GT(vector_runs, 20);
}

// Backward logsoftmax with dst values no logsoftmax gives (positive, below -80, near the edges of
// that range): the vector kernels compute such lanes in f64, where their f32 exp (for dst in
// [-80, 0] only) would be wrong. Rows of 37 to 300 elements, so that vectors mix both paths,
// along a dense axis (5 rows) and a strided one (5 and 37 lanes: a masked vector, whole vectors
// and an overlapping one). Then dst in [88, 120] with sum(diff_dst) = 2^-100 (diff_dst 1, -1,
// 2^-100, zeros along each row): exp(dst) overflows f32 but exp(dst) * sum does not.
TEST(SoftmaxAccuracy, BackwardLogsoftmaxDstOutsideALogsoftmaxRange) {
  std::mt19937 rng(123);
  std::uniform_real_distribution<double> wide(-200, 80), edge(-0.5, 0.5), huge(88, 120);
  int vector_runs = 0;
  for (dim_t len : {37, 64, 300}) {
    for (dim_t lanes : {0, 5, 37}) {  // 0: the dense axis
      const random_problem p =
          lanes == 0 ? random_problem{{5, len}, 1, 0} : random_problem{{len, lanes}, 0, 0};
      const dim_t rows = lanes == 0 ? 5 : lanes;
      auto index = [&](dim_t row, dim_t a) { return lanes == 0 ? row * len + a : a * lanes + row; };
      const memory_desc md = plain(p.dims, data_type::f32);
      std::vector<double> y(static_cast<size_t>(md.nelems()));
      for (size_t i = 0; i < y.size(); ++i) {
        y[i] = i % 3 == 0 ? wide(rng) : (i % 3 == 1 ? -80 + edge(rng) : edge(rng) - 1);
      }
      check_backward(p, md, data_type::f32, softmax_alg::logsoftmax, rng, vector_runs, &y);
      for (auto& v : y) v = huge(rng);
      std::vector<double> dy(y.size(), 0.0);
      for (dim_t row = 0; row < rows; ++row) {
        dy[index(row, 0)] = 1, dy[index(row, 1)] = -1, dy[index(row, 2)] = 0x1p-100;
      }
      check_backward(p, md, data_type::f32, softmax_alg::logsoftmax, rng, vector_runs, &y, &dy);
    }
  }
  EXPECT_GT(vector_runs, kMinOutsideRangeRuns);
}

// The strided backward at lane counts around the vector widths (4, 8, 16): whole vectors, a
// masked vector (fewer lanes than one vector), a last vector overlapping the one before it,
// sweeps of one to eight vectors; an axis length that is not a multiple of the four steps summed
// at once. 2, 4 and 8 lanes divide a vector (backward_interleaved where they are fewer than its
// lanes), with 37 steps leaving a partial last vector.
TEST(SoftmaxAccuracy, BackwardStridedLaneCountsAroundTheVectorWidth) {
  std::mt19937 rng(5);
  int vector_runs = 0;
  for (dim_t lanes : std::vector<dim_t>{1, 2, 3, 4, 5, 8, 9, 16, 17, 20, 40, 49, 64, 70, 141}) {
    const random_problem p{{2, 37, lanes}, 1, 0};
    for (data_type dt : {data_type::f32, data_type::bf16}) {
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
        check_backward(p, plain(p.dims, dt), dt, alg, rng, vector_runs);
      }
    }
  }
  EXPECT_GT(vector_runs, 40);
}

// A single strided group split along its axis (kernel_args.h: axis_split), backward: the lane
// counts of StridedSingleGroupSplitAlongTheAxis (interleaved on avx512bw and avx2, a masked
// vector, an overlapping last vector), against the same bound as an unsplit group.
TEST(SoftmaxAccuracy, BackwardStridedSingleGroupSplitAlongTheAxis) {
  std::mt19937 rng(19);
  int vector_runs = 0;
  for (std::vector<dim_t> dims : {std::vector<dim_t>{9000, 8}, {16000, 4}, {20001, 2}, {12000, 3},
                                  {2000, 17}, {1000, 37}}) {
    const random_problem p{dims, 0, 0};
    for (data_type dt : {data_type::f32, data_type::bf16}) {
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
        check_backward(p, plain(p.dims, dt), dt, alg, rng, vector_runs);
      }
    }
  }
  EXPECT_GT(vector_runs, 20);
}

// Runs the forward on `values` (f32, one problem) with every kernel and checks the f32 bound.
void check_special(std::vector<dim_t> dims, int axis, const memory_desc& src,
                   const std::vector<double>& values, softmax_alg alg) {
  auto src_buf = buffer(src);
  testing::write_logical(src, src_buf.data(), values);
  const auto exact = testing::softmax_forward_reference(alg, src, src_buf.data(), axis);
  for (const std::string& filter : kernel_filters()) {
    auto fwd = softmax_forward::create(alg, src, *memory_desc::any(dims, data_type::f32), axis, {},
                                       {filter});
    if (!fwd.ok()) continue;
    auto dst_buf = buffer(fwd->dst_desc());
    ASSERT_TRUE(fwd->execute({{arg::src, {src, src_buf.data()}},
                              {arg::dst, {fwd->dst_desc(), dst_buf.data()}}})
                    .ok());
    std::string first;
    EXPECT_EQ(check_forward(fwd->impl_name(), alg, data_type::f32, exact,
                            testing::read_logical(fwd->dst_desc(), dst_buf.data()), first),
              0)
        << fwd->impl_name() << " " << name_of(alg) << ": " << first;
  }
}

TEST(SoftmaxAccuracy, ValuesNearPlusMinus88) {
  std::mt19937 rng(7);
  for (double lo : {80.0, -88.7}) {
    std::uniform_real_distribution<double> d(lo, lo + 8.7);
    std::vector<double> v(37 * 100);
    for (auto& x : v) x = d(rng);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      check_special({37, 100}, 1, plain({37, 100}, data_type::f32), v, alg);  // dense
      check_special({37, 100}, 0, plain({37, 100}, data_type::f32), v, alg);  // strided
    }
  }
}

// Neighbouring rows whose maxima are 600 apart: the dense kernel finds each row's max during the
// previous row's last sweep (rows up to 16 KB), and a max taken from the wrong row would overflow
// or underflow every exp of the row. Lengths around the vector widths and the 16 KB limit.
TEST(SoftmaxAccuracy, NeighbouringRowsWithFarApartMaxima) {
  for (dim_t len : {1, 7, 17, 33, 100, 1000, 4096, 4100}) {
    const dim_t rows = 9;
    std::vector<double> v(static_cast<size_t>(rows * len));
    for (dim_t r = 0; r < rows; ++r) {
      for (dim_t i = 0; i < len; ++i) v[r * len + i] = (r % 2 ? 300.0 : -300.0) + 5 * std::sin(0.3 * (i + r));
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      check_special({rows, len}, 1, plain({rows, len}, data_type::f32), v, alg);
    }
  }
}

// The dense forward kernel takes Fast2Sum instead of TwoSum for x - max, and no clamp, in rows
// whose max is positive with the largest exponent and whose span is within 100
// (max_dominates). Rows in [40, 127] qualify and reach exp(-87): a wrong error term there is
// ~2^-18 relative (32 eps), far outside the bound. Neighbouring rows alternate with rows that do
// not qualify (max <= 0; min far below -max), so a row range taken from the wrong row (the
// look-ahead) would choose the wrong path. Lengths on both sides of the 16 KB look-ahead limit,
// and below 512 elements, where no row takes Fast2Sum.
TEST(SoftmaxAccuracy, RowsWhoseMaxHasTheLargestExponent) {
  std::mt19937 rng(9);
  const std::pair<double, double> ranges[] = {{40, 127}, {-127, -40}, {-90, 5}, {-5, 5}};
  for (dim_t len : {5, 16, 100, 1000, 4100}) {
    const dim_t rows = 8;
    std::vector<double> v(static_cast<size_t>(rows * len));
    for (dim_t r = 0; r < rows; ++r) {
      std::uniform_real_distribution<double> d(ranges[r % 4].first, ranges[r % 4].second);
      for (dim_t i = 0; i < len; ++i) v[r * len + i] = d(rng);
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      check_special({rows, len}, 1, plain({rows, len}, data_type::f32), v, alg);
    }
  }
}

// On avx512bw the dense forward kernel computes exp(x - max) of rows of 512 or more elements
// without rounding x - max (simd::exp_minus_f32) when the row's range allows it: max a multiple
// of 2^(E-23) and every |x| below about 2^(E+1). Rows spanning ~85 below maxima of 0, -1, -0.5,
// 100.5 and 64 take it, as do rows whose ends are within 0.03 of 2^(E+1) (-7.99 .. 7.99,
// 0 .. -31.99): there the exactness of its reduction is at its limit. An exp off by x - max's
// rounding would be ~2^-17 relative in the small outputs (64 eps). Rows of random logits
// between them take the other paths, so a range taken from the wrong row shows too.
TEST(SoftmaxAccuracy, RowsWhoseMaxIsAShortMultiple) {
  std::mt19937 rng(17);
  const float near8 = std::ldexp(std::nearbyint(std::ldexp(7.99f, 16)), -16);
  const float near32 = std::ldexp(std::nearbyint(std::ldexp(31.99f, 16)), -16);
  const std::pair<double, double> ranges[] = {{0, -85},   {-1, -86},     {-0.5, -85.5},
                                              {100.5, 15.5}, {64, -20}, {near8, -near8},
                                              {0, -near32}};
  for (dim_t len : {512, 1000, 4100}) {
    const dim_t rows = 2 * static_cast<dim_t>(std::size(ranges));
    std::vector<double> v(static_cast<size_t>(rows * len));
    for (dim_t r = 0; r < rows; ++r) {
      double* row = &v[static_cast<size_t>(r * len)];
      if (r % 2) {
        std::uniform_real_distribution<double> d(-3, 4.7);
        for (dim_t i = 0; i < len; ++i) row[i] = d(rng);
        continue;
      }
      const auto [top, bottom] = ranges[r / 2];
      std::uniform_real_distribution<double> d(bottom, top);
      for (dim_t i = 0; i < len; ++i) row[i] = static_cast<float>(d(rng));
      row[(r * 7) % len] = top;  // the max, exactly
      row[(r * 7 + 3) % len] = bottom;
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      check_special({rows, len}, 1, plain({rows, len}, data_type::f32), v, alg);
    }
  }
}

// The dense forward kernel moves short f32 rows (< 512 elements) two at a time, with the
// one-row code's operations in its order, the maxima of the next pair found in the last sweep
// of the current one. A row must come out with the same bits alone ([1, len]: the one-row code)
// as in a [5, len] problem (rows 0-1 a pair that looks ahead, rows 2-3 a pair using those
// maxima, row 4 alone), in place or not. The five rows differ (a max taken from the wrong row
// shows): random logits, a row with -Inf entries, ±0 with a max of 0, a row of -Inf only (NaN,
// compared as bits), and logits far above the others.
TEST(SoftmaxAccuracy, RowPairsGiveTheBitsOfSingleRows) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> d(-5, 5);
  const float inf = std::numeric_limits<float>::infinity();
  for (dim_t len : {1, 5, 16, 17, 63, 64, 65, 100, 128, 129, 200, 511}) {
    const size_t n = static_cast<size_t>(len);
    std::vector<std::vector<float>> rows(5, std::vector<float>(n));
    for (size_t i = 0; i < n; ++i) {
      rows[0][i] = d(rng);
      rows[1][i] = i % 3 == 1 ? -inf : d(rng);
      rows[2][i] = i % 5 == 4 ? -d(rng) - 6 : (i % 2 ? 0.f : -0.f);
      rows[3][i] = -inf;
      rows[4][i] = d(rng) + 200;
    }
    std::vector<float> all;
    for (const auto& row : rows) all.insert(all.end(), row.begin(), row.end());
    for (const std::string& filter : kernel_filters()) {
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
        for (bool in_place : {false, true}) {
          auto run = [&](dim_t count, std::vector<float> data) {
            const memory_desc md = plain({count, len}, data_type::f32);
            auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
            if (!fwd.ok()) {
              ADD_FAILURE() << filter << ": " << fwd.status();
              return std::vector<float>();
            }
            std::vector<float> out(data.size(), 7.f);
            float* dst = in_place ? data.data() : out.data();
            EXPECT_TRUE(fwd->execute({{arg::src, {md, data.data()}}, {arg::dst, {md, dst}}}).ok());
            return in_place ? data : out;
          };
          const std::vector<float> together = run(5, all);
          ASSERT_EQ(together.size(), all.size());
          for (size_t k = 0; k < rows.size(); ++k) {
            const std::vector<float> alone = run(1, rows[k]);
            ASSERT_EQ(alone.size(), n);
            EXPECT_EQ(std::memcmp(together.data() + k * n, alone.data(), n * sizeof(float)), 0)
                << filter << " " << name_of(alg) << (in_place ? " in place" : "") << " len "
                << len << " row " << k << " of 5";
          }
        }
      }
    }
  }
}

// Rows spanning ~100 in value: the small outputs reach the denormal range.
// Single-run rows of 16-128 KB (avx2, sse4_2) fetch the next row into L2 during their exp sweep,
// and softmax's last sweep finds that row's max and min, which choose its exp; rows up to 16 KB
// look two rows ahead. Every row must come out with the same bits alone as among the others:
// rows whose ranges choose different exps (random logits; [40, 127] and far above 0, where
// Fast2Sum is valid; [-127, -40], where it is not), a row with -Inf entries and a row of -Inf
// only (NaN, or 0 with softmax_inf_as_zero), so a range taken from the wrong row shows. Lengths
// on both sides of 16 KB and 128 KB, f32 and bf16 (16 KB is 8192 bf16 elements). Rows of six
// ranges, as a wrong row two back (the short rows' distance) must show too.
TEST(SoftmaxAccuracy, RowsAroundTheLookAheadLimitsGiveTheBitsOfSingleRows) {
  std::mt19937 rng(31);
  const double inf = std::numeric_limits<double>::infinity();
  const std::pair<double, double> ranges[] = {{-5, 5}, {40, 127}, {-127, -40}, {195, 205}};
  constexpr int kRows = 6;
  for (data_type dt : {data_type::f32, data_type::bf16}) {
    const dim_t element = dt == data_type::f32 ? 4 : 2;
    for (dim_t bytes : {(dim_t{1} << 10) - 64, dim_t{1} << 10, dim_t{16} << 10,
                        (dim_t{16} << 10) + 64, dim_t{128} << 10, (dim_t{128} << 10) + 64}) {
      if (dt == data_type::bf16 && bytes > (dim_t{128} << 10)) continue;  // f32's covers it
      const dim_t len = bytes / element;
      std::vector<std::vector<double>> rows(kRows, std::vector<double>(static_cast<size_t>(len)));
      for (int r = 0; r < kRows; ++r) {
        std::uniform_real_distribution<double> d(ranges[r % 4].first, ranges[r % 4].second);
        for (dim_t i = 0; i < len; ++i) {
          rows[r][static_cast<size_t>(i)] = r == 4 ? (i % 3 == 1 ? -inf : d(rng)) : r == 5 ? -inf : d(rng);
        }
      }
      std::vector<double> all;
      for (const auto& row : rows) all.insert(all.end(), row.begin(), row.end());
      for (const std::string& filter : kernel_filters()) {
        if (filter == "ref") continue;  // one row at a time, no look-ahead
        for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::softmax_inf_as_zero,
                                softmax_alg::logsoftmax}) {
          for (bool in_place : {false, true}) {
            if (in_place && alg != softmax_alg::softmax) continue;
            auto run = [&](dim_t count, const std::vector<double>& values) {
              const memory_desc md = plain({count, len}, dt);
              auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
              if (!fwd.ok()) {
                ADD_FAILURE() << filter << ": " << fwd.status();
                return std::vector<uint8_t>();
              }
              auto src = buffer(md);
              testing::write_logical(md, src.data(), values);
              auto out = buffer(md, 0x5a);
              auto& dst = in_place ? src : out;
              EXPECT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
              return dst;
            };
            const std::vector<uint8_t> together = run(kRows, all);
            const size_t row_bytes = static_cast<size_t>(bytes);
            ASSERT_EQ(together.size(), kRows * row_bytes);
            for (int r = 0; r < kRows; ++r) {
              const std::vector<uint8_t> alone = run(1, rows[r]);
              ASSERT_EQ(alone.size(), row_bytes);
              EXPECT_EQ(std::memcmp(together.data() + r * row_bytes, alone.data(), row_bytes), 0)
                  << filter << " " << name_of(alg) << " " << name_of(dt)
                  << (in_place ? " in place" : "") << " len " << len << " row " << r;
            }
          }
        }
      }
    }
  }
}

TEST(SoftmaxAccuracy, WideRangeRowsReachDenormals) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> d(-100, 3);
  std::vector<double> v(16 * 500);
  for (auto& x : v) x = d(rng);
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
    check_special({16, 500}, 1, plain({16, 500}, data_type::f32), v, alg);
    check_special({16, 500}, 0, plain({16, 500}, data_type::f32), v, alg);
  }
}

// Few lanes along a strided axis (30000x8 along dim 0): several axis positions share a vector.
TEST(SoftmaxAccuracy, FewLanesAlongStridedAxis) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> d(-30, 30);
  for (std::vector<dim_t> dims : {std::vector<dim_t>{301, 8}, {77, 4}, {50, 2}, {999, 16},
                                  {3, 41, 8}, {5, 3}}) {
    const int axis = dims.size() == 3 ? 1 : 0;
    const memory_desc md = plain(dims, data_type::f32);
    std::vector<double> v(md.nelems());
    for (auto& x : v) x = d(rng);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      check_special(dims, axis, md, v, alg);
    }
  }
}

// The few-lanes path with -Inf: 20x4 along dim 0 (4 lanes share each vector).
TEST(SoftmaxAccuracy, MinusInfinityFewLanes) {
  const double inf = std::numeric_limits<double>::infinity();
  const memory_desc md = plain({20, 4}, data_type::f32);
  std::vector<double> v(80);
  for (int a = 0; a < 20; ++a) {
    v[a * 4 + 0] = a * 0.25;
    v[a * 4 + 1] = -inf;                      // all -Inf
    v[a * 4 + 2] = a % 2 ? -inf : a * 0.5;    // some -Inf
    v[a * 4 + 3] = a == 5 ? 1.0 : -inf;       // one finite
  }
  auto src = buffer(md);
  testing::write_logical(md, src.data(), v);
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::softmax_inf_as_zero,
                          softmax_alg::logsoftmax}) {
    for (const std::string& filter : kernel_filters()) {
      auto fwd = softmax_forward::create(alg, md, md, 0, {}, {filter});
      if (!fwd.ok()) continue;
      auto dst = buffer(md);
      ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
      const auto got = testing::read_logical(md, dst.data());
      const bool log = alg == softmax_alg::logsoftmax;
      for (int a = 0; a < 20; ++a) {
        SCOPED_TRACE(fwd->impl_name() + " " + std::string(name_of(alg)) + " a " + std::to_string(a));
        if (alg == softmax_alg::softmax_inf_as_zero) EXPECT_EQ(got[a * 4 + 1], 0.0);
        else EXPECT_TRUE(std::isnan(got[a * 4 + 1]));
        if (a % 2) EXPECT_EQ(got[a * 4 + 2], log ? -inf : 0.0);
        EXPECT_EQ(got[a * 4 + 3], a == 5 ? (log ? 0.0 : 1.0) : (log ? -inf : 0.0));
        EXPECT_TRUE(std::isfinite(got[a * 4 + 0]));
      }
    }
  }
}

// Rows whose maximum occurs once, a few times, or everywhere, with the other values far below it
// or within 1e-6 of it: logsoftmax's log(count) + log1p(rest / count), its count = 1 shortcut and
// the cross-lane count reduction. Row lengths with and without a partial last vector.
TEST(SoftmaxAccuracy, RepeatedMaxima) {
  std::mt19937 rng(13);
  for (dim_t len : {dim_t{37}, dim_t{128}, dim_t{1000}}) {
    const dim_t rows = 12;
    std::vector<double> v(rows * len);
    for (dim_t r = 0; r < rows; ++r) {
      const int kind = static_cast<int>(r % 6);
      std::uniform_real_distribution<double> far(-30, 2), near(3 - 1e-6, 3);
      for (dim_t i = 0; i < len; ++i) v[r * len + i] = kind >= 3 ? near(rng) : far(rng);
      // How many maxima (3.0): 1, 2, 7, 1, 5, or every element.
      const int count[] = {1, 2, 7, 1, 5, static_cast<int>(len)};
      for (int c = 0; c < count[kind]; ++c) v[r * len + (c * 11 + r) % len] = 3.0;
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      check_special({rows, len}, 1, plain({rows, len}, data_type::f32), v, alg);
    }
  }
}

// A NaN anywhere in a row (first, middle, in the partial last vector, at the maximum's place)
// makes that row NaN and leaves the others alone; dense and strided, every kernel.
TEST(SoftmaxAccuracy, NanInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> d(-20, 20);
  for (dim_t len : {dim_t{37}, dim_t{128}}) {
    const dim_t rows = 6;
    std::vector<double> v(rows * len);
    for (auto& x : v) x = d(rng);
    v[0 * len + 0] = nan;
    v[1 * len + len / 2] = nan;
    v[2 * len + len - 1] = nan;
    v[4 * len + 3] = 100.0;  // the maximum ...
    v[4 * len + 5] = nan;    // ... and a NaN in the same row
    std::vector<double> transposed(v.size());
    for (dim_t r = 0; r < rows; ++r) {
      for (dim_t i = 0; i < len; ++i) transposed[i * rows + r] = v[r * len + i];
    }
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax, softmax_alg::softmax_inf_as_zero}) {
      check_special({rows, len}, 1, plain({rows, len}, data_type::f32), v, alg);
      check_special({len, rows}, 0, plain({len, rows}, data_type::f32), transposed, alg);
    }
  }
}

// Backward with a NaN in dst or diff_dst: NaN exactly where the f64 reference has it (softmax:
// the whole row; logsoftmax: the whole row for diff_dst, the element alone for dst), every kernel.
TEST(SoftmaxAccuracy, BackwardNanInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const dim_t rows = 4, len = 45;
  const memory_desc md = plain({rows, len}, data_type::f32);
  std::mt19937 rng(15);
  std::uniform_real_distribution<double> u(-1, 1);
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
    std::vector<double> src(rows * len), dd(rows * len);
    for (auto& x : src) x = 10 * u(rng);
    for (auto& x : dd) x = u(rng);
    auto src_buf = buffer(md);
    testing::write_logical(md, src_buf.data(), src);
    std::vector<double> y = testing::softmax_forward_reference(alg, md, src_buf.data(), 1);
    y[1 * len + 7] = nan;         // dst, row 1
    dd[2 * len + len - 1] = nan;  // diff_dst, row 2, in the last partial vector
    auto dst_buf = buffer(md), dd_buf = buffer(md);
    testing::write_logical(md, dst_buf.data(), y);
    testing::write_logical(md, dd_buf.data(), dd);
    const auto exact = testing::softmax_backward_reference(alg, md, dst_buf.data(), md, dd_buf.data(), 1);
    for (const std::string& filter : kernel_filters()) {
      auto bwd = softmax_backward::create(alg, md, md, md, 1, {}, {filter});
      if (!bwd.ok()) continue;
      auto dx_buf = buffer(md);
      ASSERT_TRUE(bwd->execute({{arg::dst, {md, dst_buf.data()}},
                                {arg::diff_dst, {md, dd_buf.data()}},
                                {arg::diff_src, {md, dx_buf.data()}}})
                      .ok());
      const auto got = testing::read_logical(md, dx_buf.data());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::isnan(got[i]), std::isnan(exact[i]))
            << bwd->impl_name() << " " << name_of(alg) << " element " << i << " got " << got[i];
        if (!std::isnan(exact[i])) {
          EXPECT_NEAR(got[i], exact[i], 1e-5) << bwd->impl_name() << " " << name_of(alg) << " element " << i;
        }
      }
    }
  }
}

TEST(SoftmaxAccuracy, RowsOfOneElement) {
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
    std::vector<double> v = {-3, 0, 5.5, 1e30, -1e30};
    check_special({5, 1}, 1, plain({5, 1}, data_type::f32), v, alg);
    check_special({1, 5}, 0, plain({1, 5}, data_type::f32), v, alg);
  }
}

TEST(SoftmaxAccuracy, AxisOfOneMillion) {
  const dim_t n = 1'000'000;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> d(-10, 10);
  std::vector<double> v(2 * n);
  for (auto& x : v) x = d(rng);
  for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
    check_special({2, n}, 1, plain({2, n}, data_type::f32), v, alg);
  }
}

// -Inf entries give exact zeros (softmax) and -Inf (logsoftmax); an all -Inf row gives NaN, or 0
// with softmax_inf_as_zero. Checked on the dense and the strided kernels and the reference.
TEST(SoftmaxAccuracy, MinusInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  // 3 rows of 20 (axis 1): mixed, all -Inf, one finite.
  std::vector<double> rows(60);
  for (int i = 0; i < 20; ++i) {
    rows[i] = (i % 3 == 0) ? -inf : i * 0.5;
    rows[20 + i] = -inf;
    rows[40 + i] = i == 7 ? 2.0 : -inf;
  }
  for (int axis : {1, 0}) {
    // axis 0 of the transposed data (20x3): the same rows, now strided.
    const std::vector<dim_t> dims = axis == 1 ? std::vector<dim_t>{3, 20} : std::vector<dim_t>{20, 3};
    std::vector<double> v(60);
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i < 20; ++i) (axis == 1 ? v[r * 20 + i] : v[i * 3 + r]) = rows[r * 20 + i];
    }
    const memory_desc src = plain(dims, data_type::f32);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::softmax_inf_as_zero,
                            softmax_alg::logsoftmax}) {
      auto src_buf = buffer(src);
      testing::write_logical(src, src_buf.data(), v);
      for (const std::string& filter : kernel_filters()) {
        auto fwd = softmax_forward::create(alg, src, src, axis, {}, {filter});
        if (!fwd.ok()) continue;
        auto dst_buf = buffer(src);
        ASSERT_TRUE(fwd->execute({{arg::src, {src, src_buf.data()}},
                                  {arg::dst, {src, dst_buf.data()}}})
                        .ok());
        const auto got = testing::read_logical(src, dst_buf.data());
        for (int r = 0; r < 3; ++r) {
          for (int i = 0; i < 20; ++i) {
            const double y = axis == 1 ? got[r * 20 + i] : got[i * 3 + r];
            const double x = rows[r * 20 + i];
            SCOPED_TRACE(fwd->impl_name() + " " + std::string(name_of(alg)) + " row " +
                         std::to_string(r) + " i " + std::to_string(i));
            if (r == 1) {
              if (alg == softmax_alg::softmax_inf_as_zero) EXPECT_EQ(y, 0.0);
              else EXPECT_TRUE(std::isnan(y)) << y;
            } else if (x == -inf) {
              EXPECT_EQ(y, alg == softmax_alg::logsoftmax ? -inf : 0.0);
            } else if (r == 2) {
              EXPECT_EQ(y, alg == softmax_alg::logsoftmax ? 0.0 : 1.0);
            } else {
              EXPECT_TRUE(std::isfinite(y)) << y;
            }
          }
        }
      }
    }
  }
}

// The strided kernel at lane counts around the vector widths (4, 8, 16): whole vectors only, a
// few leftover lanes (copied out as dense rows), more leftover lanes (a last vector overlapping
// the one before it, in the same sweep), fewer lanes than a vector (masked), several sweeps of
// vectors (1 to 8 in a sweep). Lanes that are all -Inf sit first and last (so in the leftover /
// overlapping part), and single -Inf entries elsewhere; then the same without -Inf, where every
// lane's range lets avx2 take exp_minus_nearby_lanes_f32. Softmax, logsoftmax and
// softmax_inf_as_zero, f32 and bf16.
TEST(SoftmaxAccuracy, StridedLaneCountsAroundTheVectorWidth) {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937 rng(16);
  std::uniform_real_distribution<double> d(-30, 30);
  for (const bool with_minus_inf : {true, false})
  for (dim_t lanes : std::vector<dim_t>{3, 5, 9, 13, 16, 17, 20, 27, 40, 49, 70, 130, 141}) {
    const dim_t len = 37 + lanes % 5;
    const std::vector<dim_t> dims = {2, len, lanes};
    std::vector<double> v(2 * len * lanes);
    for (auto& x : v) x = d(rng);
    for (dim_t n = 0; n < 2 && with_minus_inf; ++n) {
      for (dim_t a = 0; a < len; ++a) {
        const dim_t row = (n * len + a) * lanes;
        if (n == 0) v[row + 0] = -inf;          // all -Inf lanes
        v[row + lanes - 1] = n == 1 ? -inf : v[row + lanes - 1];
        if ((a * 7 + n) % 5 == 0) v[row + (a * 3) % lanes] = -inf;  // single -Inf entries
      }
    }
    for (data_type dt : {data_type::f32, data_type::bf16}) {
      const memory_desc md = plain(dims, dt);
      for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                              softmax_alg::softmax_inf_as_zero}) {
        auto src = buffer(md);
        testing::write_logical(md, src.data(), v);
        const auto exact = testing::softmax_forward_reference(alg, md, src.data(), 1);
        for (const std::string& filter : kernel_filters()) {
          auto fwd = softmax_forward::create(alg, md, md, 1, {}, {filter});
          if (!fwd.ok()) continue;
          auto dst = buffer(md, 0xA5);
          ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
          std::string first;
          EXPECT_EQ(check_forward(fwd->impl_name(), alg, dt, exact,
                                  testing::read_logical(md, dst.data()), first),
                    0)
              << fwd->impl_name() << " " << name_of(alg) << " " << name_of(dt) << " lanes "
              << lanes << (with_minus_inf ? " with -Inf" : "") << ": " << first;
        }
      }
    }
  }
}

// A single strided group split along its axis into parts (kernel_args.h: axis_split): 8 lanes
// (one vector on avx2, interleaved on avx512bw), 4 and 2 (interleaved on avx2 and avx512bw; 2:
// parts of a multiple of 8 axis steps on avx512bw, and a partial last vector), 3 (a masked
// vector), 17 and 37 (an overlapping last vector: split groups never send leftover lanes through
// dense rows), with finite values only, and with lanes whose values are -Inf everywhere, in all
// parts but the first, or finite in one part only.
TEST(SoftmaxAccuracy, StridedSingleGroupSplitAlongTheAxis) {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937 rng(18);
  std::uniform_real_distribution<double> d(-30, 30);
  for (std::vector<dim_t> dims : {std::vector<dim_t>{9000, 8}, {16000, 4}, {20001, 2}, {12000, 3},
                                  {2000, 17}, {1000, 37}}) {
    const dim_t len = dims[0], lanes = dims[1];
    // Finite values only (every lane's range then takes the lanes_exp on avx2 and avx512bw), and
    // with the special lanes.
    for (bool special : {false, true}) {
      std::vector<double> v(len * lanes);
      for (auto& x : v) x = d(rng);
      for (dim_t a = 0; special && a < len; ++a) {
        v[a * lanes] = -inf;
        if (a >= len / 4) v[a * lanes + 1] = -inf;
        if (lanes > 2) v[a * lanes + 2] = a == len - 5 ? 3.0 : -inf;
      }
      for (data_type dt : {data_type::f32, data_type::bf16}) {
        const memory_desc md = plain(dims, dt);
        auto src = buffer(md);
        testing::write_logical(md, src.data(), v);
        for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                                softmax_alg::softmax_inf_as_zero}) {
          const auto exact = testing::softmax_forward_reference(alg, md, src.data(), 0);
          for (const std::string& filter : kernel_filters()) {
            if (filter == "ref") continue;
            auto fwd = softmax_forward::create(alg, md, md, 0, {}, {filter});
            ASSERT_TRUE(fwd.ok()) << fwd.status();
            auto dst = buffer(md, 0xA5);
            ASSERT_TRUE(fwd->execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
            std::string first;
            EXPECT_EQ(check_forward(fwd->impl_name(), alg, dt, exact,
                                    testing::read_logical(md, dst.data()), first),
                      0)
                << fwd->impl_name() << " " << name_of(alg) << " " << name_of(dt) << " " << len
                << "x" << lanes << (special ? " special lanes" : "") << ": " << first;
          }
        }
      }
    }
  }
}

// Calls check(fwd) with a forward primitive of each vector kernel (not the reference kernel) for
// (alg, md, axis); each must accept the problem, and at least one must exist.
template <class Check>
void for_each_vector_kernel(softmax_alg alg, const memory_desc& md, int axis, Check check) {
  int runs = 0;
  for (const std::string& filter : kernel_filters()) {
    if (filter == "ref") continue;
    auto fwd = softmax_forward::create(alg, md, md, axis, {}, {filter});
    ASSERT_TRUE(fwd.ok()) << fwd.status();
    ++runs;
    check(*fwd);
  }
  EXPECT_GT(runs, 0);
}

// Logsoftmax of all-equal values (zeros) along `axis`, in place, on every vector kernel: each
// element must be -log(axis length) within 4 eps.
void expect_logsoftmax_of_zeros(const std::vector<dim_t>& dims, int axis) {
  const double expected = -std::log(static_cast<double>(dims[axis]));
  const memory_desc md = plain(dims, data_type::f32);
  std::vector<float> data(static_cast<size_t>(md.nelems()));
  for_each_vector_kernel(softmax_alg::logsoftmax, md, axis, [&](const softmax_forward& fwd) {
    std::fill(data.begin(), data.end(), 0.f);
    ASSERT_TRUE(fwd.execute({{arg::src, {md, data.data()}}, {arg::dst, {md, data.data()}}}).ok());
    size_t failures = 0;
    for (size_t i = 0; i < data.size(); ++i) {
      const double units = std::fabs(data[i] - expected) / (kEps * std::fabs(expected));
      if (!(units <= 4) && failures++ == 0) {
        ADD_FAILURE() << fwd.impl_name() << " rank " << dims.size() << " element " << i
                      << ": expected " << expected << " got " << data[i];
      }
    }
    EXPECT_EQ(failures, 0u) << fwd.impl_name();
  });
}

// Leftover lanes whose dense-row copy would be larger than the strided kernel's scratch limit
// (2^20 elements) take a vector instead: 4 leftover lanes (20 = 16 + 4) along an axis of
// 2^18 + 1. Vector kernels only, against a per-lane f64 softmax computed here (the reference
// kernel and testing/softmax would take a minute on 5M elements in fastbuild).
TEST(SoftmaxAccuracy, StridedLeftoverLanesAlongALongAxis) {
  const dim_t len = (dim_t{1} << 18) + 1, lanes = 20;
  const memory_desc md = plain({len, lanes}, data_type::f32);
  std::vector<float> src(static_cast<size_t>(len * lanes)), dst(src.size());
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> d(-10, 10);
  for (auto& x : src) x = d(rng);
  std::vector<double> exact(src.size());
  for (dim_t j = 0; j < lanes; ++j) {
    double m = -INFINITY, sum = 0;
    for (dim_t a = 0; a < len; ++a) m = std::max<double>(m, src[a * lanes + j]);
    for (dim_t a = 0; a < len; ++a) sum += std::exp(src[a * lanes + j] - m);
    for (dim_t a = 0; a < len; ++a) exact[a * lanes + j] = std::exp(src[a * lanes + j] - m) / sum;
  }
  for_each_vector_kernel(softmax_alg::softmax, md, 0, [&](const softmax_forward& fwd) {
    ASSERT_TRUE(fwd.execute({{arg::src, {md, src.data()}}, {arg::dst, {md, dst.data()}}}).ok());
    int failures = 0;
    for (size_t i = 0; i < exact.size(); ++i) {
      const double units = std::fabs(dst[i] - exact[i]) / (kEps * exact[i] + kDenormFloor);
      if (!(units <= 4) && failures++ == 0) {
        ADD_FAILURE() << fwd.impl_name() << " element " << i << ": exact " << exact[i] << " got "
                      << dst[i] << " (" << units << " units)";
      }
    }
    EXPECT_EQ(failures, 0) << fwd.impl_name();
  });
}

// A lane's count of maxima beyond 2^24: logsoftmax of all-equal values along a strided axis of
// 1.5 * 2^24 is -log(1.5 * 2^24) everywhere. Counts kept in f32 stop at 2^24 (2^24 + 1 rounds back
// to it), which gave -log(2^24): 0.41 too high. One group of 3 lanes (the plan splits it along the
// axis: the parts' counts are merged) and two groups (each taken whole). In place, to halve the
// memory (600 MB). Vector kernels only (the reference kernel would take minutes in fastbuild).
TEST(SoftmaxAccuracy, LogsoftmaxCountsMoreThan2To24MaximaPerLane) {
  const dim_t len = dim_t{3} << 23, lanes = 3;
  expect_logsoftmax_of_zeros({len, lanes}, 0);
  expect_logsoftmax_of_zeros({2, len, lanes}, 1);
}

// The dense kernels count logsoftmax's maxima per vector lane too: one all-equal row of
// 1.5 * 2^28 elements gives -log(1.5 * 2^28) everywhere. With f32 counts each of avx512bw's 16
// lanes would stop at 2^24, the total at 2^28, and the result would be 0.41 too high. (Softmax
// sums the maxima's exps with the others, in f64.) In place (1.6 GB); vector kernels only.
TEST(SoftmaxAccuracy, DenseRowOfMoreThan2To24MaximaPerLane) {
  expect_logsoftmax_of_zeros({1, dim_t{3} << 27}, 1);
}

}  // namespace
}  // namespace tessera
