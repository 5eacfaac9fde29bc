// Forward softmax / logsoftmax along a strided axis (nchw along C, 30000x8 along dim 0): vectorised
// across neighbouring rows. Part of the per-ISA kernels: include only from vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/forward_dense.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// ---- forward, axis strided with few lanes: several axis positions per vector ---------------

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
template <class A, bool kLog, class S, class D>
void forward_interleaved(const kernel_args& k, dim_t base, dim_t part_begin = 0,
                         dim_t part_end = 1) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const int lanes = static_cast<int>(k.strided.lanes);
  const dim_t n = k.strided.len * k.strided.lanes;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  // f32 softmax keeps exp(x - max) in dst between the exp sweep and the normalising one.
  constexpr bool keep = std::is_same_v<D, float> && !kLog;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const S* src = static_cast<const S*>(k.in0) + base;
  D* dst = static_cast<D*>(k.out) + base;
  const axis_split& split = k.split;
  const bool is_split = split.parts > 0;
  // Elements [e0, e1) of part p: whole vectors but for the group's tail.
  auto part_range = [&](dim_t p, dim_t& e0, dim_t& e1) {
    if (!is_split) {
      e0 = 0, e1 = n;
      return;
    }
    e0 = p * split.part_len * lanes;
    e1 = std::min(n, (p + 1) * split.part_len * lanes);
  };
  // A per-lane value repeated over a vector's W / lanes copies of the lanes.
  auto repeat_lanes = [&](float (&pat)[W]) {
    for (int i = lanes; i < W; ++i) pat[i] = pat[i % lanes];
    return F::load_aligned(pat);
  };

  // The exp: a lanes_exp where it accepts every lane's range (the same choice in every part:
  // all merge the same ranges), else exp_diff. with_exp(f) calls f with it.
  // softmax_inf_as_zero settles the all -Inf lanes' max first (settle_all_minus_inf).
  std::optional<lanes_exp<A>> fast;
  auto choose_exp = [&](F& m, F lo) {
    if (inf_as_zero) m = settle_all_minus_inf<A>(m);
    if constexpr (kHasLanesExp<A>) fast = make_lanes_exp<A>(m, lo);
  };
  auto with_exp = [&](F m, auto&& f) {
    if constexpr (kHasLanesExp<A>) {
      if (fast) return f([&](F x) { return (*fast)(x); });
    }
    return f([&](F x) { return exp_diff<A>(x, m); });
  };

  // Per lane: the max and (where a lanes_exp may be chosen) the min over [e0, e1).
  auto range_of = [&](dim_t e0, dim_t e1, float (&max_pat)[W], float (&min_pat)[W]) {
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
  };
  // Per lane: the sum of the exps that are not at the max (times the lanes_exp's to_c) and the
  // count of maxima, over [e0, e1). Four vectors a step, their terms added pairwise in f32 and
  // widened once, as the other sweeps do: one f64 addition per vector made a chain of dependent
  // additions the length of the group.
  auto sums_of = [&](auto&& exp_of, dim_t e0, dim_t e1, F m, row_total (&t)[W]) {
    const dim_t full = e1 - (e1 - e0) % W;
    const int tail = static_cast<int>(e1 - full);
    split_sum<A> acc;
    auto accumulate = [&](F x, F e) {
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
  };
  auto normalise = [&](auto&& exp_of, dim_t e0, dim_t e1, F m, F scale) {
    const dim_t full = e1 - (e1 - e0) % W;
    const int tail = static_cast<int>(e1 - full);
    auto finish = [&](F x) {
      if constexpr (kLog) return log_diff<A>(x, m, scale);
      else if constexpr (keep) return x * scale;
      else return exp_of(x) * scale;
    };
    // keep: the exps, in dst; otherwise src.
    const auto* in = [&] {
      if constexpr (keep) return dst;
      else return src;
    }();
    for (dim_t i = e0; i < full; i += W) simd::store_f32(dst + i, finish(simd::load_f32<A>(in + i)));
    if (tail) simd::store_f32(dst + full, finish(load_partial<A>(in + full, tail, m)), tail);
  };
  auto scale_of = [&](const row_total (&t)[W]) {
    alignas(64) float pat[W];
    for (int j = 0; j < lanes; ++j) {
      pat[j] = static_cast<float>(kLog ? t[j].log_sum() : inverse_sum(t[j].sum()));
    }
    return repeat_lanes(pat);
  };

  alignas(64) float max_pat[W], min_pat[W];
  if (!is_split) {
    range_of(0, n, max_pat, min_pat);
    F m = repeat_lanes(max_pat);
    choose_exp(m, repeat_lanes(min_pat));
    row_total t[W];
    with_exp(m, [&](auto&& exp_of) { sums_of(exp_of, 0, n, m, t); });
    const F scale = scale_of(t);
    with_exp(m, [&](auto&& exp_of) { normalise(exp_of, 0, n, m, scale); });
    return;
  }
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
    // Parts in reverse order: phase 0 left the last parts' src in L2, and phase 2, going
    // forward, then finds the first parts' src and dst there (a group larger than L2 otherwise
    // evicts each part's lines just before the next phase reads them).
    for (dim_t p = part_end; p-- > part_begin;) {
      part_range(p, e0, e1);
      row_total t[W];
      with_exp(m, [&](auto&& exp_of) { sums_of(exp_of, e0, e1, m, t); });
      for (int j = 0; j < lanes; ++j) {
        split.rest[p * lanes + j] = t[j].rest;
        split.count[p * lanes + j] = t[j].count;
      }
    }
    return;
  }
  row_total t[W];
  for (int j = 0; j < lanes; ++j) {
    t[j] = {0, 0};
    for (dim_t q = 0; q < split.parts; ++q) {
      t[j].rest += split.rest[q * lanes + j];
      t[j].count += split.count[q * lanes + j];
    }
  }
  const F scale = scale_of(t);
  for (dim_t p = part_begin; p < part_end; ++p) {
    part_range(p, e0, e1);
    with_exp(m, [&](auto&& exp_of) { normalise(exp_of, e0, e1, m, scale); });
  }
}

// ---- forward, axis strided: vectorised across neighbouring rows -----------------------------

// The next group's src and dst, fetched into L2 during the current group's exp sweep (which is
// compute-bound): one axis step of each per step. Without it the next group's first sweep (a
// pure max over 196 KB for nchw 32x1000x7x7) waits on L3 or memory, and its dst stores on
// read-for-ownership misses. A prefetch never faults, so the gap after a group's last lane may
// be touched.
struct next_group {
  const char* src = nullptr;
  const char* dst = nullptr;
  dim_t step_bytes = 0;  // axis stride in bytes, src
  dim_t dst_step_bytes = 0;
  void prefetch(dim_t a, int steps) const {
    if (src == nullptr) return;
    for (dim_t b = a * step_bytes, e = (a + steps) * step_bytes; b < e; b += 64) {
      simd::prefetch<simd::locality::l2>(src + b);
    }
    for (dim_t b = a * dst_step_bytes, e = (a + steps) * dst_step_bytes; b < e; b += 64) {
      simd::prefetch<simd::locality::l2>(dst + b);
    }
  }
};

// The three sweeps along the axis for NV vectors of lanes at element offsets off[0..NV) from
// src / dst (lane j of row a at a * stride + j). kPartial: one vector of `tail` lanes (masked
// loads and stores: only when the group has fewer lanes than a vector). Vectors may overlap
// (the last one ending at the group's last lane): overlapping lanes compute identical values,
// and every sweep loads all NV vectors of an axis step before it stores any, so src == dst is
// safe. With `parts.split`, only the current phase, on parts [part_begin, part_end).
// inf_as_zero (softmax_inf_as_zero) is a run-time flag, not a template parameter: it only changes
// the maxima once per sweep, and as a parameter it made a third of this file's instantiations.
template <class A, bool kLog, class S, class D, int NV, bool kPartial>
void sweep_lane_vectors(const S* src, D* dst, dim_t len, dim_t stride, const int (&offsets)[NV],
                        int tail, bool inf_as_zero, const next_group& next_in = {},
                        const split_lanes& parts = {}) {
  static_assert(!kPartial || NV == 1);
  // Local copies: the vector stores (which may alias anything) otherwise make the hot loops load
  // the offsets from memory again after each store (perf: movslq from the array; nchw
  // 32x1000x7x7 measured slower).
  int off[NV];
  std::copy_n(offsets, NV, off);
  const next_group next = next_in;
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  // f32 softmax keeps exp(x - max) in dst between the second and third sweeps.
  constexpr bool kKeep = std::is_same_v<D, float> && !kLog;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  auto load = [&](const auto* p, int v, float fill) __attribute__((always_inline)) {
    if constexpr (kPartial) return load_partial<A>(p + off[v], tail, fill);
    else return simd::load_f32<A>(p + off[v]);
  };
  auto store = [&](auto* p, int v, F y) __attribute__((always_inline)) {
    if constexpr (kPartial) simd::store_f32(p + off[v], y, tail);
    else simd::store_f32(p + off[v], y);
  };

  // avx2 and avx512bw find each lane's min as well: where every lane's range allows, the
  // lanes_exp (kernel_math.h; 13 and 11 vector operations instead of exp_diff's 24), as the
  // dense kernel does per row. Not for a partial vector, whose unused lanes hold no range.
  constexpr bool kFindsMin = kHasLanesExp<A> && !kPartial;
  F m[NV], lo[NV];
  auto find_range = [&](dim_t a0, dim_t a1) __attribute__((always_inline)) {
    for (int v = 0; v < NV; ++v) m[v] = F(neg_inf), lo[v] = F(-neg_inf);
    for (dim_t a = a0; a < a1; ++a) {
      const S* p = src + a * stride;
      for (int v = 0; v < NV; ++v) {
        const F x = load(p, v, neg_inf);
        m[v] = xsimd::max(x, m[v]);
        if constexpr (kFindsMin) lo[v] = xsimd::min(x, lo[v]);
      }
    }
  };
  // softmax_inf_as_zero (kernel_math.h: settle_all_minus_inf).
  auto settle_maxima = [&]() __attribute__((always_inline)) {
    if (!inf_as_zero) return;
    for (int v = 0; v < NV; ++v) m[v] = settle_all_minus_inf<A>(m[v]);
  };
  std::optional<lanes_exp<A>> nearby[NV];
  bool all_nearby = kFindsMin;
  auto choose_exp = [&]() __attribute__((always_inline)) {
    if constexpr (kFindsMin) {
      for (int v = 0; v < NV && all_nearby; ++v) {
        nearby[v] = make_lanes_exp<A>(m[v], lo[v]);
        all_nearby = nearby[v].has_value();
      }
    }
  };

  // Sums: per lane, the terms of four axis steps added pairwise in f32 (terms <= 1.05, two
  // roundings), widened to f64 once per four steps. logsoftmax counts the maxima apart
  // (split_sum in kernel_math.h).
  wide_sum<A> rest[NV];
  max_count<A> count[NV];
  // exp_of(v, x): exp(x - m[v]), or the lanes_exp's exp(x - s), s per lane at or near its max
  // (nearby); a compile-time choice,
  // one loop each.
  // Inlined by force, as every lambda here: each has several call sites (per exp, whole or split
  // group), and one called out of line puts the sums and maxima it updates in memory, for the
  // whole function (30000x8 split and nchw with merge_ranges a call: measured slower, 1 thread,
  // hot).
  auto sum_exps = [&](auto&& exp_of, dim_t a0, dim_t a1) __attribute__((always_inline)) {
    // Inlined by force: called as a function, its r[] goes through memory (much of nchw's time).
    auto terms = [&](dim_t a, F(&r)[NV]) __attribute__((always_inline)) {
      const S* p = src + a * stride;
      F x[NV];
      for (int v = 0; v < NV; ++v) x[v] = load(p, v, 0.f);
      for (int v = 0; v < NV; ++v) {
        const F e = exp_of(v, x[v]);
        if constexpr (kLog) {
          const auto at_max = x[v] == m[v];
          count[v].add(at_max);
          r[v] = ::tessera::simd::select(at_max, F(0.f), e);
        } else {
          r[v] = e;
        }
      }
      if constexpr (kKeep) {
        D* q = dst + a * stride;
        for (int v = 0; v < NV; ++v) store(q, v, r[v]);
      }
    };
    dim_t a = a0;
    for (; a + 4 <= a1; a += 4) {
      next.prefetch(a, 4);
      F r0[NV], r1[NV], r2[NV], r3[NV];
      terms(a, r0);
      terms(a + 1, r1);
      terms(a + 2, r2);
      terms(a + 3, r3);
      for (int v = 0; v < NV; ++v) rest[v].add((r0[v] + r1[v]) + (r2[v] + r3[v]));
    }
    for (; a < a1; ++a) {
      next.prefetch(a, 1);
      F r0[NV];
      terms(a, r0);
      for (int v = 0; v < NV; ++v) rest[v].add(r0[v]);
    }
  };
  auto exp_nearby = [&](int v, F x) __attribute__((always_inline)) { return (*nearby[v])(x); };
  auto exp_two_sum = [&](int v, F x) __attribute__((always_inline)) {
    return exp_diff<A>(x, m[v]);
  };
  auto sum_chosen_exps = [&](dim_t a0, dim_t a1) __attribute__((always_inline)) {
    if (all_nearby) sum_exps(exp_nearby, a0, a1);
    else sum_exps(exp_two_sum, a0, a1);
  };

  // Per lane: 1 / sum (softmax; with nearby, the exps and their sum share the factor
  // exp(max - s)) or log(sum) (logsoftmax; the non-maximal exps' sum times exp(s - max)), from
  // each lane's sum of the non-maximal exps and (logsoftmax) count of maxima.
  F scale[NV];
  auto set_scale = [&](int v, const double* lane_rest, const double* lane_count)
                       __attribute__((always_inline)) {
    alignas(64) float t[W];
    for (int i = 0; i < W; ++i) {
      const double to_max = kLog && all_nearby ? nearby[v]->to_c(i) : 1.0;
      const row_total lane{kLog ? lane_count[i] : 0.0, lane_rest[i] * to_max};
      t[i] = static_cast<float>(kLog ? lane.log_sum() : inverse_sum(lane.sum()));
    }
    scale[v] = F::load_aligned(t);
  };

  auto normalise = [&](auto&& exp_of, dim_t a0, dim_t a1) __attribute__((always_inline)) {
    for (dim_t a = a0; a < a1; ++a) {
      const S* p = src + a * stride;
      D* q = dst + a * stride;
      F y[NV];
      for (int v = 0; v < NV; ++v) {
        if constexpr (kLog) y[v] = load(p, v, 0.f);
        else if constexpr (kKeep) y[v] = load(q, v, 0.f);
        else y[v] = load(p, v, 0.f);
      }
      for (int v = 0; v < NV; ++v) {
        if constexpr (kLog) y[v] = log_diff<A>(y[v], m[v], scale[v]);
        else if constexpr (kKeep) y[v] = y[v] * scale[v];
        else y[v] = exp_of(v, y[v]) * scale[v];
      }
      for (int v = 0; v < NV; ++v) store(q, v, y[v]);
    }
  };
  // Softmax into a type other than f32 computes the exps again, as the sums did.
  auto normalise_as_chosen = [&](dim_t a0, dim_t a1) __attribute__((always_inline)) {
    if (!kLog && !kKeep && all_nearby) normalise(exp_nearby, a0, a1);
    else normalise(exp_two_sum, a0, a1);
  };

  if (parts.split == nullptr) {
    find_range(0, len);
    settle_maxima();
    choose_exp();
    sum_chosen_exps(0, len);
    for (int v = 0; v < NV; ++v) {
      double lane_rest[W];
      double lane_count[W];
      rest[v].lanes(lane_rest);
      if constexpr (kLog) count[v].lanes(lane_count);
      set_scale(v, lane_rest, lane_count);
    }
    normalise_as_chosen(0, len);
    return;
  }

  // A split group: the whole group's per-lane range and sums come from the parts' partial ones,
  // merged in part order, once per call (every call merges them alike, so all parts agree).
  const axis_split& split = *parts.split;
  const int used = kPartial ? tail : W;  // lanes of each vector that belong to the group
  auto merge_ranges = [&]() __attribute__((always_inline)) {
    for (int v = 0; v < NV; ++v) {
      m[v] = F(neg_inf), lo[v] = F(-neg_inf);
      for (dim_t q = 0; q < split.parts; ++q) {
        m[v] = xsimd::max(load(split.max + parts.at(q, 0), v, neg_inf), m[v]);
        lo[v] = xsimd::min(load(split.min + parts.at(q, 0), v, -neg_inf), lo[v]);
      }
    }
  };
  // Phase 1 takes the parts in reverse order, as forward_interleaved does (the same reason).
  auto for_each_part = [&](auto&& f) __attribute__((always_inline)) {
    for (dim_t i = parts.part_begin; i < parts.part_end; ++i) {
      const dim_t part = split.phase == 1 ? parts.part_end - 1 - (i - parts.part_begin) : i;
      f(part, part * split.part_len, std::min(len, (part + 1) * split.part_len));
    }
  };
  if (split.phase == 0) {
    for_each_part([&](dim_t part, dim_t a0, dim_t a1) __attribute__((always_inline)) {
      find_range(a0, a1);
      for (int v = 0; v < NV; ++v) {
        store(split.max + parts.at(part, 0), v, m[v]);
        store(split.min + parts.at(part, 0), v, lo[v]);
      }
    });
    return;
  }
  merge_ranges();
  settle_maxima();
  choose_exp();
  if (split.phase == 1) {
    for_each_part([&](dim_t part, dim_t a0, dim_t a1) __attribute__((always_inline)) {
      for (int v = 0; v < NV; ++v) rest[v] = {}, count[v] = {};
      sum_chosen_exps(a0, a1);
      for (int v = 0; v < NV; ++v) {
        double lane_rest[W];
        rest[v].lanes(lane_rest);
        std::copy_n(lane_rest, used, split.rest + parts.at(part, off[v]));
        if constexpr (kLog) {
          double lane_count[W];
          count[v].lanes(lane_count);
          std::copy_n(lane_count, used, split.count + parts.at(part, off[v]));
        }
      }
    });
    return;
  }
  for (int v = 0; v < NV; ++v) {
    // Lanes past `used` get a sum of 1: their results are never stored.
    double lane_rest[W];
    double lane_count[W];
    std::fill_n(lane_rest, W, 1.0);
    std::fill_n(lane_count, W, 1.0);
    for (int i = 0; i < used; ++i) {
      double r = 0;
      double c = 0;
      for (dim_t q = 0; q < split.parts; ++q) {
        r += split.rest[parts.at(q, off[v]) + i];
        if constexpr (kLog) c += split.count[parts.at(q, off[v]) + i];
      }
      lane_rest[i] = r;
      if constexpr (kLog) lane_count[i] = c;
    }
    set_scale(v, lane_rest, lane_count);
  }
  for_each_part([&](dim_t, dim_t a0, dim_t a1) __attribute__((always_inline)) {
    normalise_as_chosen(a0, a1);
  });
}

// A few lanes (fewer than a vector) left over: instead of a vector along the axis of which they
// fill a fraction (the whole exp sweep for them), they are copied out as rows of a dense block,
// run through forward_dense (len / W vectors per lane), and copied back. Returns false when the
// block would exceed kMaxScratch elements (the caller then sweeps a vector for them).
constexpr dim_t kMaxScratch = dim_t{1} << 20;

template <class A, class S, class D>
bool remainder_lanes_as_dense_rows(softmax_alg alg, const S* src, D* dst, int lanes, dim_t len,
                                   dim_t stride) {
  const dim_t n = len * lanes;
  if (n > kMaxScratch) return false;
  thread_local std::vector<S> rows_in;
  thread_local std::vector<D> rows_out;
  if (static_cast<dim_t>(rows_in.size()) < n) rows_in.resize(static_cast<size_t>(n));
  if (static_cast<dim_t>(rows_out.size()) < n) rows_out.resize(static_cast<size_t>(n));
  S* in = rows_in.data();
  D* out = rows_out.data();
  // f32 lanes move W axis steps at a time by gather and scatter: element by element, each step is
  // a separate load or store whose loop overhead costs more than the dense kernel itself (7x7,
  // images of 1000 channels).
  using I = xsimd::batch<int32_t, A>;
  constexpr int W = kWidth<A>;
  const bool by_vectors = stride * W <= std::numeric_limits<int32_t>::max();
  I step_index(0);
  if (by_vectors) {
    alignas(64) int32_t idx[W];
    for (int i = 0; i < W; ++i) idx[i] = static_cast<int32_t>(i * stride);
    step_index = I::load_aligned(idx);
  }
  const dim_t gathered = std::is_same_v<S, float> && by_vectors ? len - len % W : 0;
  for (int j = 0; j < lanes; ++j) {
    if constexpr (std::is_same_v<S, float>) {
      for (dim_t a = 0; a < gathered; a += W) {
        vf<A>::gather(src + a * stride + j, step_index).store_unaligned(in + j * len + a);
      }
    }
    for (dim_t a = gathered; a < len; ++a) in[j * len + a] = src[a * stride + j];
  }
  kernel_args rows;
  rows.alg = alg;
  rows.in0 = in;
  rows.out = out;
  rows.rows.depth = 1;
  rows.rows.sizes[0] = lanes;
  rows.rows.strides[0] = len;
  rows.rows.count = lanes;
  rows.dense = {len, len, len};
  forward_dense<A, S, D>(rows, 0, lanes);
  const dim_t scattered = std::is_same_v<D, float> && by_vectors ? len - len % W : 0;
  for (int j = 0; j < lanes; ++j) {
    if constexpr (std::is_same_v<D, float>) {
      for (dim_t a = 0; a < scattered; a += W) {
        vf<A>::load_unaligned(out + j * len + a).scatter(dst + a * stride + j, step_index);
      }
    }
    for (dim_t a = scattered; a < len; ++a) dst[a * stride + j] = out[j * len + a];
  }
  return true;
}

template <class A, bool kLog, class S, class D>
void forward_strided_as(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  constexpr int kVectors = kMaxSweepVectors<S, D>;  // vectors of lanes per sweep along the axis
  // Leftover lanes up to this many go through remainder_lanes_as_dense_rows; more take a vector
  // ending at the last lane (overlapping the previous one). Per axis step, a leftover lane costs
  // about two scalar copies and 1/W of a vector's arithmetic, a vector about W / 4 times that.
  constexpr int kMaxLanesAsRows = W / 4;
  // Prefetch the next group only when one group's src + dst is at most half of a 1 MB L2 (this
  // CPU's; nchw 32x1000x7x7 f32: 392 KB): the current group's must stay there too.
  constexpr dim_t kPrefetchMaxGroupBytes = 512 << 10;
  const strided_geometry& g = k.strided;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  // A split group: [begin, end) are parts of group 0.
  const bool split = k.split.parts > 0;
  const bool interleaved = strided_is_interleaved(g, W);
  for (dim_t group = split ? 0 : begin; group < (split ? 1 : end); ++group) {
    const dim_t base = k.rows.offset_of(group);
    if (interleaved) {
      if (split) forward_interleaved<A, kLog, S, D>(k, base, begin, end);
      else forward_interleaved<A, kLog, S, D>(k, base);
      continue;
    }
    const S* src = static_cast<const S*>(k.in0) + base;
    D* dst = static_cast<D*>(k.out) + base;
    auto parts_from = [&](dim_t first_lane) {
      return split ? split_lanes{&k.split, g.lanes, first_lane, begin, end} : split_lanes{};
    };
    next_group next;
    if (!split && group + 1 < end &&
        g.len * g.axis_stride * dim_t{sizeof(S) + sizeof(D)} <= kPrefetchMaxGroupBytes) {
      const dim_t next_base = k.rows.offset_of(group + 1);
      next.src = reinterpret_cast<const char*>(static_cast<const S*>(k.in0) + next_base);
      next.dst = reinterpret_cast<const char*>(static_cast<D*>(k.out) + next_base);
      next.step_bytes = g.axis_stride * dim_t{sizeof(S)};
      next.dst_step_bytes = g.axis_stride * dim_t{sizeof(D)};
    }
    const dim_t whole = g.lanes / W;
    const int rest = static_cast<int>(g.lanes % W);
    const bool rest_done =
        rest != 0 && rest <= kMaxLanesAsRows && !split &&
        remainder_lanes_as_dense_rows<A, S, D>(k.alg, src + whole * W, dst + whole * W, rest, g.len,
                                               g.axis_stride);
    if (rest != 0 && !rest_done && whole == 0) {
      const int one[1] = {0};
      sweep_lane_vectors<A, kLog, S, D, 1, true>(src, dst, g.len, g.axis_stride, one, rest,
                                                 inf_as_zero, {}, parts_from(0));
      continue;
    }
    for_each_lane_sweep<W, kVectors>(
        g.lanes, rest != 0 && !rest_done, [&]<int NV>(dim_t j0, const int (&off)[NV], bool first) {
          sweep_lane_vectors<A, kLog, S, D, NV, false>(src + j0, dst + j0, g.len, g.axis_stride,
                                                       off, 0, inf_as_zero,
                                                       first ? next : next_group{}, parts_from(j0));
        });
  }
}

template <class A, class S, class D>
void forward_strided(const kernel_args& k, dim_t begin, dim_t end) {
  if (k.alg == softmax_alg::logsoftmax) return forward_strided_as<A, true, S, D>(k, begin, end);
  return forward_strided_as<A, false, S, D>(k, begin, end);
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
