// Backward softmax / logsoftmax along a dense axis. Part of the per-ISA kernels: include only from
// vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_DENSE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_DENSE_H_

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_exp_f64.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// ---- backward, axis dense ----------------------------------------------------------------------

// dx = step(dy, y) over a dense row: whole vectors two per step, then the tail.
// next_dx: the next row's dx, fetched into L1 meanwhile (nullptr: none), so that its stores do
// not wait for its lines (faster on nhwc 32x1000x7x7). The next row's y and dy are not: the
// hardware prefetcher follows them (rows are read in order), and fetching them into L1 as well
// crowds out the current row (measured slower on AVX-512 Zen 4 and on avx2, 1024x1000 and nhwc,
// hot and cold). A head of up to W - 1 elements first puts dx's vectors on whole lines
// (aligning_head). Each element's result is the same wherever the row is split.
template <class A, class Dst, class DiffDst, class DiffSrc, class Step>
[[gnu::always_inline]] inline void map_row(const dense_geometry& g, const Dst* y, const DiffDst* dy,
                                            DiffSrc* dx, Step step,
             DiffSrc* next_dx = nullptr) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  // One partial step of `rest` (< W) elements at i.
  auto partial_step = [&](dim_t i, int rest) __attribute__((always_inline)) {
    const F r = step(load_partial<A>(dy + i, rest, 0.f), load_partial<A>(y + i, rest, 0.f));
    simd::store_f32(dx + i, r, rest);
  };
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    dim_t i = aligning_head<A>(dx + off, n);
    if (i > 0) partial_step(off, static_cast<int>(i));
    for (; i + 2 * W <= n; i += 2 * W) {
      if (next_dx != nullptr) {
        for (int b = 0; b < 2 * W * int{sizeof(DiffSrc)}; b += 64) {
          // A read prefetch (prefetcht0: the build has no -mprfchw); prefetchw itself
          // measured slower (1024x1000, 1 thread, hot and cold).
          __builtin_prefetch(reinterpret_cast<char*>(next_dx + off + i) + b, 1, 3);
        }
      }
      const F r0 = step(simd::load_f32<A>(dy + off + i), simd::load_f32<A>(y + off + i));
      const F r1 = step(simd::load_f32<A>(dy + off + i + W), simd::load_f32<A>(y + off + i + W));
      simd::store_f32(dx + off + i, r0);
      simd::store_f32(dx + off + i + W, r1);
    }
    for (; i + W <= n; i += W) {
      simd::store_f32(dx + off + i,
                      step(simd::load_f32<A>(dy + off + i), simd::load_f32<A>(y + off + i)));
    }
    if (i < n) partial_step(off + i, static_cast<int>(n - i));
  });
}

// logsoftmax's dx = dy - exp(y) * sum in f64, rounded once to f32: the fallback of
// logsoftmax_dx_f32_where_safe (scaled_exp_f64's 2^-37 relative error is 2^-14 f32 ulp of
// exp(y) * sum: negligible).
template <class A>
auto logsoftmax_dx_f64_for_row(const scaled_exp_f64<A>& exp_times_sum) {
  return [&exp_times_sum](vf<A> d, vf<A> v) {
    vd<A> dlo, dhi, vlo, vhi;
    simd::widen_to_f64<A>(d, dlo, dhi);
    simd::widen_to_f64<A>(v, vlo, vhi);
    return simd::narrow_to_f32<A>(dlo - exp_times_sum(vlo), dhi - exp_times_sum(vhi));
  };
}

// One short row in registers: dy in d, y in v, whole vectors then `tail` (1..W) elements, the
// lanes past the row's end 0 (as pass 1 of backward_rows loads them).
template <class A, class Dst, class DiffDst, int NV>
void load_short_row(const Dst* y, const DiffDst* dy, int tail, vf<A>* d, vf<A>* v) {
  constexpr int W = kWidth<A>;
  for (int j = 0; j + 1 < NV; ++j) {
    d[j] = simd::load_f32<A>(dy + j * W);
    v[j] = simd::load_f32<A>(y + j * W);
  }
  d[NV - 1] = load_partial<A>(dy + (NV - 1) * W, tail, 0.f);
  v[NV - 1] = load_partial<A>(y + (NV - 1) * W, tail, 0.f);
}

// Single-run rows of NV vectors or fewer (benchdnn's CI shapes: 2x19x17x13 along C in nhwc,
// 442 rows of 19): the row is loaded once into registers, and the next row is loaded before
// this one's results are stored. In place (dx = dy) backward_rows' next row begins with a load
// from the line the previous row's masked tail store has just written; a load that overlaps a
// masked store cannot take its bytes from it and, as far as we can tell, waits for the store
// to reach L1 (in place runs at a fraction of out of place's speed, Intel, 1 thread). Its pass 2
// also splits the row at diff_src's line (aligning_head): a third partial vector per row of 19.
// The arithmetic is backward_rows': the sum in pass 1's grouping (four vectors at once only for
// a row of exactly four), each element's result by the same step. So the bits are its bits.
template <class A, class Dst, class DiffDst, class DiffSrc, bool kLog, int NV>
void backward_short_rows(const kernel_args& k, dim_t begin, dim_t end) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const dim_t len = k.dense.len;
  const int tail = static_cast<int>(len - dim_t{NV - 1} * W);
  auto y_of = [&](dim_t row) __attribute__((always_inline)) { return static_cast<const Dst*>(k.in0) + k.rows.offset_of(row); };
  auto dy_of = [&](dim_t row) __attribute__((always_inline)) {
    return static_cast<const DiffDst*>(k.in1) + k.rows.offset_of(row);
  };
  F d[NV], v[NV];
  if (begin < end) load_short_row<A, Dst, DiffDst, NV>(y_of(begin), dy_of(begin), tail, d, v);
  for (dim_t row = begin; row < end; ++row) {
    wide_sum<A> k0;
    if constexpr (kLog) {
      for (int j = 0; j < NV; ++j) k0.add(d[j]);
    } else if (NV == 4 && len == 4 * W) {
      k0.add_products4(d, v);
    } else {
      for (int j = 0; j < NV; ++j) k0.add_product(d[j], v[j]);
    }
    const double total = reduce_sum<A>(k0);
    const F sum(static_cast<float>(total));
    F r[NV];
    if constexpr (kLog) {
      const scaled_exp_f64<A> exp_times_sum(total);
      const auto in_f64 = logsoftmax_dx_f64_for_row<A>(exp_times_sum);
      for (int j = 0; j < NV; ++j) {
        r[j] = logsoftmax_dx_f32_where_safe<A>(d[j], v[j], sum, in_f64);
      }
    } else {
      for (int j = 0; j < NV; ++j) r[j] = v[j] * (d[j] - sum);
    }
    if (row + 1 < end) {
      load_short_row<A, Dst, DiffDst, NV>(y_of(row + 1), dy_of(row + 1), tail, d, v);
    }
    DiffSrc* dx = static_cast<DiffSrc*>(k.out) + k.rows.offset_of(row);
    for (int j = 0; j + 1 < NV; ++j) simd::store_f32(dx + j * W, r[j]);
    simd::store_f32(dx + (NV - 1) * W, r[NV - 1], tail);
  }
}

// Pass 1 of a row: its sum, Σ dy·y (softmax) or Σ dy (logsoftmax).
template <class A, class Dst, class DiffDst, bool kLog>
[[gnu::always_inline]] inline double backward_row_sum(const dense_geometry& g, const Dst* y,
                                                      const DiffDst* dy) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  // Pass 1: sum(dy * y) (softmax): four vectors summed pairwise in f32 (products rounded once,
  // two additions), widened to f64 once per four. sum(dy) (logsoftmax): each vector widened to
  // f64 (exact): where the sum cancels, pairwise f32 roundings (eps of the addends) would be far
  // beyond benchdnn's threshold on dy - exp(y) * sum (fuzz_softmax, strided 7x5x8x2 axis 0:
  // 2.1e-5 relative against 1.9e-5).
  // No aligning head here (pass 2 has one): the sums' grouping, and so the result's bits,
  // would then depend on where dx sits, and in-place and out-of-place runs must agree.
  wide_sum<A> k0;
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    dim_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
      F d[4];
      for (int j = 0; j < 4; ++j) d[j] = simd::load_f32<A>(dy + off + i + j * W);
      if constexpr (kLog) {
        for (int j = 0; j < 4; ++j) k0.add(d[j]);
      } else {
        F v[4];
        for (int j = 0; j < 4; ++j) v[j] = simd::load_f32<A>(y + off + i + j * W);
        k0.add_products4(d, v);
      }
    }
    for (; i < n; i += W) {
      const int rest = static_cast<int>(std::min<dim_t>(W, n - i));
      F d = rest == W ? simd::load_f32<A>(dy + off + i)
                      : load_partial<A>(dy + off + i, rest, 0.f);
      if constexpr (kLog) {
        k0.add(d);
      } else {
        F v = rest == W ? simd::load_f32<A>(y + off + i) : load_partial<A>(y + off + i, rest, 0.f);
        k0.add_product(d, v);
      }
    }
  });
  return reduce_sum<A>(k0);
}

// Pass 2 of a row: dx from its sum `total`, fetching `next_dx` (when not null) into L1.
template <class A, class Dst, class DiffDst, class DiffSrc, bool kLog>
[[gnu::always_inline]] inline void backward_row_dx(const dense_geometry& g, const Dst* y,
                                                   const DiffDst* dy, DiffSrc* dx, double total,
                                                   DiffSrc* next_dx) {
  using F = vf<A>;
  // Pass 2. softmax in f32: within ~2 eps of the operand size (the test's bound is 4): the sum
  // rounded to f32, then diff_dst - sum and the product rounded once each.
  // logsoftmax: in f32 where nothing cancels, else in f64 (logsoftmax_dx_f32_where_safe,
  // logsoftmax_dx_f64_for_row).
  if constexpr (kLog) {
    const scaled_exp_f64<A> exp_times_sum(total);
    const F sum(static_cast<float>(total));
    const auto in_f64 = logsoftmax_dx_f64_for_row<A>(exp_times_sum);
    map_row<A>(g, y, dy, dx, [&](F d, F v) __attribute__((always_inline)) {
      return logsoftmax_dx_f32_where_safe<A>(d, v, sum, in_f64);
    }, next_dx);
  } else {
    const F sum(static_cast<float>(total));
    map_row<A>(g, y, dy, dx, [&](F d, F v) __attribute__((always_inline)) { return v * (d - sum); }, next_dx);
  }
}

// kLog: logsoftmax; a template argument so that neither pass tests it per vector.
template <class A, class Dst, class DiffDst, class DiffSrc, bool kLog>
[[gnu::always_inline]] inline void backward_rows(const kernel_args& k, dim_t begin, dim_t end) {
  const dense_geometry& g = k.dense;
  if (is_short_row<A>(g)) {
    with_short_row_vectors<A>(g, [&](auto nv) __attribute__((always_inline)) {
      backward_short_rows<A, Dst, DiffDst, DiffSrc, kLog, decltype(nv)::value>(k, begin, end);
    });
    return;
  }

  for (dim_t row = begin; row < end; ++row) {
    const dim_t base = k.rows.offset_of(row);
    const Dst* y = static_cast<const Dst*>(k.in0) + base;
    const DiffDst* dy = static_cast<const DiffDst*>(k.in1) + base;
    DiffSrc* dx = static_cast<DiffSrc*>(k.out) + base;
    const double total = backward_row_sum<A, Dst, DiffDst, kLog>(g, y, dy);

    // Pass 2 fetches the next row's dx when rows are 1-16 KB.
    DiffSrc* next_dx = nullptr;
    if (row + 1 < end && worth_prefetching_rows(g, sizeof(Dst))) {
      next_dx = static_cast<DiffSrc*>(k.out) + k.rows.offset_of(row + 1);
    }
    backward_row_dx<A, Dst, DiffDst, DiffSrc, kLog>(g, y, dy, dx, total, next_dx);
  }
}

template <class A, class Dst, class DiffDst, class DiffSrc>
void backward_dense(const kernel_args& k, dim_t begin, dim_t end) {
  if (k.alg == softmax_alg::logsoftmax) {
    backward_rows<A, Dst, DiffDst, DiffSrc, true>(k, begin, end);
  } else {
    backward_rows<A, Dst, DiffDst, DiffSrc, false>(k, begin, end);
  }
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_DENSE_H_
