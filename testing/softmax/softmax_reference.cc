#include "tessera/testing/softmax/softmax_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "tessera/core/convert.h"

namespace tessera::testing {
namespace {

// Calls f(logical index, linear logical position) for every element, row-major.
template <class F>
void for_each_index(const memory_desc& md, F&& f) {
  const int rank = md.rank();
  const auto dims = md.dims();
  if (md.nelems() == 0) return;
  std::array<dim_t, kMaxRank> idx{};
  for (int64_t pos = 0;; ++pos) {
    f(absl::Span<const dim_t>(idx.data(), rank), pos);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

double read_one(const memory_desc& md, const void* data, dim_t off) {
  return visit_data_type(md.dt(), [&](auto tag) -> double {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, static_cast<const char*>(data) + off * static_cast<dim_t>(sizeof(T)), sizeof v);
    return to_f64(v);
  });
}

// Strides of the logical row-major order.
std::vector<int64_t> logical_strides(const memory_desc& md) {
  std::vector<int64_t> s(md.rank());
  int64_t acc = 1;
  for (int d = md.rank() - 1; d >= 0; --d) {
    s[d] = acc;
    acc *= md.dims()[d];
  }
  return s;
}

double epsilon_of(data_type dt) {
  switch (dt) {
    case data_type::f32: return std::numeric_limits<float>::epsilon();
    case data_type::f64: return std::numeric_limits<double>::epsilon();
    case data_type::bf16: return 1.0 / 128;   // 2^-7
    case data_type::f16: return 1.0 / 1024;   // 2^-10
    default: return 0;
  }
}

// What a correct kernel stores for the exact value v.
double round_to(data_type dt, double v) {
  return visit_data_type(dt, [&](auto tag) -> double {
    using T = decltype(tag);
    return to_f64(from_f64<T>(v));
  });
}

}  // namespace

std::vector<double> read_logical(const memory_desc& md, const void* data) {
  std::vector<double> out(static_cast<size_t>(md.nelems()));
  for_each_index(md, [&](absl::Span<const dim_t> idx, int64_t pos) {
    out[pos] = read_one(md, data, md.offset(idx));
  });
  return out;
}

void write_logical(const memory_desc& md, void* data, const std::vector<double>& values) {
  for_each_index(md, [&](absl::Span<const dim_t> idx, int64_t pos) {
    visit_data_type(md.dt(), [&](auto tag) {
      using T = decltype(tag);
      const T v = from_f64<T>(values[pos]);
      std::memcpy(static_cast<char*>(data) + md.offset(idx) * static_cast<dim_t>(sizeof(T)), &v,
                  sizeof v);
    });
  });
}

std::vector<double> softmax_forward_reference(softmax_alg alg, const memory_desc& src,
                                              const void* src_data, int axis, double out_scale) {
  const std::vector<double> x = read_logical(src, src_data);
  std::vector<double> y(x.size());
  const auto st = logical_strides(src);
  const int64_t len = src.dims()[axis];
  const int64_t inner = st[axis];
  // inner is 0 when a dim after the axis is 0: then, like len == 0, there is no row.
  const int64_t outer = len == 0 || inner == 0 ? 0 : static_cast<int64_t>(x.size()) / (len * inner);
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      double mx = -inf;
      bool nan = false;
      for (int64_t a = 0; a < len; ++a) {
        const double v = x[base + a * inner];
        nan |= std::isnan(v);
        mx = std::max(mx, v);
      }
      // sum = count + rest: the maxima contribute exactly 1 each; keeping the rest apart keeps
      // log(sum) = log(count) + log1p(rest / count) accurate when the max dominates.
      double count = 0, rest = 0;
      for (int64_t a = 0; a < len; ++a) {
        const double v = x[base + a * inner];
        if (v == mx) count += 1;
        else rest += std::exp(v - mx);
      }
      const double sum = count + rest;
      const double log_sum = std::log(count) + std::log1p(rest / count);
      for (int64_t a = 0; a < len; ++a) {
        const double v = x[base + a * inner];
        double r;
        if (nan) {
          r = std::numeric_limits<double>::quiet_NaN();
        } else if (mx == -inf) {
          r = alg == softmax_alg::softmax_inf_as_zero ? 0.0 : std::numeric_limits<double>::quiet_NaN();
        } else if (alg == softmax_alg::logsoftmax) {
          r = (v - mx) - log_sum;
        } else {
          r = std::exp(v - mx) / sum;
        }
        y[base + a * inner] = r * out_scale;
      }
    }
  }
  return y;
}

namespace {

double eltwise_f64(const post_op& op, double x) {
  const double a = op.alpha, b = op.beta;
  switch (op.eltwise_algorithm) {
    case eltwise_alg::linear: return a * x + b;
    case eltwise_alg::relu: return x > 0 ? x : a * x;
    case eltwise_alg::clip: {  // oneDNN's order: the lower bound first, then the upper one
      const double lower = x > a ? x : a;
      return lower > b ? b : lower;
    }
    case eltwise_alg::abs: return x < 0 ? -x : x;
    case eltwise_alg::square: return x * x;
    case eltwise_alg::sqrt: return std::sqrt(x);
    case eltwise_alg::exp: return std::exp(x);
    case eltwise_alg::tanh: return std::tanh(x);
    case eltwise_alg::logistic: return x <= kLogisticZeroAtOrBelow ? 0 : 1 / (1 + std::exp(-x));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool is_transcendental(eltwise_alg alg) {
  return alg == eltwise_alg::exp || alg == eltwise_alg::tanh || alg == eltwise_alg::logistic;
}

// f moved by `ulps` f32 steps (negative: down).
float moved_by_ulps(float f, int ulps) {
  const float toward = ulps > 0 ? std::numeric_limits<float>::infinity()
                                : -std::numeric_limits<float>::infinity();
  for (int i = 0; i < (ulps > 0 ? ulps : -ulps); ++i) f = std::nextafter(f, toward);
  return f;
}

double binary_f64(binary_alg alg, double a, double b) {
  switch (alg) {
    case binary_alg::add: return a + b;
    case binary_alg::sub: return a - b;
    case binary_alg::mul: return a * b;
    case binary_alg::div: return a / b;
    case binary_alg::max: return a > b ? a : b;
    case binary_alg::min: return a < b ? a : b;
    case binary_alg::ge: return a >= b ? 1 : 0;
    case binary_alg::gt: return a > b ? 1 : 0;
    case binary_alg::le: return a <= b ? 1 : 0;
    case binary_alg::lt: return a < b ? 1 : 0;
    case binary_alg::eq: return a == b ? 1 : 0;
    case binary_alg::ne: return a != b ? 1 : 0;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::vector<double> softmax_forward_reference(softmax_alg alg, const memory_desc& src,
                                              const void* src_data, int axis,
                                              const softmax_reference_attr& attr) {
  // The chain starts from oneDNN's value: the result rounded to f32, times the src scale in f32
  // (f64 src: both unrounded). A result that underflows f32, alone or with its scale, divided
  // by 0 is NaN, not Inf.
  const bool f32_chain = src.dt() != data_type::f64 && !attr.post_ops.empty();
  std::vector<double> y =
      softmax_forward_reference(alg, src, src_data, axis, f32_chain ? 1.0 : attr.src_scale);
  std::array<dim_t, kMaxRank> at{};
  for_each_index(src, [&](absl::Span<const dim_t> idx, int64_t pos) {
    const double shifted = y[pos] * (1 + attr.softmax_shift);
    double v = shifted;
    if (f32_chain) {
      float start = static_cast<float>(shifted);
      if (attr.subnormal_start_steps != 0 && std::fabs(start) < std::numeric_limits<float>::min()) {
        start += static_cast<float>(attr.subnormal_start_steps) * 0x1p-149f;
      }
      v = start * static_cast<float>(attr.src_scale);
    }
    for (size_t i = 0; i < attr.post_ops.size(); ++i) {
      const post_op& op = attr.post_ops[i];
      if (op.kind == post_op_kind::eltwise) {
        v = eltwise_f64(op, v);
        if (attr.f32_steps && attr.eltwise_ulps != 0 && is_transcendental(op.eltwise_algorithm)) {
          v = moved_by_ulps(static_cast<float>(v), attr.eltwise_ulps);
        }
      } else {
        for (size_t d = 0; d < idx.size(); ++d) at[d] = op.src1.dims()[d] == 1 ? 0 : idx[d];
        const double b = read_one(op.src1, attr.post_op_src1[i],
                                  op.src1.offset({at.data(), idx.size()}));
        v = binary_f64(op.binary_algorithm, v, b);
      }
      if (attr.f32_steps) v = static_cast<float>(v);
    }
    y[pos] = v / attr.dst_scale;
  });
  return y;
}

std::vector<double> softmax_backward_reference(softmax_alg alg, const memory_desc& dst,
                                               const void* dst_data, const memory_desc& diff_dst,
                                               const void* diff_dst_data, int axis) {
  const std::vector<double> y = read_logical(dst, dst_data);
  const std::vector<double> dy = read_logical(diff_dst, diff_dst_data);
  std::vector<double> dx(y.size());
  const auto st = logical_strides(dst);
  const int64_t len = dst.dims()[axis];
  const int64_t inner = st[axis];
  const int64_t outer = len == 0 || inner == 0 ? 0 : static_cast<int64_t>(y.size()) / (len * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      double sum = 0;
      for (int64_t a = 0; a < len; ++a) {
        const int64_t k = base + a * inner;
        sum += alg == softmax_alg::logsoftmax ? dy[k] : dy[k] * y[k];
      }
      for (int64_t a = 0; a < len; ++a) {
        const int64_t k = base + a * inner;
        dx[k] = alg == softmax_alg::logsoftmax ? dy[k] - std::exp(y[k]) * sum : y[k] * (dy[k] - sum);
      }
    }
  }
  return dx;
}

softmax_compare_result benchdnn_softmax_compare(const softmax_compare_setup& setup,
                                                const std::vector<double>& expected,
                                                const std::vector<double>& got) {
  softmax_compare_result r;
  const bool is_int = setup.dt == data_type::s8 || setup.dt == data_type::u8;
  const double eps = epsilon_of(setup.dt);
  r.threshold = (setup.alg == softmax_alg::logsoftmax ? 4.0 : 1.0) * (setup.backward ? 4.0 : 1.0) *
                (setup.dt == data_type::f32 ? 10.0 : 1.0) * eps;
  if (expected.size() != got.size()) {
    r.ok = false;
    r.message = absl::StrCat("sizes differ: expected ", expected.size(), ", got ", got.size());
    return r;
  }
  int64_t zeros = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = round_to(setup.dt, expected[i]);
    const double have = got[i];
    if (have == 0) ++zeros;
    bool ok;
    if (std::isnan(want) || std::isnan(have)) {
      ok = std::isnan(want) && std::isnan(have);
    } else if (want == have) {
      ok = true;
    } else if (is_int) {
      ok = std::fabs(have - want) <= 1;
    } else {
      const double diff = std::fabs(have - want);
      const double rel = diff / std::fabs(want);
      ok = (std::fabs(want) > 1e-5 ? rel : diff) <= r.threshold || diff < eps;
    }
    if (!ok) {
      if (r.failures == 0) {
        r.message = absl::StrCat("element ", i, ": expected ", want, " (exact ", expected[i],
                                 "), got ", have, "; threshold ", r.threshold);
      }
      ++r.failures;
    }
  }
  const int64_t n = setup.axis_size;
  if (setup.backward) {
    r.zero_trust_percent = 30;
  } else if (setup.alg == softmax_alg::logsoftmax && (n == 1 || setup.dt == data_type::u8)) {
    r.zero_trust_percent = 100;
  } else if (n > 0) {
    const int64_t n_zeros = is_int ? n - 1 : std::max<int64_t>(0, n - 8);
    r.zero_trust_percent = 100.0 * static_cast<double>(n_zeros) / static_cast<double>(n);
  }
  r.zero_percent = got.empty() ? 0 : 100.0 * static_cast<double>(zeros) / got.size();
  r.ok = r.failures == 0;
  if (r.ok && r.zero_percent > r.zero_trust_percent) {
    r.ok = false;
    r.message = absl::StrCat(r.zero_percent, "% of the outputs are zero, above the trust limit of ",
                             r.zero_trust_percent, "%");
  }
  return r;
}

}  // namespace tessera::testing
