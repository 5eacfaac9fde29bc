#include "tessera/primitives/softmax/internal/ref_kernel.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tessera/core/convert.h"

namespace tessera::softmax_internal {
namespace {

double load(const memory_desc& md, const void* base, dim_t off) {
  return visit_data_type(md.dt(), [&](auto tag) -> double {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, static_cast<const char*>(base) + off * static_cast<dim_t>(sizeof(T)), sizeof(T));
    if constexpr (std::is_same_v<T, double>) {
      return v;
    } else {
      return static_cast<double>(to_f32(v));
    }
  });
}

// f64 stays f64; every other type is rounded to f32 first (the f32 result of the spec), then to
// its own type.
void store(const memory_desc& md, void* base, dim_t off, double value) {
  visit_data_type(md.dt(), [&](auto tag) {
    using T = decltype(tag);
    T v;
    if constexpr (std::is_same_v<T, double>) {
      v = value;
    } else {
      v = from_f32<T>(static_cast<float>(value));
    }
    std::memcpy(static_cast<char*>(base) + off * static_cast<dim_t>(sizeof(T)), &v, sizeof(T));
  });
}

// The logical index of row `row` (axis entry left at 0).
void row_index(const problem& prob, dim_t row, std::array<dim_t, kMaxRank>& idx) {
  const auto dims = prob.in0.dims();
  for (int d = prob.in0.rank() - 1; d >= 0; --d) {
    if (d == prob.axis) {
      idx[d] = 0;
      continue;
    }
    idx[d] = row % dims[d];
    row /= dims[d];
  }
}

// The post-op chain on one value of dst at logical index idx, in f64 (binary operands found
// through their descriptors at idx with the broadcast dims at 0), from the softmax result y
// times `scale` (the src scale). Unless src is f64, that product is oneDNN's: y rounded to f32,
// times the scale in f32, as in the vector kernels (a result that underflows f32, alone or
// with its scale, divided by 0 is NaN, not Inf).
double apply_post_ops(const problem& prob, const ref_buffers& buf,
                      const std::array<dim_t, kMaxRank>& idx, double y, double scale) {
  if (prob.in0.dt() != data_type::f64) {
    y = static_cast<float>(y) * static_cast<float>(scale);
  } else {
    y *= scale;
  }
  const int rank = prob.out.rank();
  for (size_t i = 0; i < prob.attr.post_ops.size(); ++i) {
    const post_op& op = prob.attr.post_ops[i];
    if (op.kind == post_op_kind::eltwise) {
      y = apply_eltwise<double>(op.eltwise_algorithm, op.alpha, op.beta, y);
      continue;
    }
    std::array<dim_t, kMaxRank> at{};
    for (int d = 0; d < rank; ++d) at[d] = op.src1.dims()[d] == 1 ? 0 : idx[d];
    const double b = load(op.src1, buf.post_op_src1[i],
                          op.src1.offset({at.data(), static_cast<size_t>(rank)}));
    y = apply_binary<double>(op.binary_algorithm, y, b);
  }
  return y;
}

}  // namespace

dim_t ref_row_count(const problem& prob) {
  dim_t rows = 1;
  for (int d = 0; d < prob.in0.rank(); ++d) {
    if (d != prob.axis) rows *= prob.in0.dims()[d];
  }
  return rows;
}

void ref_rows(const problem& prob, const ref_buffers& buf, dim_t begin, dim_t end) {
  const int rank = prob.in0.rank();
  const dim_t len = prob.in0.dims()[prob.axis];
  std::vector<double> a(len), b(prob.dir == direction::backward ? len : 0);
  std::array<dim_t, kMaxRank> idx{};
  auto offset = [&](const memory_desc& md, dim_t i) {
    idx[prob.axis] = i;
    return md.offset({idx.data(), static_cast<size_t>(rank)});
  };
  const double inf = std::numeric_limits<double>::infinity();

  for (dim_t row = begin; row < end; ++row) {
    row_index(prob, row, idx);
    if (prob.dir == direction::forward) {
      double mx = -inf;
      for (dim_t i = 0; i < len; ++i) {
        a[i] = load(prob.in0, buf.in0, offset(prob.in0, i));
        mx = std::max(mx, a[i]);
      }
      // NaN anywhere makes the row NaN (std::max above drops it, the sum below does not).
      // sum = count of maxima (each exp(0) = 1) + the rest, so that logsoftmax's
      // log(count) + log1p(rest / count) keeps the rest when the max dominates.
      double count = 0, rest = 0;
      for (dim_t i = 0; i < len; ++i) {
        if (a[i] == mx) count += 1;
        else rest += std::exp(a[i] - mx);
      }
      const double sum = count + rest;
      const bool zero_row = mx == -inf && prob.alg == softmax_alg::softmax_inf_as_zero;
      const double log_sum = std::log(count) + std::log1p(rest / count);
      for (dim_t i = 0; i < len; ++i) {
        double y;
        if (zero_row) {
          y = 0;
        } else if (prob.alg == softmax_alg::logsoftmax) {
          y = (a[i] - mx) - log_sum;
        } else {
          y = std::exp(a[i] - mx) / sum;
        }
        if (prob.attr.post_ops.empty()) {
          store(prob.out, buf.out, offset(prob.out, i), y * buf.out_scale);
        } else {
          idx[prob.axis] = i;
          store(prob.out, buf.out, offset(prob.out, i),
                apply_post_ops(prob, buf, idx, y, buf.out_scale) * buf.post_op_scale);
        }
      }
    } else {
      double sum = 0;
      for (dim_t i = 0; i < len; ++i) {
        a[i] = load(prob.in0, buf.in0, offset(prob.in0, i));  // dst
        b[i] = load(prob.in1, buf.in1, offset(prob.in1, i));  // diff_dst
        sum += prob.alg == softmax_alg::logsoftmax ? b[i] : b[i] * a[i];
      }
      for (dim_t i = 0; i < len; ++i) {
        const double dx = prob.alg == softmax_alg::logsoftmax ? b[i] - std::exp(a[i]) * sum
                                                              : a[i] * (b[i] - sum);
        store(prob.out, buf.out, offset(prob.out, i), dx);
      }
    }
  }
}

}  // namespace tessera::softmax_internal
