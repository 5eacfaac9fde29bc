// Forward f32 softmax / logsoftmax of two short single-run rows at once (forward_row_pair). Part
// of the per-ISA kernels: include only from vector_kernels_impl.h (through forward_dense.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ROW_PAIR_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ROW_PAIR_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/exp_nearby.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/forward_last_sweep.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

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

// The two rows of one forward_row_pair call and the steps over them. Every step is forced inline
// (faster on 8192x128 softmax, 1 thread, hot; the attribute on three of them alone gains
// nothing).
template <class A, bool kLog>
struct row_pair {
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  static constexpr bool kNearby = std::is_same_v<A, xsimd::avx2>;

  dim_t n;
  bool look_ahead;
  const float* src[2];
  float* dst[2];
  const float* ahead[2] = {nullptr, nullptr};
  F m[2];
  // Outside the object: make() may write it through a pointer, which would otherwise keep every
  // member in memory.
  std::optional<exp_minus_nearby_f32<A>> (&nearby)[2];
  split_sum<A> sums[2];
  F scale[2];

  [[gnu::always_inline]] row_pair(const kernel_args& k, dim_t row, bool look,
                                  std::optional<exp_minus_nearby_f32<A>> (&exps)[2])
      : n(k.dense.len), look_ahead(look), nearby(exps) {
    for (int r = 0; r < 2; ++r) {
      const dim_t base = k.rows.offset_of(row + r);
      src[r] = static_cast<const float*>(k.in0) + base;
      dst[r] = static_cast<float*>(k.out) + base;
      if (look_ahead) ahead[r] = static_cast<const float*>(k.in0) + k.rows.offset_of(row + 2 + r);
    }
  }

  // Row maxima (exact in any order) of the rows at p[0] and p[1], two accumulators each, and
  // minima where kNearby; between(i, lanes) runs before each step.
  template <class Between>
  [[gnu::always_inline]] pair_ranges maxima(const float* const* p, Between&& between) const {
    const float neg_inf = -std::numeric_limits<float>::infinity();
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
  }

  // The rows' maxima and, where kNearby, their exps; false when either row's range does not
  // allow exp_minus_nearby_f32.
  [[gnu::always_inline]] bool take_ranges(const pair_ranges& given) {
    for (int r = 0; r < 2; ++r) m[r] = F(given.max[r]);
    if constexpr (kNearby) {
      for (int r = 0; r < 2; ++r) {
        nearby[r] = exp_minus_nearby_f32<A>::make(given.max[r], given.min[r]);
        if (!nearby[r]) return false;
      }
    }
    return true;
  }

  // Four vectors of row r from i: exp_of(r, x), summed; softmax keeps the exps in dst.
  template <class ExpOf>
  [[gnu::always_inline]] void full_step(ExpOf&& exp_of, int r, dim_t i) {
    F x[4], e[4];
    for (int j = 0; j < 4; ++j) x[j] = simd::load_f32<A>(src[r] + i + j * W);
    for (int j = 0; j < 4; ++j) e[j] = exp_of(r, x[j]);
    if (kLog) {
      sums[r].add4(x, m[r], e);
    } else {
      sums[r].rest.add((e[0] + e[1]) + (e[2] + e[3]));
      for (int j = 0; j < 4; ++j) simd::store_f32(dst[r] + i + j * W, e[j]);
    }
  }

  // One vector (rest lanes) of row r from i, as full_step.
  template <class ExpOf>
  [[gnu::always_inline]] void step(ExpOf&& exp_of, int r, dim_t i, int rest) {
    F x = rest == W ? simd::load_f32<A>(src[r] + i) : load_partial<A>(src[r] + i, rest, m[r]);
    F e = exp_of(r, x);
    if (rest != W) {
      const auto inside = lane_index<A>() < F(static_cast<float>(rest));
      e = ::tessera::simd::select(inside, e, F(0.f));
      x = ::tessera::simd::select(inside, x, F(std::numeric_limits<float>::quiet_NaN()));
    }
    if (kLog) {
      sums[r].add(x, m[r], e);
    } else {
      sums[r].rest.add(e);
      if (rest == W) simd::store_f32(dst[r] + i, e);
      else simd::store_f32(dst[r] + i, e, rest);
    }
  }

  // Pass 2 is compute-bound: it fetches the lines the last sweep will wait on meanwhile, the
  // next pair's src (read there for its maxima) and, for logsoftmax (whose pass 2 writes
  // nothing), the pair's dst.
  [[gnu::always_inline]] void fetch(dim_t i) const {
    for (int r = 0; r < 2; ++r) {
      for (int b = 0; b < 4 * W * int{sizeof(float)}; b += 64) {
        if (look_ahead) __builtin_prefetch(reinterpret_cast<const char*>(ahead[r] + i) + b, 0, 3);
        if (kLog) __builtin_prefetch(reinterpret_cast<const char*>(dst[r] + i) + b, 1, 3);
      }
    }
  }

  // Pass 2: sum of exp(x - max), as forward_dense_rows sums it. exp_of(r, x): row r's
  // exp(x - max), or exp(x - s) (nearby).
  template <class ExpOf>
  [[gnu::always_inline]] void sum_exps(ExpOf&& exp_of) {
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
  }

  // Each row's 1 / sum (softmax) or log(sum) (logsoftmax).
  [[gnu::always_inline]] void find_scales() {
    for (int r = 0; r < 2; ++r) {
      row_total total = reduce<A>(sums[r]);
      // softmax's exps and sum share the factor exp(max - s); logsoftmax's sum needs it.
      if constexpr (kNearby) {
        if (kLog) total.rest *= nearby[r]->to_c();
      }
      scale[r] = kLog ? F(static_cast<float>(total.log_sum()))
                      : F(static_cast<float>(1.0 / total.sum()));
    }
  }

  // Pass 3 at `at` (lanes of it), both rows: the store-bound last sweep's step.
  [[gnu::always_inline]] void store(dim_t at, int lanes) {
    for (int r = 0; r < 2; ++r) {
      const F y = kLog ? log_diff<A>(load_lanes<A>(src[r] + at, lanes), m[r], scale[r])
                       : load_lanes<A>(dst[r] + at, lanes) * scale[r];
      if (lanes == W) simd::store_f32(dst[r] + at, y);
      else simd::store_f32(dst[r] + at, y, lanes);
    }
  }
};

// Two short rows at once (f32 softmax and logsoftmax, single-run rows shorter than
// kMinRangeRow). A row's steps are one chain of dependencies
// (max, its reduction across lanes, the exps, the f64 sum and its reduction, the division, the
// scaling), and a 128-element row has too little work between them for the out-of-order window
// to overlap the next row's chain: a row of 8192x128 takes much longer than 128 elements of
// 1024x1000. Two rows' chains run side by side here. Each row gets exactly dense_row_walk's
// operations in its order (the same grouping of the sum), so the results are the same bits.
// Rows row and row + 1; `given`: their ranges if known. With look_ahead (rows row + 2 and
// row + 3 exist), the last sweep also finds those rows' ranges and returns them (as
// last_sweep does for one row).
// On avx2 the pair finds its rows' minima too and takes exp_minus_nearby_f32 for both rows, as
// dense_row_walk does for one row (same operations in the same order, so the same bits);
// where either row's range does not allow it, the pair declines after its first sweep (`paired`
// false, nothing written) and the caller runs both rows one at a time, so every row gets the
// exp it would get alone. One row at a time, 8192x128 spends about half its time on the chain
// between rows.
// kLog: the algorithm as a compile-time flag, as dense_row_walk's sum_exps has it. As a run-time
// flag its test would stand in every step of the exp loop (measured slower on Intel, 8192x128,
// softmax and logsoftmax).
template <class A, bool kLog>
[[gnu::always_inline]] inline pair_ranges forward_row_pair(const kernel_args& k, dim_t row, pair_ranges given,
                             bool look_ahead, bool& paired) {
  using F = vf<A>;
  std::optional<exp_minus_nearby_f32<A>> exps[2];
  row_pair<A, kLog> pair(k, row, look_ahead, exps);
  // Pass 1: max, unless the previous pair's last sweep found it.
  if (!given.known) given = pair.maxima(pair.src, [](dim_t, int) __attribute__((always_inline)) {});
  paired = pair.take_ranges(given);
  if (!paired) return {};
  if constexpr (row_pair<A, kLog>::kNearby) {
    pair.sum_exps([&](int r, F x) __attribute__((always_inline)) { return (*pair.nearby[r])(x); });
  } else {
    pair.sum_exps(
        [&](int r, F x) __attribute__((always_inline)) { return exp_diff<A>(x, pair.m[r]); });
  }
  // Pass 3: normalise; the next pair's maxima alongside it when looking ahead.
  pair.find_scales();
  auto store = [&](dim_t at, int lanes) __attribute__((always_inline)) { pair.store(at, lanes); };
  if (look_ahead) return pair.maxima(pair.ahead, store);
  for (dim_t i = 0; i < pair.n; i += kWidth<A>) {
    pair.store(i, static_cast<int>(std::min<dim_t>(kWidth<A>, pair.n - i)));
  }
  return {};
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_ROW_PAIR_H_
