// The steps of the one-row forward softmax / logsoftmax along a dense axis, which
// forward_dense_rows (forward_dense.h) runs row after row: the row's range (pass 1), the choice of
// its exp, the sum of its exps (pass 2) and the normalising last sweep (pass 3). Part of the
// per-ISA kernels: include only from vector_kernels_impl.h (through forward_dense.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ONE_ROW_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ONE_ROW_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/exp_minus.h"
#include "tessera/primitives/softmax/internal/exp_nearby.h"
#include "tessera/primitives/softmax/internal/forward_last_sweep.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/unroll.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// How a row computes exp(x - max): exp_minus_f32 where its range allows (avx512bw), else
// exp(x - s) by exp_minus_nearby_f32 (avx2; s near the max: for softmax the factor exp(max - s)
// cancels in exp / sum, so the exps kept in dst and their sum use it alike; logsoftmax's sum
// of the non-maximal exps is multiplied by it in f64), else Fast2Sum where max_dominates, else
// TwoSum (rows that find their min; the others always TwoSum).
template <class A>
struct exp_choice {
  float max = 0.f;
  std::optional<exp_minus_f32<A>> minus;
  std::optional<exp_minus_nearby_f32<A>> nearby;
  bool dominates = false;
};

template <class A, bool kWithMin>
[[gnu::always_inline]] inline exp_choice<A> choose_exp(float mx, float mn) {
  exp_choice<A> c;
  c.max = mx;
  if constexpr (kWithMin) {
    c.minus = make_exp_minus<A>(mx, mn);
    if (!c.minus) c.nearby = exp_minus_nearby_f32<A>::make(mx, mn);
    c.dominates = !c.minus && !c.nearby && max_dominates(mx, mn);
  }
  return c;
}

// Pass 1: the row's max, and its min when kWithMin (the min only chooses the exp; 0 without).
template <class A, bool kWithMin, class S>
[[gnu::always_inline]] inline row_range find_row_range(const dense_geometry& g, const S* src) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  F m0(neg_inf), m1(neg_inf), m2(neg_inf), m3(neg_inf);
  F n0(-neg_inf), n1(-neg_inf), n2(-neg_inf), n3(-neg_inf);
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
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
  return {mx, kWithMin ? -simd::reduce_max<A>(-mn) : 0.f};
}

// softmax_inf_as_zero's row of -Inf: zeros.
template <class A, class D>
[[gnu::always_inline]] inline void store_zero_row(const dense_geometry& g, D* dst) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    D* q = dst + off;
    dim_t i = 0;
    for (; i + W <= n; i += W) simd::store_f32(q + i, F(0.f));
    if (i < n) simd::store_f32(q + i, F(0.f), static_cast<int>(n - i));
  });
}

// Pass 2 of one row: the sum of its exps (split_sum: maxima counted apart), f32 softmax keeping
// the exps in dst, other softmax outputs of single-run rows in a per-thread f32 row (`ex`), and
// the prefetches of the lines later sweeps will wait on.
template <class A, class S, class D>
struct row_exps {
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  // f32 softmax keeps exp(x - max) in dst between passes 2 and 3; other types recompute it.
  static constexpr bool kKeepExp = std::is_same_v<D, float>;

  const dense_geometry& g;
  const S* src;
  D* dst;
  F m;
  split_sum<A> k0;
  float* ex = nullptr;
  const char* next_row = nullptr;
  const char* next_dst = nullptr;
  bool next_row_to_l2 = false;
  bool fetch_own_dst = false;

  // Other destination types keep the exps of a single-run row in a per-thread f32 row instead
  // of computing them twice.
  [[gnu::always_inline]] void keep_exps_aside(bool log) {
    if constexpr (!kKeepExp) {
      if (!log && g.chunk >= g.len && g.len <= (dim_t{1} << 20)) {
        thread_local std::vector<float> scratch;
        if (static_cast<dim_t>(scratch.size()) < g.len) scratch.resize(static_cast<size_t>(g.len));
        ex = scratch.data();
      }
    }
  }

  // The prefetches of one step of four vectors at i (see forward_dense_rows).
  template <bool kLog>
  [[gnu::always_inline]] void fetch(dim_t i, const D* q) const {
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
  }

  // Four whole vectors of the run p / q from i.
  template <bool kLog, class ExpOf>
  [[gnu::always_inline]] void full_step(ExpOf& exp_of, const S* p, D* q, dim_t i) {
    F x[4], e[4];
    for (int j = 0; j < 4; ++j) x[j] = simd::load_f32<A>(p + i + j * W);
    TESSERA_UNROLL_FULL
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

  // One vector (rest lanes) of the run p / q from i.
  template <bool kLog, class ExpOf>
  [[gnu::always_inline]] void step(ExpOf& exp_of, const S* p, D* q, dim_t i, int rest) {
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

  // exp_of(x) = exp(x - max), by the cheapest method the row's range allows.
  template <bool kLog, class ExpOf>
  [[gnu::always_inline]] void sum_exps_of(ExpOf&& exp_of) {
    for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
      const S* p = src + off;
      D* q = dst + off;
      dim_t i = 0;
      for (; i + 4 * W <= n; i += 4 * W) {
        fetch<kLog>(i, q);
        full_step<kLog>(exp_of, p, q, i);
      }
      for (; i < n; i += W) step<kLog>(exp_of, p, q, i, static_cast<int>(std::min<dim_t>(W, n - i)));
    });
  }

  // The algorithm as a compile-time flag: one loop holding both sums spilled the exp's
  // constants to the stack.
  template <class ExpOf>
  [[gnu::always_inline]] void sum_exps(bool log, ExpOf&& exp_of) {
    if (log) sum_exps_of<true>(exp_of);
    else sum_exps_of<false>(exp_of);
  }

  // The sum by the row's chosen exp; returns the exps' factor to exp(x - max).
  template <bool kWithMin>
  [[gnu::always_inline]] double sum_by_choice(const exp_choice<A>& choice, bool log) {
    auto two_sum = [&](F x) __attribute__((always_inline)) { return exp_diff<A>(x, m); };
    if constexpr (kWithMin) {
      if (const auto& exp_minus = choice.minus) {
        sum_exps(log, [&](F x) __attribute__((always_inline)) { return (*exp_minus)(x); });
      } else if (const auto& nearby = choice.nearby; nearby && (log || kKeepExp || ex)) {
        sum_exps(log, [&](F x) __attribute__((always_inline)) { return (*nearby)(x); });
        return nearby->to_c();
      } else if (choice.dominates) {
        sum_exps(log, [&](F x) __attribute__((always_inline)) { return exp_diff_max_dominates<A>(x, m); });
      } else {
        sum_exps(log, two_sum);
      }
    } else {
      sum_exps(log, two_sum);
    }
    return 1;
  }
};

// Pass 3 of one row: its results from the exps (kept in dst or `ex`, or recomputed) or, for
// logsoftmax, from x; with `ahead`, last_sweep also returns that row's range.
template <class A, bool kWithMin, class S, class D>
[[gnu::always_inline]] inline row_range normalise_row(const dense_geometry& g, const S* src, D* dst,
                                                      const S* ahead, const float* ex, vf<A> m,
                                                      const row_total& total, bool log,
                                                      float out_scale) {
  using F = vf<A>;
  constexpr bool kKeepExp = std::is_same_v<D, float>;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  row_range found{neg_inf, -neg_inf};
  const F l(log ? static_cast<float>(total.log_sum()) : 0.f);
  const F inv(log ? 0.f : static_cast<float>(1.0 / total.sum()));
  for_each_run(g, [&](dim_t off, dim_t n) __attribute__((always_inline)) {
    const S* p = src + off;
    D* q = dst + off;
    if (log) {
      found = last_sweep<A, kWithMin>(q, n, ahead, out_scale, [&](dim_t i, int lanes) __attribute__((always_inline)) {
        return log_diff<A>(load_lanes<A>(p + i, lanes), m, l);
      });
    } else if (kKeepExp) {
      found = last_sweep<A, kWithMin>(q, n, ahead, out_scale, [&](dim_t i, int lanes) __attribute__((always_inline)) {
        return load_lanes<A>(q + i, lanes) * inv;
      });
    } else if (ex) {
      found = last_sweep<A, kWithMin>(q, n, ahead, out_scale, [&](dim_t i, int lanes) __attribute__((always_inline)) {
        return load_lanes<A>(ex + i, lanes) * inv;
      });
    } else {
      found = last_sweep<A, kWithMin>(q, n, ahead, out_scale, [&](dim_t i, int lanes) __attribute__((always_inline)) {
        return exp_diff<A>(load_lanes<A>(p + i, lanes, m), m) * inv;
      });
    }
  });
  return found;
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ONE_ROW_H_
