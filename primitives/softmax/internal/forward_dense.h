// Forward softmax / logsoftmax along a dense axis (the axis innermost in memory, possibly in
// chunks: nChw16c along C): the row driver, forward_dense_rows, which hands rows to the row
// kernels (forward_four_rows.h, forward_row_pair.h, forward_short_rows.h) or runs them one at a
// time (forward_one_row.h), carrying the look-ahead state from row to row. Part of the per-ISA
// kernels: include only from vector_kernels_impl.h.
//
// Memory: each row is read from memory once; the second and third passes over the row hit the
// cache for every row shorter than the L2 (1000 f32 = 4 KB, 30522 f32 = 120 KB).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_DENSE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_DENSE_H_

#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/forward_four_rows.h"
#include "tessera/primitives/softmax/internal/forward_last_sweep.h"
#include "tessera/primitives/softmax/internal/forward_one_row.h"
#include "tessera/primitives/softmax/internal/forward_row_pair.h"
#include "tessera/primitives/softmax/internal/forward_short_rows.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// Rows of one run up to 16 KB (in L1 with their dst) find the max and min of the row after
// next in their last sweep (last_sweep), and choose the next row's exp before that sweep. So
// the steps between a row's range and its exp sweep (the reductions across lanes, the choice)
// run while other rows' sweeps do; looking one row ahead, they would stand between two rows
// (measured slower on 1024x1000 f32 and bf16, softmax and logsoftmax, hot). Longer rows would
// fetch that row from memory during the sweep: slower (64x30522 cold).
// Longer softmax rows that pass 2 fetches into L2 (worth_prefetching_rows_to_l2) find the next
// row's range in their last sweep instead, reading it from L2: its own first sweep is skipped.
// Not logsoftmax, whose last sweep reads src as well.
//
// What one row leaves to the rows after it: `ahead_rows` (0, 1 or 2) says which row its last
// sweep reads the range of.
template <class A>
struct look_ahead_state {
  dim_t ahead_rows = 0;
  std::optional<exp_choice<A>> this_choice;  // this row's, made during the previous row
  std::optional<row_range> next;              // the next row's range, found two rows back

  // After a row whose last sweep read `found` from its `ahead` row (nullptr: none), and
  // `next_choice`, the exp chosen for the next row before that sweep.
  template <bool kWithMin>
  void advance(const void* ahead, const row_range& found, std::optional<exp_choice<A>> next_choice) {
    if (ahead_rows == 1) {
      this_choice = ahead != nullptr
                        ? std::optional<exp_choice<A>>(choose_exp<A, kWithMin>(found.max, found.min))
                        : std::nullopt;
    } else {
      this_choice = next_choice;
      next = ahead != nullptr ? std::optional<row_range>(found) : std::nullopt;
    }
  }
  // After a row that read nothing ahead (softmax_inf_as_zero's zero row).
  void forget() {
    this_choice.reset();
    next.reset();
  }
};

// The rows [begin, end) one at a time, three passes each (forward_one_row.h).
template <class A, class S, class D, bool kWithMin>
struct dense_row_walk {
  const kernel_args& k;
  const dense_geometry& g;
  bool log;
  bool look_ahead;  // single-run rows that fit L1: the last sweep reads the row after next
  look_ahead_state<A> state;

  explicit dense_row_walk(const kernel_args& args)
      : k(args), g(args.dense), log(args.alg == softmax_alg::logsoftmax) {
    look_ahead = g.chunk >= g.len && g.len * dim_t{sizeof(S)} <= kMaxL1RowBytes;
    const bool look_one_ahead = !log && worth_prefetching_rows_to_l2<A>(g, sizeof(S));
    state.ahead_rows = look_ahead ? 2 : look_one_ahead ? 1 : 0;
  }

  const S* src_of(dim_t row) const { return static_cast<const S*>(k.in0) + k.rows.offset_of(row); }
  D* dst_of(dim_t row) const { return static_cast<D*>(k.out) + k.rows.offset_of(row); }

  // Pass 2 is compute-bound: it fetches into L1 meanwhile the row the last sweep will read (two
  // ahead; else the next row), so that sweep does not wait on L2/L3. Only for single-run rows
  // that fit L1 with this one; longer ones up to kMaxL2RowBytes fetch the next row into L2
  // (worth_prefetching_rows_to_l2), and its dst too: the stores of the next row's sweeps
  // (softmax's exps here, logsoftmax's last sweep) then find their lines in L2 instead of
  // each waiting for a read for ownership from L3 or DRAM. For rows that fit L1 the dst
  // prefetch measured slower (softmax 1024x1000 and nhwc, cold).
  // logsoftmax's pass 2 writes nothing, so its last sweep's stores would each wait for a read
  // for ownership: rows that fit L1 fetch their own dst lines meanwhile, as the pairs do
  // (forward_row_pair). Longer rows have theirs in L2 from the previous row's pass 2.
  // Faster cold on AVX2 Zen 3 (logsoftmax 1024x1000, 1 and 2 threads), level hot.
  [[gnu::always_inline]] void plan_fetches(row_exps<A, S, D>& pass, dim_t row, dim_t end,
                                           const S* ahead) const {
    pass.next_row_to_l2 = worth_prefetching_rows_to_l2<A>(g, sizeof(S));
    if (row + 1 < end && (pass.next_row_to_l2 || worth_prefetching_rows(g, sizeof(S)))) {
      pass.next_row = ahead != nullptr ? reinterpret_cast<const char*>(ahead)
                                       : reinterpret_cast<const char*>(src_of(row + 1));
      if (pass.next_row_to_l2) pass.next_dst = reinterpret_cast<const char*>(dst_of(row + 1));
    }
    pass.fetch_own_dst = log && look_ahead;
  }

  [[gnu::always_inline]] void run_row(dim_t row, dim_t end) {
    const S* src = src_of(row);
    D* dst = dst_of(row);
    const dim_t ahead_rows = state.ahead_rows;
    const S* ahead = ahead_rows > 0 && row + ahead_rows < end ? src_of(row + ahead_rows) : nullptr;

    // Pass 1, unless an earlier row found this one's range.
    if (!state.this_choice) {
      const row_range range = find_row_range<A, kWithMin>(g, src);
      state.this_choice = choose_exp<A, kWithMin>(range.max, range.min);
    }
    const float mx = state.this_choice->max;
    if (mx == -std::numeric_limits<float>::infinity() &&
        k.alg == softmax_alg::softmax_inf_as_zero) {
      store_zero_row<A>(g, dst);
      state.forget();
      return;
    }

    // Pass 2: sum of exp(x - max).
    row_exps<A, S, D> pass{g, src, dst, vf<A>(mx)};
    pass.keep_exps_aside(log);
    plan_fetches(pass, row, end, ahead);
    const double to_max = pass.template sum_by_choice<kWithMin>(*state.this_choice, log);
    row_total total = reduce<A>(pass.k0);
    if (log) total.rest *= to_max;  // softmax's exps and sum share the factor
    // The next row's exp, chosen before the last sweep so that it is ready when that sweep ends.
    std::optional<exp_choice<A>> next_choice;
    if (state.next) next_choice = choose_exp<A, kWithMin>(state.next->max, state.next->min);

    // Pass 3: normalise.
    const row_range found =
        normalise_row<A, kWithMin>(g, src, dst, ahead, pass.ex, pass.m, total, log, k.out_scale);
    state.template advance<kWithMin>(ahead, found, next_choice);
  }
};

// kPairs: short rows go in pairs (forward_row_pair); false for the rows of a pair that declined.
template <class A, class S, class D, bool kWithMin, bool kPairs = true>
void forward_dense_rows(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  const dense_geometry& g = k.dense;
  const bool log = k.alg == softmax_alg::logsoftmax;
  constexpr bool kKeepExp = std::is_same_v<D, float>;

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
      with_short_row_vectors<A>(g, [&](auto nv) __attribute__((always_inline)) {
        forward_short_rows<A, S, D, decltype(nv)::value>(k, begin, end);
      });
      return;
    }
  }
  dense_row_walk<A, S, D, kWithMin> walk(k);
  for (dim_t row = begin; row < end; ++row) walk.run_row(row, end);
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
