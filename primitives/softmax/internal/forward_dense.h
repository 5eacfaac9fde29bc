// Forward softmax / logsoftmax along a dense axis (the axis innermost in memory, possibly in
// chunks: nChw16c along C). Part of the per-ISA kernels: include only from vector_kernels_impl.h.
//
// Memory: each row is read from memory once; the second and third passes over the row hit the
// cache for every row shorter than the L2 (1000 f32 = 4 KB, 30522 f32 = 120 KB).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_DENSE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_DENSE_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// Whether forward_four_rows takes rows of geometry g: runs of whole vectors, at most one cache
// line each (nChw16c along C: one vector on avx512bw, two on avx2, four on sse4_2; nChw8c).
template <class A>
bool runs_fit_four_rows(const dense_geometry& g) {
  return g.chunk % kWidth<A> == 0 && g.chunk * dim_t{sizeof(float)} <= 64 && g.len > g.chunk;
}

// The offsets of a row's vectors one after the other, when its runs (g.chunk elements,
// g.chunk_stride apart) are whole vectors.
template <class A>
struct vector_walk {
  dim_t off = 0;
  dim_t in_run = 0;
  void next(const dense_geometry& g) {
    in_run += kWidth<A>;
    off += kWidth<A>;
    if (in_run == g.chunk) {
      off += g.chunk_stride - g.chunk;
      in_run = 0;
    }
  }
};

// Four rows at once when runs_fit_four_rows: the rows of neighbouring spatial positions have
// adjacent runs, so each step reads four adjacent runs (whole cache lines) instead of one line
// 3 KB from the next, and the four rows' chains run in parallel. f32 softmax /
// softmax_inf_as_zero only (exps kept in dst). In the one-row loop, runs of two vectors (nChw16c
// on avx2) take several times as long as the same problem in nhwc (32x1000x7x7, 1 thread, hot).
//
// The exp sweep fetches the next four rows' runs into L2 when `prefetch_next` (they exist), src
// and dst: the first sweep of a group otherwise waits on its 4 x 63 lines, 3 KB apart, from L3
// or memory (the hardware prefetcher does not follow 63 streams), and the exp sweep's stores on
// read-for-ownership misses. Measured faster cold on AVX-512 Zen 4, 1 and 2 threads:
//   bazel run -c opt //bench/softmax:softmax_bench -- --benchmark_filter=nChw16c
// Into L2, not L1: the group's own 4 x 63 lines of src and of dst (32 KB, all of L1) are then not
// crowded out by the next group's. Two groups ahead is no better than one.
template <class A, class S, class D>
void forward_four_rows(const kernel_args& k, dim_t row0, bool prefetch_next) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  constexpr int R = 4;
  const dense_geometry& g = k.dense;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const S* src[R];
  D* dst[R];
  for (int j = 0; j < R; ++j) {
    const dim_t base = k.rows.offset_of(row0 + j);
    src[j] = static_cast<const S*>(k.in0) + base;
    dst[j] = static_cast<D*>(k.out) + base;
  }
  const char* next_src[R] = {};
  const char* next_dst[R] = {};
  // A run's first and last byte: a run that is not line-aligned spans two lines (leaving out the
  // last row's second line costs measurable time).
  const dim_t run_last = (g.chunk - 1) * dim_t{sizeof(S)};
  const dim_t dst_run_last = (g.chunk - 1) * dim_t{sizeof(D)};
  if (prefetch_next) {
    for (int j = 0; j < R; ++j) {
      const dim_t base = k.rows.offset_of(row0 + R + j);
      next_src[j] = reinterpret_cast<const char*>(static_cast<const S*>(k.in0) + base);
      next_dst[j] = reinterpret_cast<const char*>(static_cast<D*>(k.out) + base);
    }
  }
  const dim_t full = g.len / W;  // runs that are whole vectors; the last may be partial
  const int tail = static_cast<int>(g.len - full * W);

  // On avx2 the rows' mins too: where all four rows' ranges allow, their exps are
  // exp_minus_nearby_f32's (the factor exp(max - s) cancels in exp / sum).
  constexpr bool kNearby = std::is_same_v<A, xsimd::avx2>;
  F m[R], lo[R];
  for (int j = 0; j < R; ++j) m[j] = F(neg_inf), lo[j] = F(-neg_inf);
  vector_walk<A> at;
  for (dim_t c = 0; c < full; ++c, at.next(g)) {
    for (int j = 0; j < R; ++j) {
      const F x = simd::load_f32<A>(src[j] + at.off);
      m[j] = xsimd::max(x, m[j]);
      if constexpr (kNearby) lo[j] = xsimd::min(x, lo[j]);
    }
  }
  dim_t off = at.off;  // the partial vector's
  if (tail) {
    for (int j = 0; j < R; ++j) {
      m[j] = xsimd::max(load_partial<A>(src[j] + off, tail, neg_inf), m[j]);
      if constexpr (kNearby) lo[j] = xsimd::min(load_partial<A>(src[j] + off, tail, -neg_inf), lo[j]);
    }
  }
  bool zero[R];
  std::optional<simd::exp_minus_nearby_f32<A>> nearby[R];
  bool all_nearby = kNearby;
  for (int j = 0; j < R; ++j) {
    const float mx = simd::reduce_max<A>(m[j]);
    zero[j] = inf_as_zero && mx == neg_inf;
    m[j] = F(mx);
    if constexpr (kNearby) {
      nearby[j] = simd::exp_minus_nearby_f32<A>::make(mx, -simd::reduce_max<A>(-lo[j]));
      all_nearby = all_nearby && nearby[j];
    }
  }

  // Sums: f32 per lane over four runs (terms <= 1.05, three roundings), then widened to f64.
  wide_sum<A> sum[R];
  F part[R];
  for (int j = 0; j < R; ++j) part[j] = F(0.f);
  // exp_of(j, x): row j's exp(x - max), or exp(x - s).
  auto sum_exps = [&](auto&& exp_of) {
    vector_walk<A> walk;
    for (dim_t c = 0; c < full; ++c, walk.next(g)) {
      if (prefetch_next && walk.in_run == 0) {
        const dim_t bytes = walk.off * dim_t{sizeof(S)};
        const dim_t dst_bytes = walk.off * dim_t{sizeof(D)};
        for (int j = 0; j < R; ++j) {
          simd::prefetch<simd::locality::l2>(next_src[j] + bytes);
          simd::prefetch<simd::locality::l2>(next_src[j] + bytes + run_last);
          simd::prefetch<simd::locality::l2>(next_dst[j] + dst_bytes);
          simd::prefetch<simd::locality::l2>(next_dst[j] + dst_bytes + dst_run_last);
        }
      }
      for (int j = 0; j < R; ++j) {
        const F e = exp_of(j, simd::load_f32<A>(src[j] + walk.off));
        simd::store_f32(dst[j] + walk.off, e);
        part[j] = part[j] + e;
      }
      if ((c & 3) == 3) {
        for (int j = 0; j < R; ++j) {
          sum[j].add(part[j]);
          part[j] = F(0.f);
        }
      }
    }
    if (tail) {
      for (int j = 0; j < R; ++j) {
        const auto inside = lane_index<A>() < F(static_cast<float>(tail));
        const F e = ::tessera::simd::select(inside, exp_of(j, load_partial<A>(src[j] + off, tail, m[j])),
                                            F(0.f));
        simd::store_f32(dst[j] + off, e, tail);
        part[j] = part[j] + e;
      }
    }
  };
  if (all_nearby) {
    sum_exps([&](int j, F x) { return (*nearby[j])(x); });
  } else {
    sum_exps([&](int j, F x) { return exp_diff<A>(x, m[j]); });
  }
  F inv[R];
  for (int j = 0; j < R; ++j) {
    sum[j].add(part[j]);
    inv[j] = F(zero[j] ? 0.f : static_cast<float>(1.0 / reduce_sum<A>(sum[j])));
  }

  at = {};
  for (dim_t c = 0; c < full; ++c, at.next(g)) {
    for (int j = 0; j < R; ++j) {
      const F e = zero[j] ? F(0.f) : simd::load_f32<A>(dst[j] + at.off);
      simd::store_f32(dst[j] + at.off, e * inv[j]);
    }
  }
  if (tail) {
    for (int j = 0; j < R; ++j) {
      const F e = zero[j] ? F(0.f) : load_partial<A>(dst[j] + off, tail, 0.f);
      simd::store_f32(dst[j] + off, e * inv[j], tail);
    }
  }
}

// Elements i .. i + lanes of p (lanes <= W; the other lanes fill's: an exp's input fills with
// the max, see load_partial).
template <class A, class T>
vf<A> load_lanes(const T* p, int lanes, vf<A> fill = vf<A>(0.f)) {
  return lanes == kWidth<A> ? simd::load_f32<A>(p) : load_partial<A>(p, lanes, fill);
}

// The max and the min of a row (NaNs skipped: maxps / minps return their second operand).
struct row_range {
  float max;
  float min;
};

// The last sweep over a run of n elements: stores y(i, lanes) (the results for elements
// i .. i + lanes) at q + i. With `ahead` (a later row, single-run rows only) it also returns
// that row's max, and its min when kWithMin: this sweep is bound by its stores, so that row's
// first sweep (loads, maxes and mins only) costs almost nothing alongside it. Without, it returns
// {-Inf, +Inf}.
template <class A, bool kWithMin, class S, class D, class Y>
row_range last_sweep(D* q, dim_t n, const S* ahead, Y&& y) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const float inf = std::numeric_limits<float>::infinity();
  F a0(-inf), a1(-inf), b0(inf), b1(inf);
  dim_t i = 0;
  if (ahead != nullptr) {
    for (; i + 2 * W <= n; i += 2 * W) {
      simd::store_f32(q + i, y(i, W));
      simd::store_f32(q + i + W, y(i + W, W));
      const F x0 = simd::load_f32<A>(ahead + i), x1 = simd::load_f32<A>(ahead + i + W);
      a0 = xsimd::max(x0, a0);
      a1 = xsimd::max(x1, a1);
      if constexpr (kWithMin) {
        b0 = xsimd::min(x0, b0);
        b1 = xsimd::min(x1, b1);
      }
    }
  }
  for (; i + W <= n; i += W) {
    simd::store_f32(q + i, y(i, W));
    if (ahead != nullptr) {
      const F x = simd::load_f32<A>(ahead + i);
      a0 = xsimd::max(x, a0);
      if constexpr (kWithMin) b0 = xsimd::min(x, b0);
    }
  }
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    simd::store_f32(q + i, y(i, rest), rest);
    if (ahead != nullptr) {
      a0 = xsimd::max(load_partial<A>(ahead + i, rest, -inf), a0);
      if constexpr (kWithMin) b0 = xsimd::min(load_partial<A>(ahead + i, rest, inf), b0);
    }
  }
  return {simd::reduce_max<A>(xsimd::max(a0, a1)),
          kWithMin ? -simd::reduce_max<A>(-xsimd::min(b0, b1)) : inf};
}

// Rows shorter than this go in pairs (forward_row_pair). On avx512bw they keep exp_diff and do
// not look for their min: the min's sweep and reduction cost more there than Fast2Sum saves
// (8192x128 hot measured slower with them). Neither one row at a time with exp_minus_f32 (faster
// for softmax, slower for logsoftmax) nor pairs choosing their exp per row (nine instantiations
// of the exp loop; slower for both) beats the pairs without it.
constexpr dim_t kMinRangeRow = 512;

// The ranges of a pair of rows, found by the previous pair's last sweep (known) or not yet. The
// minima only where forward_row_pair finds them (avx2).
struct pair_ranges {
  bool known = false;
  float max[2] = {0.f, 0.f};
  float min[2] = {0.f, 0.f};
};

// Two short rows at once (f32 softmax and logsoftmax, single-run rows shorter than
// kMinRangeRow). A row's steps are one chain of dependencies
// (max, its reduction across lanes, the exps, the f64 sum and its reduction, the division, the
// scaling), and a 128-element row has too little work between them for the out-of-order window
// to overlap the next row's chain: a row of 8192x128 takes much longer than 128 elements of
// 1024x1000. Two rows' chains run side by side here. Each row gets exactly forward_dense_rows's
// operations in its order (the same grouping of the sum), so the results are the same bits.
// Rows row and row + 1; `given`: their ranges if known. With look_ahead (rows row + 2 and
// row + 3 exist), the last sweep also finds those rows' ranges and returns them (as
// last_sweep does for one row).
// On avx2 the pair finds its rows' minima too and takes exp_minus_nearby_f32 for both rows, as
// forward_dense_rows does for one row (same operations in the same order, so the same bits);
// where either row's range does not allow it, the pair declines after its first sweep (`paired`
// false, nothing written) and the caller runs both rows one at a time, so every row gets the
// exp it would get alone. One row at a time, 8192x128 spends about half its time on the chain
// between rows.
// kLog: the algorithm as a compile-time flag, as forward_dense_rows' sum_exps has it. As a run-time
// flag its test would stand in every step of the exp loop (measured slower on Intel, 8192x128,
// softmax and logsoftmax).
template <class A, bool kLog>
pair_ranges forward_row_pair(const kernel_args& k, dim_t row, pair_ranges given,
                             bool look_ahead, bool& paired) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  constexpr bool kNearby = std::is_same_v<A, xsimd::avx2>;
  const dim_t n = k.dense.len;
  constexpr bool log = kLog;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const float* src[2];
  float* dst[2];
  const float* ahead[2] = {nullptr, nullptr};
  for (int r = 0; r < 2; ++r) {
    const dim_t base = k.rows.offset_of(row + r);
    src[r] = static_cast<const float*>(k.in0) + base;
    dst[r] = static_cast<float*>(k.out) + base;
    if (look_ahead) ahead[r] = static_cast<const float*>(k.in0) + k.rows.offset_of(row + 2 + r);
  }

  // Row maxima (exact in any order) of the rows at p[0] and p[1], two accumulators each, and
  // minima where kNearby; between(i, lanes) runs before each step.
  // The lambdas here are forced inline, all of them (faster on 8192x128 softmax, 1 thread, hot;
  // the attribute on three of them alone gains nothing).
  auto maxima = [&](const float* const* p, auto&& between) __attribute__((always_inline)) {
    F mx[2][2] = {{F(neg_inf), F(neg_inf)}, {F(neg_inf), F(neg_inf)}};
    F mn[2][2] = {{F(-neg_inf), F(-neg_inf)}, {F(-neg_inf), F(-neg_inf)}};
    dim_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      between(i, W);
      between(i + W, W);
      for (int r = 0; r < 2; ++r) {
        const F x0 = simd::load_f32<A>(p[r] + i), x1 = simd::load_f32<A>(p[r] + i + W);
        mx[r][0] = xsimd::max(x0, mx[r][0]);
        mx[r][1] = xsimd::max(x1, mx[r][1]);
        if constexpr (kNearby) {
          mn[r][0] = xsimd::min(x0, mn[r][0]);
          mn[r][1] = xsimd::min(x1, mn[r][1]);
        }
      }
    }
    for (; i < n; i += W) {
      const int rest = static_cast<int>(std::min<dim_t>(W, n - i));
      between(i, rest);
      for (int r = 0; r < 2; ++r) {
        const F x =
            rest == W ? simd::load_f32<A>(p[r] + i) : load_partial<A>(p[r] + i, rest, neg_inf);
        mx[r][0] = xsimd::max(x, mx[r][0]);
        if constexpr (kNearby) {
          const F y = rest == W ? x : load_partial<A>(p[r] + i, rest, -neg_inf);
          mn[r][0] = xsimd::min(y, mn[r][0]);
        }
      }
    }
    pair_ranges out;
    out.known = true;
    for (int r = 0; r < 2; ++r) {
      out.max[r] = simd::reduce_max<A>(xsimd::max(mx[r][0], mx[r][1]));
      if constexpr (kNearby) out.min[r] = -simd::reduce_max<A>(-xsimd::min(mn[r][0], mn[r][1]));
    }
    return out;
  };

  // Pass 1: max, unless the previous pair's last sweep found it.
  if (!given.known) given = maxima(src, [](dim_t, int) {});
  F m[2];
  for (int r = 0; r < 2; ++r) m[r] = F(given.max[r]);

  // Pass 2: sum of exp(x - max), as forward_dense_rows sums it; softmax keeps the exps in dst.
  // exp_of(r, x): row r's exp(x - max), or exp(x - s) (nearby).
  std::optional<simd::exp_minus_nearby_f32<A>> nearby[2];
  if constexpr (kNearby) {
    for (int r = 0; r < 2; ++r) {
      nearby[r] = simd::exp_minus_nearby_f32<A>::make(given.max[r], given.min[r]);
      if (!nearby[r]) {
        paired = false;
        return {};
      }
    }
  }
  paired = true;
  split_sum<A> sums[2];
  auto full_step = [&](auto&& exp_of, int r, dim_t i) __attribute__((always_inline)) {
    F x[4], e[4];
    for (int j = 0; j < 4; ++j) x[j] = simd::load_f32<A>(src[r] + i + j * W);
    for (int j = 0; j < 4; ++j) e[j] = exp_of(r, x[j]);
    if (log) {
      sums[r].add4(x, m[r], e);
    } else {
      sums[r].rest.add((e[0] + e[1]) + (e[2] + e[3]));
      for (int j = 0; j < 4; ++j) simd::store_f32(dst[r] + i + j * W, e[j]);
    }
  };
  auto step = [&](auto&& exp_of, int r, dim_t i, int rest) __attribute__((always_inline)) {
    F x = rest == W ? simd::load_f32<A>(src[r] + i) : load_partial<A>(src[r] + i, rest, m[r]);
    F e = exp_of(r, x);
    if (rest != W) {
      const auto inside = lane_index<A>() < F(static_cast<float>(rest));
      e = ::tessera::simd::select(inside, e, F(0.f));
      x = ::tessera::simd::select(inside, x, F(std::numeric_limits<float>::quiet_NaN()));
    }
    if (log) {
      sums[r].add(x, m[r], e);
    } else {
      sums[r].rest.add(e);
      if (rest == W) simd::store_f32(dst[r] + i, e);
      else simd::store_f32(dst[r] + i, e, rest);
    }
  };
  // Pass 2 is compute-bound: it fetches the lines the last sweep will wait on meanwhile, the
  // next pair's src (read there for its maxima) and, for logsoftmax (whose pass 2 writes
  // nothing), the pair's dst.
  auto fetch = [&](dim_t i) __attribute__((always_inline)) {
    for (int r = 0; r < 2; ++r) {
      for (int b = 0; b < 4 * W * int{sizeof(float)}; b += 64) {
        if (look_ahead) __builtin_prefetch(reinterpret_cast<const char*>(ahead[r] + i) + b, 0, 3);
        if (log) __builtin_prefetch(reinterpret_cast<const char*>(dst[r] + i) + b, 1, 3);
      }
    }
  };
  auto sum_exps = [&](auto&& exp_of) __attribute__((always_inline)) {
    dim_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
      fetch(i);
      full_step(exp_of, 0, i);
      full_step(exp_of, 1, i);
    }
    for (; i < n; i += W) {
      const int rest = static_cast<int>(std::min<dim_t>(W, n - i));
      step(exp_of, 0, i, rest);
      step(exp_of, 1, i, rest);
    }
  };
  if constexpr (kNearby) {
    sum_exps([&](int r, F x) __attribute__((always_inline)) { return (*nearby[r])(x); });
  } else {
    sum_exps([&](int r, F x) __attribute__((always_inline)) { return exp_diff<A>(x, m[r]); });
  }

  // Pass 3: normalise.
  F scale[2];
  for (int r = 0; r < 2; ++r) {
    row_total total = reduce<A>(sums[r]);
    // softmax's exps and sum share the factor exp(max - s); logsoftmax's sum needs it.
    if constexpr (kNearby) {
      if (log) total.rest *= nearby[r]->to_c();
    }
    scale[r] = log ? F(static_cast<float>(total.log_sum()))
                   : F(static_cast<float>(1.0 / total.sum()));
  }
  auto y = [&](int r, dim_t at, int lanes) {
    return log ? log_diff<A>(load_lanes<A>(src[r] + at, lanes), m[r], scale[r])
               : load_lanes<A>(dst[r] + at, lanes) * scale[r];
  };
  // The store-bound last sweep; the next pair's maxima alongside it when looking ahead.
  auto store = [&](dim_t at, int lanes) {
    for (int r = 0; r < 2; ++r) {
      if (lanes == W) simd::store_f32(dst[r] + at, y(r, at, W));
      else simd::store_f32(dst[r] + at, y(r, at, lanes), lanes);
    }
  };
  if (look_ahead) return maxima(ahead, store);
  for (dim_t i = 0; i < n; i += W) store(i, static_cast<int>(std::min<dim_t>(W, n - i)));
  return {};
}

// Short single-run rows (is_short_row: up to 64 elements on avx512bw, 16 on sse4_2) whose dst is
// not f32 (bf16, f16; f32 rows go in pairs, forward_row_pair), on the ISAs whose short rows take
// exp_diff (not avx2, whose rows choose their exp by their range): the row in registers, loaded
// once, and the next row loaded before this one's results are stored. forward_dense_rows sweeps
// such a row three times through memory, its exps through a per-thread f32 row, and falls behind
// oneDNN on bf16 2x19x17x13 along C in nhwc (442 rows of 19) on Intel, 1 thread.
// Only rows of one vector or with a partial last one: rows of two to four whole vectors measured
// level or slower this way than in forward_dense_rows, which finds the max of the row after next
// during its last sweep (Intel, 1 thread, bf16 4096x48 and 4096x64).
// The arithmetic is forward_dense_rows': the max (exact in any order; a NaN x is dropped by
// maxps as there), exp_diff with the lanes past the end holding the max, the sum in its
// grouping (four vectors at once only for a row of exactly four), the same normalisation. So
// the bits are its bits.
template <class A, class S, class D, int NV>
void forward_short_rows(const kernel_args& k, dim_t begin, dim_t end) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const bool log = k.alg == softmax_alg::logsoftmax;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const dim_t len = k.dense.len;
  const int tail = static_cast<int>(len - dim_t{NV - 1} * W);
  const bool four = NV == 4 && len == 4 * W;
  const auto inside = lane_index<A>() < F(static_cast<float>(tail));
  auto load_row = [&](dim_t row, F* x) {
    const S* p = static_cast<const S*>(k.in0) + k.rows.offset_of(row);
    for (int j = 0; j + 1 < NV; ++j) x[j] = simd::load_f32<A>(p + j * W);
    x[NV - 1] = simd::load_f32<A>(p + (NV - 1) * W, tail);  // 0 past the end
  };
  F x[NV];
  if (begin < end) load_row(begin, x);
  for (dim_t row = begin; row < end; ++row) {
    F mv(neg_inf);
    for (int j = 0; j + 1 < NV; ++j) mv = xsimd::max(x[j], mv);
    mv = xsimd::max(::tessera::simd::select(inside, x[NV - 1], F(neg_inf)), mv);
    const float mx = simd::reduce_max<A>(mv);
    const F m(mx);
    F r[NV];
    if (inf_as_zero && mx == neg_inf) {
      for (int j = 0; j < NV; ++j) r[j] = F(0.f);
    } else {
      F e[NV];
      for (int j = 0; j + 1 < NV; ++j) e[j] = exp_diff<A>(x[j], m);
      e[NV - 1] = ::tessera::simd::select(
          inside, exp_diff<A>(::tessera::simd::select(inside, x[NV - 1], m), m), F(0.f));
      split_sum<A> k0;
      if (log) {
        if (four) {
          k0.add4(x, m, e);
        } else {
          for (int j = 0; j + 1 < NV; ++j) k0.add(x[j], m, e[j]);
          const F not_a_max(std::numeric_limits<float>::quiet_NaN());
          k0.add(::tessera::simd::select(inside, x[NV - 1], not_a_max), m, e[NV - 1]);
        }
      } else if (four) {
        k0.rest.add((e[0] + e[1]) + (e[2] + e[3]));
      } else {
        for (int j = 0; j < NV; ++j) k0.rest.add(e[j]);
      }
      const row_total total = reduce<A>(k0);
      if (log) {
        const F l(static_cast<float>(total.log_sum()));
        for (int j = 0; j < NV; ++j) r[j] = log_diff<A>(x[j], m, l);
      } else {
        const F inv(static_cast<float>(1.0 / total.sum()));
        for (int j = 0; j < NV; ++j) r[j] = e[j] * inv;
      }
    }
    if (row + 1 < end) load_row(row + 1, x);
    D* q = static_cast<D*>(k.out) + k.rows.offset_of(row);
    for (int j = 0; j + 1 < NV; ++j) simd::store_f32(q + j * W, r[j]);
    simd::store_f32(q + (NV - 1) * W, r[NV - 1], tail);
  }
}

// kPairs: short rows go in pairs (forward_row_pair); false for the rows of a pair that declined.
template <class A, class S, class D, bool kWithMin, bool kPairs = true>
void forward_dense_rows(const kernel_args& k, dim_t begin, dim_t end) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const dense_geometry& g = k.dense;
  const bool log = k.alg == softmax_alg::logsoftmax;
  // f32 softmax keeps exp(x - max) in dst between passes 2 and 3; other types recompute it.
  constexpr bool kKeepExp = std::is_same_v<D, float>;
  const float neg_inf = -std::numeric_limits<float>::infinity();

  if constexpr (kKeepExp) {
    if (!log && runs_fit_four_rows<A>(g)) {
      for (; begin + 4 <= end; begin += 4) forward_four_rows<A, S, D>(k, begin, begin + 8 <= end);
    }
  }
  if constexpr (kPairs && std::is_same_v<S, float> && std::is_same_v<D, float> &&
                (!kWithMin || std::is_same_v<A, xsimd::avx2>)) {
    if ((k.alg == softmax_alg::softmax || log) && g.chunk >= g.len && g.len < kMinRangeRow) {
      pair_ranges known;
      for (; begin + 2 <= end; begin += 2) {
        bool paired = true;
        known = log ? forward_row_pair<A, true>(k, begin, known, begin + 4 <= end, paired)
                    : forward_row_pair<A, false>(k, begin, known, begin + 4 <= end, paired);
        if (!paired) forward_dense_rows<A, S, D, kWithMin, false>(k, begin, begin + 2);
      }
    }
  }
  if constexpr (kPairs && !kKeepExp && !kWithMin) {
    if (is_short_row<A>(g) && (g.len <= W || g.len % W != 0)) {
      with_short_row_vectors<A>(g, [&](auto nv) {
        forward_short_rows<A, S, D, decltype(nv)::value>(k, begin, end);
      });
      return;
    }
  }
  // Rows of one run up to 16 KB (in L1 with their dst) find the max and min of the row after
  // next in their last sweep (last_sweep), and choose the next row's exp before that sweep. So
  // the steps between a row's range and its exp sweep (the reductions across lanes, the choice)
  // run while other rows' sweeps do; looking one row ahead, they would stand between two rows
  // (measured slower on 1024x1000 f32 and bf16, softmax and logsoftmax, hot). Longer rows would
  // fetch that row from memory during the sweep: slower (64x30522 cold).
  // Longer softmax rows that pass 2 fetches into L2 (worth_prefetching_rows_to_l2) find the next
  // row's range in their last sweep instead, reading it from L2: its own first sweep is skipped.
  // Not logsoftmax, whose last sweep reads src as well.
  const bool look_ahead = g.chunk >= g.len && g.len * dim_t{sizeof(S)} <= kMaxL1RowBytes;
  const bool look_one_ahead = !log && worth_prefetching_rows_to_l2<A>(g, sizeof(S));
  const dim_t ahead_rows = look_ahead ? 2 : look_one_ahead ? 1 : 0;
  // How a row computes exp(x - max): exp_minus_f32 where its range allows (avx512bw), else
  // exp(x - s) by exp_minus_nearby_f32 (avx2; s near the max: for softmax the factor exp(max - s)
  // cancels in exp / sum, so the exps kept in dst and their sum use it alike; logsoftmax's sum
  // of the non-maximal exps is multiplied by it in f64), else Fast2Sum where max_dominates, else
  // TwoSum (rows that find their min; the others always TwoSum).
  struct exp_choice {
    float max = 0.f;
    std::optional<simd::exp_minus_f32<A>> minus;
    std::optional<simd::exp_minus_nearby_f32<A>> nearby;
    bool dominates = false;
  };
  auto choose = [](float mx, float mn) {
    exp_choice c;
    c.max = mx;
    if constexpr (kWithMin) {
      c.minus = make_exp_minus<A>(mx, mn);
      if (!c.minus) c.nearby = simd::exp_minus_nearby_f32<A>::make(mx, mn);
      c.dominates = !c.minus && !c.nearby && max_dominates(mx, mn);
    }
    return c;
  };
  std::optional<exp_choice> this_choice;  // this row's, made during the previous row
  std::optional<row_range> next;          // the next row's range, found two rows back
  for (dim_t row = begin; row < end; ++row) {
    const dim_t base = k.rows.offset_of(row);
    const S* src = static_cast<const S*>(k.in0) + base;
    D* dst = static_cast<D*>(k.out) + base;
    const S* ahead = ahead_rows > 0 && row + ahead_rows < end
                         ? static_cast<const S*>(k.in0) + k.rows.offset_of(row + ahead_rows)
                         : nullptr;

    // Pass 1: max, and min where finds_row_min (the min only chooses the exp), unless an
    // earlier row found them.
    if (!this_choice) {
      F m0(neg_inf), m1(neg_inf), m2(neg_inf), m3(neg_inf);
      F n0(-neg_inf), n1(-neg_inf), n2(-neg_inf), n3(-neg_inf);
      for_each_run(g, [&](dim_t off, dim_t n) {
        const S* p = src + off;
        dim_t i = 0;
        for (; i + 4 * W <= n; i += 4 * W) {
          const F x0 = simd::load_f32<A>(p + i), x1 = simd::load_f32<A>(p + i + W);
          const F x2 = simd::load_f32<A>(p + i + 2 * W), x3 = simd::load_f32<A>(p + i + 3 * W);
          m0 = xsimd::max(x0, m0);
          m1 = xsimd::max(x1, m1);
          m2 = xsimd::max(x2, m2);
          m3 = xsimd::max(x3, m3);
          if constexpr (kWithMin) {
            n0 = xsimd::min(x0, n0);
            n1 = xsimd::min(x1, n1);
            n2 = xsimd::min(x2, n2);
            n3 = xsimd::min(x3, n3);
          }
        }
        for (; i + W <= n; i += W) {
          const F x = simd::load_f32<A>(p + i);
          m0 = xsimd::max(x, m0);
          if constexpr (kWithMin) n0 = xsimd::min(x, n0);
        }
        if (i < n) {
          m0 = xsimd::max(load_partial<A>(p + i, static_cast<int>(n - i), neg_inf), m0);
          if constexpr (kWithMin) {
            n0 = xsimd::min(load_partial<A>(p + i, static_cast<int>(n - i), -neg_inf), n0);
          }
        }
      });
      const float mx = simd::reduce_max<A>(xsimd::max(xsimd::max(m0, m1), xsimd::max(m2, m3)));
      const F mn = xsimd::min(xsimd::min(n0, n1), xsimd::min(n2, n3));
      this_choice = choose(mx, kWithMin ? -simd::reduce_max<A>(-mn) : 0.f);
    }
    const float mx = this_choice->max;
    const F m(mx);

    if (mx == neg_inf && k.alg == softmax_alg::softmax_inf_as_zero) {
      for_each_run(g, [&](dim_t off, dim_t n) {
        D* q = dst + off;
        dim_t i = 0;
        for (; i + W <= n; i += W) simd::store_f32(q + i, F(0.f));
        if (i < n) simd::store_f32(q + i, F(0.f), static_cast<int>(n - i));
      });
      this_choice.reset();
      next.reset();
      continue;
    }

    // Pass 2: sum of exp(x - max).
    split_sum<A> k0;
    // Other destination types keep the exps of a single-run row in a per-thread f32 row instead
    // of computing them twice.
    float* ex = nullptr;
    if constexpr (!kKeepExp) {
      if (!log && g.chunk >= g.len && g.len <= (dim_t{1} << 20)) {
        thread_local std::vector<float> scratch;
        if (static_cast<dim_t>(scratch.size()) < g.len) scratch.resize(static_cast<size_t>(g.len));
        ex = scratch.data();
      }
    }
    // Pass 2 is compute-bound: it fetches into L1 meanwhile the row the last sweep will read (two
    // ahead; else the next row), so that sweep does not wait on L2/L3. Only for single-run rows
    // that fit L1 with this one; longer ones up to kMaxL2RowBytes fetch the next row into L2
    // (worth_prefetching_rows_to_l2), and its dst too: the stores of the next row's sweeps
    // (softmax's exps here, logsoftmax's last sweep) then find their lines in L2 instead of
    // each waiting for a read for ownership from L3 or DRAM. For rows that fit L1 the dst
    // prefetch measured slower (softmax 1024x1000 and nhwc, cold).
    const char* next_row = nullptr;
    const char* next_dst = nullptr;
    const bool next_row_to_l2 = worth_prefetching_rows_to_l2<A>(g, sizeof(S));
    if (row + 1 < end && (next_row_to_l2 || worth_prefetching_rows(g, sizeof(S)))) {
      next_row = ahead != nullptr ? reinterpret_cast<const char*>(ahead)
                                  : reinterpret_cast<const char*>(static_cast<const S*>(k.in0) +
                                                                  k.rows.offset_of(row + 1));
      if (next_row_to_l2) {
        next_dst = reinterpret_cast<const char*>(static_cast<const D*>(k.out) +
                                                 k.rows.offset_of(row + 1));
      }
    }
    // logsoftmax's pass 2 writes nothing, so its last sweep's stores would each wait for a read
    // for ownership: rows that fit L1 fetch their own dst lines meanwhile, as the pairs do
    // (forward_row_pair). Longer rows have theirs in L2 from the previous row's pass 2.
    // Faster cold on AVX2 Zen 3 (logsoftmax 1024x1000, 1 and 2 threads), level hot.
    const bool fetch_own_dst = log && look_ahead;
    // exp_of(x) = exp(x - max), by the cheapest method the row's range allows.
    auto sum_exps_of = [&](auto&& exp_of, auto log_tag) {
      constexpr bool kLog = decltype(log_tag)::value;
      for_each_run(g, [&](dim_t off, dim_t n) {
        const S* p = src + off;
        D* q = dst + off;
        dim_t i = 0;
        for (; i + 4 * W <= n; i += 4 * W) {
          if (next_row) {
            for (int b = 0; b < 4 * W * int{sizeof(S)}; b += 64) {
              if (next_row_to_l2) __builtin_prefetch(next_row + i * dim_t{sizeof(S)} + b, 0, 2);
              else __builtin_prefetch(next_row + i * dim_t{sizeof(S)} + b, 0, 3);
            }
            if (next_dst) {
              for (int b = 0; b < 4 * W * int{sizeof(D)}; b += 64) {
                __builtin_prefetch(next_dst + i * dim_t{sizeof(D)} + b, 0, 2);
              }
            }
          }
          if constexpr (kLog) {
            if (fetch_own_dst) {
              for (int b = 0; b < 4 * W * int{sizeof(D)}; b += 64) {
                __builtin_prefetch(reinterpret_cast<const char*>(q + i) + b, 1, 3);
              }
            }
          }
          F x[4], e[4];
          for (int j = 0; j < 4; ++j) x[j] = simd::load_f32<A>(p + i + j * W);
          for (int j = 0; j < 4; ++j) e[j] = exp_of(x[j]);
          if constexpr (kLog) {
            k0.add4(x, m, e);
          } else {
            k0.rest.add((e[0] + e[1]) + (e[2] + e[3]));
          }
          if constexpr (kKeepExp) {
            if (!kLog) {
              for (int j = 0; j < 4; ++j) simd::store_f32(q + i + j * W, e[j]);
            }
          } else if (ex) {
            for (int j = 0; j < 4; ++j) e[j].store_unaligned(ex + i + j * W);
          }
        }
        for (; i < n; i += W) {
          const int rest = static_cast<int>(std::min<dim_t>(W, n - i));
          F x = rest == W ? simd::load_f32<A>(p + i) : load_partial<A>(p + i, rest, m);
          F e = exp_of(x);
          // Lanes past the row hold the max (load_partial); their exps are replaced by 0.
          if (rest != W) {
            const auto inside = lane_index<A>() < F(static_cast<float>(rest));
            e = ::tessera::simd::select(inside, e, F(0.f));
            // NaN is not a max.
            x = ::tessera::simd::select(inside, x, F(std::numeric_limits<float>::quiet_NaN()));
          }
          if constexpr (kLog) k0.add(x, m, e);
          else k0.rest.add(e);
          if constexpr (kKeepExp) {
            if (!kLog) {
              if (rest == W) simd::store_f32(q + i, e);
              else simd::store_f32(q + i, e, rest);
            }
          } else if (ex) {
            if (rest == W) e.store_unaligned(ex + i);
            else simd::store_f32(ex + i, e, rest);
          }
        }
      });
    };
    // The algorithm as a compile-time flag: one loop holding both sums spilled the exp's
    // constants to the stack.
    auto sum_exps = [&](auto&& exp_of) {
      if (log) sum_exps_of(exp_of, std::true_type{});
      else sum_exps_of(exp_of, std::false_type{});
    };
    auto two_sum = [&](F x) { return exp_diff<A>(x, m); };
    double to_max = 1;  // the exps' factor to exp(x - max)
    if constexpr (kWithMin) {
      if (const auto& exp_minus = this_choice->minus) {
        sum_exps([&](F x) { return (*exp_minus)(x); });
      } else if (const auto& nearby = this_choice->nearby; nearby && (log || kKeepExp || ex)) {
        sum_exps([&](F x) { return (*nearby)(x); });
        to_max = nearby->to_c();
      } else if (this_choice->dominates) {
        sum_exps([&](F x) { return exp_diff_max_dominates<A>(x, m); });
      } else {
        sum_exps(two_sum);
      }
    } else {
      sum_exps(two_sum);
    }
    row_total total = reduce<A>(k0);
    if (log) total.rest *= to_max;  // softmax's exps and sum share the factor
    // The next row's exp, chosen before the last sweep so that it is ready when that sweep ends.
    std::optional<exp_choice> next_choice;
    if (next) next_choice = choose(next->max, next->min);

    // Pass 3: normalise.
    row_range found{neg_inf, -neg_inf};
    const F l(log ? static_cast<float>(total.log_sum()) : 0.f);
    const F inv(log ? 0.f : static_cast<float>(1.0 / total.sum()));
    for_each_run(g, [&](dim_t off, dim_t n) {
      const S* p = src + off;
      D* q = dst + off;
      if (log) {
        found = last_sweep<A, kWithMin>(q, n, ahead, [&](dim_t i, int lanes) {
          return log_diff<A>(load_lanes<A>(p + i, lanes), m, l);
        });
      } else if (kKeepExp) {
        found = last_sweep<A, kWithMin>(q, n, ahead, [&](dim_t i, int lanes) {
          return load_lanes<A>(q + i, lanes) * inv;
        });
      } else if (ex) {
        found = last_sweep<A, kWithMin>(q, n, ahead, [&](dim_t i, int lanes) {
          return load_lanes<A>(ex + i, lanes) * inv;
        });
      } else {
        found = last_sweep<A, kWithMin>(q, n, ahead, [&](dim_t i, int lanes) {
          return exp_diff<A>(load_lanes<A>(p + i, lanes, m), m) * inv;
        });
      }
    });
    if (ahead_rows == 1) {
      this_choice = ahead != nullptr ? std::optional<exp_choice>(choose(found.max, found.min))
                                     : std::nullopt;
    } else {
      this_choice = next_choice;
      next = ahead != nullptr ? std::optional<row_range>(found) : std::nullopt;
    }
  }
}

// Whether rows of k find their min as well as their max (to choose their exp). On avx2, rows of
// every length do: their min lets them take exp_minus_nearby_f32, which saves more than the
// pairs of short rows gain without it (8192x128, softmax and logsoftmax, hot and cold); the pairs
// find it too (forward_row_pair).
template <class A>
bool finds_row_min(const kernel_args& k) {
  return k.dense.len >= kMinRangeRow || std::is_same_v<A, xsimd::avx2>;
}

template <class A, class S, class D>
void forward_dense(const kernel_args& k, dim_t begin, dim_t end) {
  if (finds_row_min<A>(k)) forward_dense_rows<A, S, D, true>(k, begin, end);
  else forward_dense_rows<A, S, D, false>(k, begin, end);
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_DENSE_H_
