// Forward softmax / logsoftmax with f64 src and dst, in f64 arithmetic: the dense kernel
// (forward_dense_f64, rows along a dense or blocked axis) and the strided one
// (forward_strided_f64, vectors of neighbouring rows along a strided axis). Part of the per-ISA
// kernels: include only from vector_kernels_impl.h.
//
// The arithmetic is the reference kernel's (ref_kernel.cc) with vectors: the max (NaN skipped),
// the sum split as (count of maxima) + (the other exps) (summing the exps directly adds the
// small ones to the maxima's 1s and moved softmax results by an ulp, beyond benchdnn's f64
// threshold of one eps), softmax exp(x - max) / sum (as a product with 1 / sum), logsoftmax
// (x - max) - (log(count) + log1p(rest / count)). exp is
// scaled_exp_f64's full accuracy (within 1.5 ulp, no division); the sums are f64 partial sums
// per lane, added across lanes at the end. Special values follow the reference: a NaN anywhere
// gives a NaN row, +Inf gives NaN at the maxima and 0 (softmax) or -Inf (logsoftmax) elsewhere,
// an all -Inf row NaN (softmax_inf_as_zero: 0). Softmax keeps its exps in dst between the
// sweeps.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_F64_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_F64_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_exp_f64.h"
#include "tessera/simd/compare.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/select.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

template <class A>
using vf64 = xsimd::batch<double, A>;

template <class A>
constexpr int kWidthF64 = static_cast<int>(vf64<A>::size);

constexpr double kInfF64 = std::numeric_limits<double>::infinity();

// Lanes [0, n) of an f64 vector, as a mask.
template <class A>
typename vf64<A>::batch_bool_type lanes_below(int n) {
  alignas(64) static constexpr double kIota[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  return vf64<A>::load_aligned(kIota) < vf64<A>(static_cast<double>(n));
}

// exp(d) for d = x - max <= 0 (or NaN), within 1.5 ulp: 0 below exp's underflow (-Inf
// included), NaN for NaN.
template <class A>
using exp_f64 = scaled_exp_f64<A, exp_f64_accuracy::full>;

// The per-lane statistics of one row (dense) or of one vector of rows (strided).
template <class A>
struct f64_sums {
  using V = vf64<A>;
  V count = V(0.0);
  V rest = V(0.0);
  // x's exp e = exp(x - m), lanes in `inside` only.
  [[gnu::always_inline]] void add(V x, V m, V e, typename V::batch_bool_type inside) {
    const auto at_max = (x == m) & inside;
    count = count + ::tessera::simd::select(at_max, V(1.0), V(0.0));
    rest = rest + ::tessera::simd::select(at_max | !inside, V(0.0), e);
  }
  // Every lane.
  [[gnu::always_inline]] void add(V x, V m, V e) {
    const auto at_max = x == m;
    count = count + ::tessera::simd::select(at_max, V(1.0), V(0.0));
    rest = rest + ::tessera::simd::select(at_max, V(0.0), e);
  }
  [[gnu::always_inline]] void add(const f64_sums& other) {
    count = count + other.count;
    rest = rest + other.rest;
  }
};

// The reference's log of the sum (ref_kernel.cc): log(count) + log1p(rest / count).
inline double log_of_sum(double count, double rest) {
  return std::log(count) + std::log1p(rest / count);
}

// What the exp sweep of one row fetches meanwhile (that sweep is compute-bound, the others wait
// on memory): the next row's src, into L1 or L2 (kernel_math.h's worth_prefetching_rows and
// worth_prefetching_rows_to_l2), and the dst lines that the next stores go to: logsoftmax's
// own (its exp sweep writes nothing) and, for rows that fit L1, softmax's next row's (its exps).
template <class A>
struct f64_row_fetches {
  const double* next_src = nullptr;
  bool next_to_l2 = false;
  double* dst_lines = nullptr;

  f64_row_fetches(const dense_geometry& g, softmax_alg alg, const double* next, double* dst,
                  double* next_dst) {
    const bool to_l1 = worth_prefetching_rows(g, sizeof(double));
    next_to_l2 = worth_prefetching_rows_to_l2<A>(g, sizeof(double));
    if (to_l1 || next_to_l2) next_src = next;
    if (to_l1) {
      dst_lines = alg == softmax_alg::logsoftmax ? dst : next != nullptr ? next_dst : nullptr;
    }
  }
  // The lines of elements [i, i + n) of the run at offset 0 (single-run rows only).
  [[gnu::always_inline]] void fetch(dim_t i, int n) const {
    for (int b = 0; b < n * int{sizeof(double)}; b += 64) {
      if (next_src != nullptr) {
        if (next_to_l2) __builtin_prefetch(reinterpret_cast<const char*>(next_src + i) + b, 0, 2);
        else __builtin_prefetch(reinterpret_cast<const char*>(next_src + i) + b, 0, 3);
      }
      if (dst_lines != nullptr) {
        __builtin_prefetch(reinterpret_cast<char*>(dst_lines + i) + b, 1, 3);
      }
    }
  }
};

// The largest lane of v.
template <class A>
double max_of_lanes(vf64<A> v) {
  constexpr int W = kWidthF64<A>;
  alignas(64) double lanes[W];
  v.store_aligned(lanes);
  return *std::max_element(lanes, lanes + W);
}

// m with the lanes [0, lanes) of the elements at p folded in (maxpd keeps m for a NaN).
template <class A>
[[gnu::always_inline]] vf64<A> max_with(vf64<A> m, const double* p, int lanes) {
  using V = vf64<A>;
  if (lanes == kWidthF64<A>) return xsimd::max(V::load_unaligned(p), m);
  const V x = simd::load_partial<A>(p, lanes);
  return xsimd::max(::tessera::simd::select(lanes_below<A>(lanes), x, V(-kInfF64)), m);
}

// A row's max (NaN skipped; -Inf for a row of -Inf).
template <class A>
double f64_row_max(const dense_geometry& g, const double* src) {
  using V = vf64<A>;
  constexpr int W = kWidthF64<A>;
  V m0(-kInfF64), m1(-kInfF64);
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    const double* p = src + off;
    dim_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      m0 = max_with<A>(m0, p + i, W);
      m1 = max_with<A>(m1, p + i + W, W);
    }
    for (; i < n; i += W) m0 = max_with<A>(m0, p + i, static_cast<int>(std::min<dim_t>(W, n - i)));
  });
  return max_of_lanes<A>(xsimd::max(m0, m1));
}

// The exp sweep: the sums of exp(x - mx), the exps kept in dst unless kLog. Two vectors per
// step, each with its own sums: the exps of neighbouring vectors overlap. The lambdas are
// inlined so that the sums and the exp's table stay in registers (a lambda of its own kept them
// in memory, one store and reload per step).
template <class A, bool kLog>
f64_sums<A> f64_exp_sweep(const dense_geometry& g, const double* src, double* dst, double mx,
                          const f64_row_fetches<A>& fetches) {
  using V = vf64<A>;
  constexpr int W = kWidthF64<A>;
  const V m(mx);
  const exp_f64<A> exp(1.0);
  f64_sums<A> sums, sums1;
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    const double* p = src + off;
    double* q = dst + off;
    dim_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      fetches.fetch(i, 2 * W);
      const V x0 = V::load_unaligned(p + i), x1 = V::load_unaligned(p + i + W);
      const V e0 = exp(x0 - m), e1 = exp(x1 - m);
      sums.add(x0, m, e0);
      sums1.add(x1, m, e1);
      if constexpr (!kLog) {
        e0.store_unaligned(q + i);
        e1.store_unaligned(q + i + W);
      }
    }
    for (; i < n; i += W) {
      const int lanes = static_cast<int>(std::min<dim_t>(W, n - i));
      const V x = lanes == W ? V::load_unaligned(p + i) : simd::load_partial<A>(p + i, lanes);
      const V e = exp(x - m);
      sums.add(x, m, e, lanes_below<A>(lanes));
      if constexpr (!kLog) {
        if (lanes == W) e.store_unaligned(q + i);
        else simd::store_partial(q + i, e, lanes);
      }
    }
  });
  sums.add(sums1);
  return sums;
}

// The last sweep: logsoftmax (x - mx) - factor from src, softmax the exps in dst times factor.
// With kAhead, it also finds the max of the row at `ahead` (same geometry), in L1 by then, and
// returns it: that row's first sweep is skipped.
template <class A, bool kLog, bool kAhead>
double f64_normalise(const dense_geometry& g, const double* src, double* dst, double mx,
                     double factor, const double* ahead) {
  using V = vf64<A>;
  constexpr int W = kWidthF64<A>;
  const V m(mx), f(factor);
  V a0(-kInfF64), a1(-kInfF64);
  auto result = [&](V x) __attribute__((always_inline)) {
    if constexpr (kLog) return (x - m) - f;
    else return x * f;
  };
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    const double* in = (kLog ? src : dst) + off;
    double* q = dst + off;
    dim_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      const V y0 = result(V::load_unaligned(in + i)), y1 = result(V::load_unaligned(in + i + W));
      y0.store_unaligned(q + i);
      y1.store_unaligned(q + i + W);
      if constexpr (kAhead) {
        a0 = max_with<A>(a0, ahead + off + i, W);
        a1 = max_with<A>(a1, ahead + off + i + W, W);
      }
    }
    for (; i < n; i += W) {
      const int lanes = static_cast<int>(std::min<dim_t>(W, n - i));
      const V x = lanes == W ? V::load_unaligned(in + i) : simd::load_partial<A>(in + i, lanes);
      const V y = result(x);
      if (lanes == W) y.store_unaligned(q + i);
      else simd::store_partial(q + i, y, lanes);
      if constexpr (kAhead) a0 = max_with<A>(a0, ahead + off + i, lanes);
    }
  });
  return kAhead ? max_of_lanes<A>(xsimd::max(a0, a1)) : 0.0;
}

template <class A, bool kLog>
double f64_normalise(const dense_geometry& g, const double* src, double* dst, double mx,
                     double factor, const double* ahead) {
  return ahead != nullptr ? f64_normalise<A, kLog, true>(g, src, dst, mx, factor, ahead)
                          : f64_normalise<A, kLog, false>(g, src, dst, mx, factor, nullptr);
}

// The sweeps of one dense row: elements at run offsets (dense_geometry), f64 throughout.
// known_max: the row's max if the previous row found it; next / next_dst: the next row (nullptr
// for the last one). Returns the next row's max when this row found it (rows that fit L1: the
// exp sweep fetched that row, the last sweep reads it).
template <class A>
std::optional<double> forward_f64_row(const dense_geometry& g, softmax_alg alg,
                                      const double* src, double* dst, const double* next,
                                      double* next_dst, std::optional<double> known_max) {
  const double mx = known_max ? *known_max : f64_row_max<A>(g, src);
  if (mx == -kInfF64 && alg == softmax_alg::softmax_inf_as_zero) {
    for_each_run(g, [&](dim_t off, dim_t n) { std::fill(dst + off, dst + off + n, 0.0); });
    return std::nullopt;
  }
  const f64_row_fetches<A> fetches(g, alg, next, dst, next_dst);
  const double* ahead = worth_prefetching_rows(g, sizeof(double)) ? next : nullptr;
  double next_max;
  if (alg == softmax_alg::logsoftmax) {
    const auto sums = f64_exp_sweep<A, true>(g, src, dst, mx, fetches);
    const double factor = log_of_sum(xsimd::hadd(sums.count), xsimd::hadd(sums.rest));
    next_max = f64_normalise<A, true>(g, src, dst, mx, factor, ahead);
  } else {
    const auto sums = f64_exp_sweep<A, false>(g, src, dst, mx, fetches);
    const double sum = xsimd::hadd(sums.count) + xsimd::hadd(sums.rest);
    next_max = f64_normalise<A, false>(g, src, dst, mx, 1.0 / sum, ahead);
  }
  return ahead != nullptr ? std::optional<double>(next_max) : std::nullopt;
}

template <class A>
void forward_dense_f64(const kernel_args& k, dim_t begin, dim_t end) {
  const double* src = static_cast<const double*>(k.in0);
  double* dst = static_cast<double*>(k.out);
  std::optional<double> known_max;
  for (dim_t row = begin; row < end; ++row) {
    const dim_t off = k.rows.offset_of(row);
    const dim_t next_off = row + 1 < end ? k.rows.offset_of(row + 1) : -1;
    known_max = forward_f64_row<A>(k.dense, k.alg, src + off, dst + off,
                                   next_off >= 0 ? src + next_off : nullptr,
                                   next_off >= 0 ? dst + next_off : nullptr, known_max);
  }
}

// The three sweeps along the axis of `lanes` (1..W) neighbouring rows starting at src / dst.
template <class A>
void forward_f64_lanes(const strided_geometry& g, softmax_alg alg, const double* src,
                       double* dst, int lanes) {
  using V = vf64<A>;
  constexpr int W = kWidthF64<A>;
  const double inf = std::numeric_limits<double>::infinity();
  const auto inside = lanes_below<A>(lanes);
  auto load = [&](const double* p) __attribute__((always_inline)) {
    return lanes == W ? V::load_unaligned(p) : simd::load_partial<A>(p, lanes);
  };
  auto store = [&](double* p, V v) __attribute__((always_inline)) {
    if (lanes == W) v.store_unaligned(p);
    else simd::store_partial(p, v, lanes);
  };
  V m(-inf);
  for (dim_t a = 0; a < g.len; ++a) m = xsimd::max(load(src + a * g.axis_stride), m);
  const bool log = alg == softmax_alg::logsoftmax;
  // softmax_inf_as_zero: a lane of -Inf takes the max 0, so that its exps, sum and scale are 0.
  if (alg == softmax_alg::softmax_inf_as_zero) {
    m = ::tessera::simd::select(m == V(-inf), V(0.0), m);
  }
  const exp_f64<A> exp(1.0);
  f64_sums<A> sums;
  for (dim_t a = 0; a < g.len; ++a) {
    const V x = load(src + a * g.axis_stride);
    const V e = exp(x - m);
    sums.add(x, m, e, inside);
    if (!log) store(dst + a * g.axis_stride, e);
  }
  alignas(64) double count[W], rest[W], factor[W];
  sums.count.store_aligned(count);
  sums.rest.store_aligned(rest);
  for (int j = 0; j < W; ++j) {
    const double sum = count[j] + rest[j];
    factor[j] = log ? log_of_sum(count[j], rest[j]) : sum == 0 ? 0.0 : 1.0 / sum;
  }
  const V f = V::load_aligned(factor);
  for (dim_t a = 0; a < g.len; ++a) {
    const dim_t at = a * g.axis_stride;
    store(dst + at, log ? (load(src + at) - m) - f : load(dst + at) * f);
  }
}

template <class A>
void forward_strided_f64(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidthF64<A>;
  const strided_geometry& g = k.strided;
  for (dim_t group = begin; group < end; ++group) {
    const dim_t base = k.rows.offset_of(group);
    for (dim_t j = 0; j < g.lanes; j += W) {
      forward_f64_lanes<A>(g, k.alg, static_cast<const double*>(k.in0) + base + j,
                           static_cast<double*>(k.out) + base + j,
                           static_cast<int>(std::min<dim_t>(W, g.lanes - j)));
    }
  }
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_F64_H_
