// Forward softmax / logsoftmax along a strided axis, vectorised across neighbouring rows: the
// sweeps of up to kMaxSweepVectors vectors of lanes along the axis (sweep_lane_vectors). Part of
// the per-ISA kernels: include only from vector_kernels_impl.h (through forward_strided.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LANE_SWEEPS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LANE_SWEEPS_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_store.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/unroll.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

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
// src / dst (lane j of row a at a * stride + j), and the state they hand each other: each
// vector's maxima, minima, exp, sums and scale. kPartial: one vector of `tail` lanes (masked
// loads and stores: only when the group has fewer lanes than a vector). Vectors may overlap
// (the last one ending at the group's last lane): overlapping lanes compute identical values,
// and every sweep loads all NV vectors of an axis step before it stores any, so src == dst is
// safe.
// Every step is inlined by force: each has several call sites (per exp, whole or split group),
// and one called out of line puts the sums and maxima it updates in memory, for the whole
// kernel (30000x8 split and nchw with merge_ranges a call: measured slower, 1 thread, hot).
template <class A, bool kLog, class S, class D, int NV, bool kPartial>
struct lane_sweep {
  static_assert(!kPartial || NV == 1);
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  // f32 softmax keeps exp(x - max) in dst between the second and third sweeps.
  static constexpr bool kKeep = std::is_same_v<D, float> && !kLog;
  // avx2 and avx512bw find each lane's min as well: where every lane's range allows, the
  // lanes_exp (kernel_math.h; 13 and 11 vector operations instead of exp_diff's 24), as the
  // dense kernel does per row. Not for a partial vector, whose unused lanes hold no range.
  static constexpr bool kFindsMin = kHasLanesExp<A> && !kPartial;

  const S* src;
  D* dst;
  dim_t len;
  dim_t stride;
  int tail;
  bool inf_as_zero;
  // Copies: the vector stores (which may alias anything) otherwise make the hot loops load the
  // offsets from memory again after each store (perf: movslq from the array; nchw 32x1000x7x7
  // measured slower).
  next_group next;
  int off[NV];
  F m[NV], lo[NV];
  // Outside the object (make_lanes_exp writes them through a pointer, which would otherwise keep
  // every member of the sweep in memory).
  std::optional<lanes_exp<A>> (&nearby)[NV];
  bool all_nearby = kFindsMin;
  // Sums: per lane, the terms of four axis steps added pairwise in f32 (terms <= 1.05, two
  // roundings), widened to f64 once per four steps. logsoftmax counts the maxima apart
  // (split_sum in kernel_math.h).
  wide_sum<A> rest[NV];
  max_count<A> count[NV];
  F scale[NV];
  float out_scale = 1.f;  // kernel_args::out_scale (scaled_store.h)

  [[gnu::always_inline]] lane_sweep(const S* s, D* d, dim_t n, dim_t axis_stride,
                                    const int (&offsets)[NV], int tail_lanes, bool settle,
                                    const next_group& next_in,
                                    std::optional<lanes_exp<A>> (&exps)[NV])
      : src(s), dst(d), len(n), stride(axis_stride), tail(tail_lanes), inf_as_zero(settle),
        next(next_in), nearby(exps) {
    std::copy_n(offsets, NV, off);
  }

  template <class T>
  [[gnu::always_inline]] F load(const T* p, int v, float fill) const {
    if constexpr (kPartial) return load_partial<A>(p + off[v], tail, fill);
    else return simd::load_f32<A>(p + off[v]);
  }
  template <class T>
  [[gnu::always_inline]] void store(T* p, int v, F y) const {
    if constexpr (kPartial) simd::store_f32(p + off[v], y, tail);
    else simd::store_f32(p + off[v], y);
  }

  // A result vector: times out_scale in an int8 kernel (scaled_store.h).
  [[gnu::always_inline]] void store_result_of(D* q, int v, F y) const {
    if constexpr (kPartial) store_result<S>(q + off[v], y, out_scale, tail);
    else store_result<S>(q + off[v], y, out_scale);
  }

  [[gnu::always_inline]] void find_range(dim_t a0, dim_t a1) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    for (int v = 0; v < NV; ++v) m[v] = F(neg_inf), lo[v] = F(-neg_inf);
    for (dim_t a = a0; a < a1; ++a) {
      const S* p = src + a * stride;
      for (int v = 0; v < NV; ++v) {
        const F x = load(p, v, neg_inf);
        m[v] = xsimd::max(x, m[v]);
        if constexpr (kFindsMin) lo[v] = xsimd::min(x, lo[v]);
      }
    }
  }
  // softmax_inf_as_zero (kernel_math.h: settle_all_minus_inf), then the exp.
  [[gnu::always_inline]] void settle_and_choose_exp() {
    if (inf_as_zero) {
      for (int v = 0; v < NV; ++v) m[v] = settle_all_minus_inf<A>(m[v]);
    }
    if constexpr (kFindsMin) {
      for (int v = 0; v < NV && all_nearby; ++v) {
        nearby[v] = make_lanes_exp<A>(m[v], lo[v]);
        all_nearby = nearby[v].has_value();
      }
    }
  }

  // Axis step a's terms r[v] (the exps, logsoftmax's maxima counted and left out), f32
  // softmax's exps stored. Inlined by force: called as a function, its r[] goes through memory
  // (much of nchw's time).
  template <class ExpOf>
  [[gnu::always_inline]] void terms(ExpOf& exp_of, dim_t a, F (&r)[NV]) {
    const S* p = src + a * stride;
    F x[NV];
    for (int v = 0; v < NV; ++v) x[v] = load(p, v, 0.f);
    TESSERA_UNROLL_FULL
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
  }

  // exp_of(v, x): exp(x - m[v]), or the lanes_exp's exp(x - s), s per lane at or near its max
  // (nearby); a compile-time choice, one loop each.
  template <class ExpOf>
  [[gnu::always_inline]] void sum_exps(ExpOf&& exp_of, dim_t a0, dim_t a1) {
    dim_t a = a0;
    for (; a + 4 <= a1; a += 4) {
      next.prefetch(a, 4);
      F r0[NV], r1[NV], r2[NV], r3[NV];
      terms(exp_of, a, r0);
      terms(exp_of, a + 1, r1);
      terms(exp_of, a + 2, r2);
      terms(exp_of, a + 3, r3);
      for (int v = 0; v < NV; ++v) rest[v].add((r0[v] + r1[v]) + (r2[v] + r3[v]));
    }
    for (; a < a1; ++a) {
      next.prefetch(a, 1);
      F r0[NV];
      terms(exp_of, a, r0);
      for (int v = 0; v < NV; ++v) rest[v].add(r0[v]);
    }
  }
  [[gnu::always_inline]] void sum_chosen_exps(dim_t a0, dim_t a1) {
    if (all_nearby) {
      sum_exps([&](int v, F x) __attribute__((always_inline)) { return (*nearby[v])(x); }, a0, a1);
    } else {
      sum_exps([&](int v, F x) __attribute__((always_inline)) { return exp_diff<A>(x, m[v]); },
               a0, a1);
    }
  }

  // Per lane: 1 / sum (softmax; with nearby, the exps and their sum share the factor
  // exp(max - s)) or log(sum) (logsoftmax; the non-maximal exps' sum times exp(s - max)), from
  // each lane's sum of the non-maximal exps and (logsoftmax) count of maxima.
  [[gnu::always_inline]] void set_scale(int v, const double* lane_rest, const double* lane_count) {
    alignas(64) float t[W];
    for (int i = 0; i < W; ++i) {
      const double to_max = kLog && all_nearby ? nearby[v]->to_c(i) : 1.0;
      const row_total lane{kLog ? lane_count[i] : 0.0, lane_rest[i] * to_max};
      t[i] = static_cast<float>(kLog ? lane.log_sum() : inverse_sum(lane.sum()));
    }
    scale[v] = F::load_aligned(t);
  }
  // set_scale from this call's own sums (a whole group).
  [[gnu::always_inline]] void set_scales() {
    for (int v = 0; v < NV; ++v) {
      double lane_rest[W];
      double lane_count[W];
      rest[v].lanes(lane_rest);
      if constexpr (kLog) count[v].lanes(lane_count);
      set_scale(v, lane_rest, lane_count);
    }
  }

  template <class ExpOf>
  [[gnu::always_inline]] void normalise(ExpOf&& exp_of, dim_t a0, dim_t a1) {
    for (dim_t a = a0; a < a1; ++a) {
      const S* p = src + a * stride;
      D* q = dst + a * stride;
      F y[NV];
      for (int v = 0; v < NV; ++v) {
        if constexpr (kLog) y[v] = load(p, v, 0.f);
        else if constexpr (kKeep) y[v] = load(q, v, 0.f);
        else y[v] = load(p, v, 0.f);
      }
      TESSERA_UNROLL_FULL
      for (int v = 0; v < NV; ++v) {
        if constexpr (kLog) y[v] = log_diff<A>(y[v], m[v], scale[v]);
        else if constexpr (kKeep) y[v] = y[v] * scale[v];
        else y[v] = exp_of(v, y[v]) * scale[v];
      }
      for (int v = 0; v < NV; ++v) store_result_of(q, v, y[v]);
    }
  }
  // Softmax into a type other than f32 computes the exps again, as the sums did.
  [[gnu::always_inline]] void normalise_as_chosen(dim_t a0, dim_t a1) {
    if (!kLog && !kKeep && all_nearby) {
      normalise([&](int v, F x) __attribute__((always_inline)) { return (*nearby[v])(x); }, a0,
                a1);
    } else {
      normalise([&](int v, F x) __attribute__((always_inline)) { return exp_diff<A>(x, m[v]); },
                a0, a1);
    }
  }

  // A whole group: the three sweeps.
  [[gnu::always_inline]] void run_whole() {
    find_range(0, len);
    settle_and_choose_exp();
    sum_chosen_exps(0, len);
    set_scales();
    normalise_as_chosen(0, len);
  }

  // ---- a split group: the current phase on parts [part_begin, part_end) ----------------------

  // The whole group's per-lane range from the parts' partial ones, merged in part order, once
  // per call (every call merges them alike, so all parts agree).
  [[gnu::always_inline]] void merge_ranges(const split_lanes& parts) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    const axis_split& split = *parts.split;
    for (int v = 0; v < NV; ++v) {
      m[v] = F(neg_inf), lo[v] = F(-neg_inf);
      for (dim_t q = 0; q < split.parts; ++q) {
        m[v] = xsimd::max(load(split.max + parts.at(q, 0), v, neg_inf), m[v]);
        lo[v] = xsimd::min(load(split.min + parts.at(q, 0), v, -neg_inf), lo[v]);
      }
    }
  }
  // f(part, a0, a1) for the call's parts. Phase 1 takes them in reverse order, as
  // forward_interleaved does (the same reason).
  template <class Fn>
  [[gnu::always_inline]] void for_each_part(const split_lanes& parts, Fn&& f) const {
    const axis_split& split = *parts.split;
    for (dim_t i = parts.part_begin; i < parts.part_end; ++i) {
      const dim_t part = split.phase == 1 ? parts.part_end - 1 - (i - parts.part_begin) : i;
      f(part, part * split.part_len, std::min(len, (part + 1) * split.part_len));
    }
  }
  // Phase 1: each part's per-lane sums (`used` lanes of each vector belong to the group).
  [[gnu::always_inline]] void store_part_sums(const split_lanes& parts, int used) {
    const axis_split& split = *parts.split;
    for_each_part(parts, [&](dim_t part, dim_t a0, dim_t a1) __attribute__((always_inline)) {
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
  }
  // Phase 2: the scales from every part's sums, in part order.
  [[gnu::always_inline]] void set_scales_from_parts(const split_lanes& parts, int used) {
    const axis_split& split = *parts.split;
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
  }
  [[gnu::always_inline]] void run_split(const split_lanes& parts) {
    const axis_split& split = *parts.split;
    const int used = kPartial ? tail : W;
    if (split.phase == 0) {
      for_each_part(parts, [&](dim_t part, dim_t a0, dim_t a1) __attribute__((always_inline)) {
        find_range(a0, a1);
        for (int v = 0; v < NV; ++v) {
          store(split.max + parts.at(part, 0), v, m[v]);
          store(split.min + parts.at(part, 0), v, lo[v]);
        }
      });
      return;
    }
    merge_ranges(parts);
    settle_and_choose_exp();
    if (split.phase == 1) {
      store_part_sums(parts, used);
      return;
    }
    set_scales_from_parts(parts, used);
    for_each_part(parts, [&](dim_t, dim_t a0, dim_t a1) __attribute__((always_inline)) {
      normalise_as_chosen(a0, a1);
    });
  }
};

// The three sweeps of lane_sweep over one group (with `parts.split`, only the current phase).
// inf_as_zero (softmax_inf_as_zero) is a run-time flag, not a template parameter: it only changes
// the maxima once per sweep, and as a parameter it made a third of this file's instantiations.
template <class A, bool kLog, class S, class D, int NV, bool kPartial>
void sweep_lane_vectors(const S* src, D* dst, dim_t len, dim_t stride, const int (&offsets)[NV],
                        int tail, bool inf_as_zero, const next_group& next_in = {},
                        const split_lanes& parts = {}, float out_scale = 1.f) {
  std::optional<lanes_exp<A>> exps[NV];
  lane_sweep<A, kLog, S, D, NV, kPartial> sweep(src, dst, len, stride, offsets, tail, inf_as_zero,
                                                next_in, exps);
  sweep.out_scale = out_scale;
  if (parts.split == nullptr) sweep.run_whole();
  else sweep.run_split(parts);
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LANE_SWEEPS_H_
