// Forward softmax / logsoftmax along a strided axis with fewer lanes than a vector, the axis steps
// back to back (30000x8 along dim 0): several axis positions per vector (forward_interleaved).
// Part of the per-ISA kernels: include only from vector_kernels_impl.h (through forward_strided.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_INTERLEAVED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_INTERLEAVED_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_store.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// When the lanes are fewer than a vector and the axis stride equals them (30000x8 along dim 0),
// the group is one contiguous block in which vector lane i always belongs to row i % lanes:
// sweep it like a dense row and fold the per-lane results over the W / lanes copies.
// A split group (k.split.parts > 0) is cut into contiguous parts of part_len * lanes elements (a
// whole number of vectors: plan.cc makes part_len a multiple of W / lanes), and this call runs
// the current phase on parts [part_begin, part_end): phase 0 stores each part's per-lane max and
// min, phase 1 merges them and stores each part's per-lane sums, phase 2 merges those (in part
// order) and normalises. Each part's sums are folded to lanes before they are merged, so the
// results depend on the parts, not on the threads.
// kLog is a template parameter, as in sweep_lane_vectors: as a run-time flag it leaves a branch
// and the count of maxima in every softmax step of the exp sweep (30000x8, 1 thread, hot: that
// sweep then takes most of the time).
// One interleaved group and the steps over it. The group's steps are forced inline, as the
// lambdas they were: each is called from several places (per exp, whole or split group).
template <class A, bool kLog, class S, class D>
struct interleaved_group {
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  // f32 softmax keeps exp(x - max) in dst between the exp sweep and the normalising one.
  static constexpr bool keep = std::is_same_v<D, float> && !kLog;

  const S* src;
  D* dst;
  int lanes;
  dim_t n;
  bool inf_as_zero;
  const axis_split& split;
  // The exp: a lanes_exp where it accepts every lane's range (the same choice in every part:
  // all merge the same ranges), else exp_diff.
  std::optional<lanes_exp<A>> fast;
  float out_scale = 1.f;  // kernel_args::out_scale (scaled_store.h)

  // Elements [e0, e1) of part p: whole vectors but for the group's tail.
  [[gnu::always_inline]] void part_range(dim_t p, dim_t& e0, dim_t& e1) const {
    if (split.parts == 0) {
      e0 = 0, e1 = n;
      return;
    }
    e0 = p * split.part_len * lanes;
    e1 = std::min(n, (p + 1) * split.part_len * lanes);
  }
  // A per-lane value repeated over a vector's W / lanes copies of the lanes.
  [[gnu::always_inline]] F repeat_lanes(float (&pat)[W]) const {
    for (int i = lanes; i < W; ++i) pat[i] = pat[i % lanes];
    return F::load_aligned(pat);
  }

  // softmax_inf_as_zero settles the all -Inf lanes' max first (settle_all_minus_inf).
  [[gnu::always_inline]] void choose_exp(F& m, F lo) {
    if (inf_as_zero) m = settle_all_minus_inf<A>(m);
    if constexpr (kHasLanesExp<A>) fast = make_lanes_exp<A>(m, lo);
  }
  // f(exp_of) with the chosen exp.
  template <class Fn>
  [[gnu::always_inline]] void with_exp(F m, Fn&& f) const {
    if constexpr (kHasLanesExp<A>) {
      if (fast) return f([&](F x) __attribute__((always_inline)) { return (*fast)(x); });
    }
    return f([&](F x) __attribute__((always_inline)) { return exp_diff<A>(x, m); });
  }

  // Per lane: the max and (where a lanes_exp may be chosen) the min over [e0, e1).
  [[gnu::always_inline]] void range_of(dim_t e0, dim_t e1, float (&max_pat)[W],
                                       float (&min_pat)[W]) const {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    const dim_t full = e1 - (e1 - e0) % W;
    const int tail = static_cast<int>(e1 - full);
    F mv(neg_inf), lv(-neg_inf);
    for (dim_t i = e0; i < full; i += W) {
      const F x = simd::load_f32<A>(src + i);
      mv = xsimd::max(x, mv);
      if constexpr (kHasLanesExp<A>) lv = xsimd::min(x, lv);
    }
    if (tail) {
      mv = xsimd::max(load_partial<A>(src + full, tail, neg_inf), mv);
      if constexpr (kHasLanesExp<A>) {
        lv = xsimd::min(load_partial<A>(src + full, tail, -neg_inf), lv);
      }
    }
    mv.store_aligned(max_pat);
    lv.store_aligned(min_pat);
    for (int j = 0; j < lanes; ++j) {
      for (int c = j + lanes; c < W; c += lanes) {
        max_pat[j] = std::max(max_pat[j], max_pat[c]);
        min_pat[j] = std::min(min_pat[j], min_pat[c]);
      }
    }
  }

  // Per lane: the sum of the exps that are not at the max (times the lanes_exp's to_c) and the
  // count of maxima, over [e0, e1). Four vectors a step, their terms added pairwise in f32 and
  // widened once, as the other sweeps do: one f64 addition per vector made a chain of dependent
  // additions the length of the group.
  template <class ExpOf>
  [[gnu::always_inline]] void sums_of(ExpOf&& exp_of, dim_t e0, dim_t e1, F m,
                                      row_total (&t)[W]) const {
    const dim_t full = e1 - (e1 - e0) % W;
    const int tail = static_cast<int>(e1 - full);
    split_sum<A> acc;
    auto accumulate = [&](F x, F e) __attribute__((always_inline)) {
      if constexpr (kLog) acc.add(x, m, e);
      else acc.rest.add(e);
    };
    auto exps_of = [&](dim_t i, F& x, F& e) __attribute__((always_inline)) {
      x = simd::load_f32<A>(src + i);
      e = exp_of(x);
      if constexpr (keep) simd::store_f32(dst + i, e);
    };
    dim_t i = e0;
    for (; i + 4 * W <= full; i += 4 * W) {
      F x[4], e[4];
      for (int j = 0; j < 4; ++j) exps_of(i + j * W, x[j], e[j]);
      if constexpr (kLog) acc.add4(x, m, e);
      else acc.rest.add((e[0] + e[1]) + (e[2] + e[3]));
    }
    for (; i < full; i += W) {
      F x, e;
      exps_of(i, x, e);
      accumulate(x, e);
    }
    if (tail) {
      const auto inside = lane_index<A>() < F(static_cast<float>(tail));
      const F x = load_partial<A>(src + full, tail, m);  // the max: see load_partial
      const F e = ::tessera::simd::select(inside, exp_of(x), F(0.f));
      accumulate(::tessera::simd::select(inside, x, F(std::numeric_limits<float>::quiet_NaN())), e);
      if constexpr (keep) simd::store_f32(dst + full, e, tail);
    }
    fold_lanes(acc, t);
  }
  // The vector lanes' sums folded to the group's lanes.
  [[gnu::always_inline]] void fold_lanes(const split_sum<A>& acc, row_total (&t)[W]) const {
    double rest[W];
    double count[W];
    acc.rest.lanes(rest);
    acc.count.lanes(count);
    for (int j = 0; j < lanes; ++j) {
      t[j] = {0, 0};
      for (int c = j; c < W; c += lanes) {
        t[j].count += count[c];
        t[j].rest += rest[c];
      }
      if (kLog && fast) t[j].rest *= fast->to_c(j);
    }
  }

  template <class ExpOf>
  [[gnu::always_inline]] void normalise(ExpOf&& exp_of, dim_t e0, dim_t e1, F m, F scale) const {
    const dim_t full = e1 - (e1 - e0) % W;
    const int tail = static_cast<int>(e1 - full);
    auto finish = [&](F x) __attribute__((always_inline)) {
      if constexpr (kLog) return log_diff<A>(x, m, scale);
      else if constexpr (keep) return x * scale;
      else return exp_of(x) * scale;
    };
    // keep: the exps, in dst; otherwise src.
    const auto* in = [&]() __attribute__((always_inline)) {
      if constexpr (keep) return dst;
      else return src;
    }();
    for (dim_t i = e0; i < full; i += W) {
      store_result<S>(dst + i, finish(simd::load_f32<A>(in + i)), out_scale);
    }
    if (tail) store_result<S>(dst + full, finish(load_partial<A>(in + full, tail, m)), out_scale, tail);
  }
  [[gnu::always_inline]] F scale_of(const row_total (&t)[W]) const {
    alignas(64) float pat[W];
    for (int j = 0; j < lanes; ++j) {
      pat[j] = static_cast<float>(kLog ? t[j].log_sum() : inverse_sum(t[j].sum()));
    }
    return repeat_lanes(pat);
  }

  // A whole group: the three sweeps.
  [[gnu::always_inline]] void run_whole() {
    alignas(64) float max_pat[W], min_pat[W];
    range_of(0, n, max_pat, min_pat);
    F m = repeat_lanes(max_pat);
    choose_exp(m, repeat_lanes(min_pat));
    row_total t[W];
    with_exp(m, [&](auto&& exp_of) __attribute__((always_inline)) { sums_of(exp_of, 0, n, m, t); });
    const F scale = scale_of(t);
    with_exp(m, [&](auto&& exp_of) __attribute__((always_inline)) { normalise(exp_of, 0, n, m, scale); });
  }

  // A split group's phase on parts [part_begin, part_end) (see forward_interleaved).
  [[gnu::always_inline]] void run_phase(dim_t part_begin, dim_t part_end) {
    alignas(64) float max_pat[W], min_pat[W];
    dim_t e0, e1;
    if (split.phase == 0) {
      for (dim_t p = part_begin; p < part_end; ++p) {
        part_range(p, e0, e1);
        range_of(e0, e1, max_pat, min_pat);
        std::copy_n(max_pat, lanes, split.max + p * lanes);
        std::copy_n(min_pat, lanes, split.min + p * lanes);
      }
      return;
    }
    const float neg_inf = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < lanes; ++j) {
      max_pat[j] = neg_inf;
      min_pat[j] = -neg_inf;
      for (dim_t q = 0; q < split.parts; ++q) {
        max_pat[j] = std::max(max_pat[j], split.max[q * lanes + j]);
        min_pat[j] = std::min(min_pat[j], split.min[q * lanes + j]);
      }
    }
    F m = repeat_lanes(max_pat);
    choose_exp(m, repeat_lanes(min_pat));
    if (split.phase == 1) {
      store_part_sums(part_begin, part_end, m);
      return;
    }
    normalise_parts(part_begin, part_end, m);
  }
  // Phase 1, parts in reverse order: phase 0 left the last parts' src in L2, and phase 2, going
  // forward, then finds the first parts' src and dst there (a group larger than L2 otherwise
  // evicts each part's lines just before the next phase reads them).
  [[gnu::always_inline]] void store_part_sums(dim_t part_begin, dim_t part_end, F m) {
    dim_t e0, e1;
    for (dim_t p = part_end; p-- > part_begin;) {
      part_range(p, e0, e1);
      row_total t[W];
      with_exp(m, [&](auto&& exp_of) __attribute__((always_inline)) { sums_of(exp_of, e0, e1, m, t); });
      for (int j = 0; j < lanes; ++j) {
        split.rest[p * lanes + j] = t[j].rest;
        split.count[p * lanes + j] = t[j].count;
      }
    }
  }
  // Phase 2: every part's sums merged in part order, then the call's parts normalised.
  [[gnu::always_inline]] void normalise_parts(dim_t part_begin, dim_t part_end, F m) {
    row_total t[W];
    for (int j = 0; j < lanes; ++j) {
      t[j] = {0, 0};
      for (dim_t q = 0; q < split.parts; ++q) {
        t[j].rest += split.rest[q * lanes + j];
        t[j].count += split.count[q * lanes + j];
      }
    }
    const F scale = scale_of(t);
    dim_t e0, e1;
    for (dim_t p = part_begin; p < part_end; ++p) {
      part_range(p, e0, e1);
      with_exp(m, [&](auto&& exp_of) __attribute__((always_inline)) { normalise(exp_of, e0, e1, m, scale); });
    }
  }
};

template <class A, bool kLog, class S, class D>
void forward_interleaved(const kernel_args& k, dim_t base, dim_t part_begin = 0,
                         dim_t part_end = 1) {
  interleaved_group<A, kLog, S, D> group{static_cast<const S*>(k.in0) + base,
                                         static_cast<D*>(k.out) + base,
                                         static_cast<int>(k.strided.lanes),
                                         k.strided.len * k.strided.lanes,
                                         k.alg == softmax_alg::softmax_inf_as_zero,
                                         k.split,
                                         {},
                                         k.out_scale};
  if (k.split.parts > 0) group.run_phase(part_begin, part_end);
  else group.run_whole();
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_INTERLEAVED_H_
