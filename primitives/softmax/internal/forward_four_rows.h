// Forward f32 softmax of four neighbouring dense rows at once (forward_four_rows), for rows whose
// runs are whole vectors of at most one cache line (nChw16c, nChw8c). Part of the per-ISA
// kernels: include only from vector_kernels_impl.h (through forward_dense.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_FOUR_ROWS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_FOUR_ROWS_H_

#include <limits>
#include <optional>
#include <type_traits>

#include "tessera/primitives/softmax/internal/exp_nearby.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_store.h"
#include "tessera/simd/per_isa.h"
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

// The four rows of one forward_four_rows call: where they are, where the next four are (for the
// prefetches), and what each step leaves for the next (maxima, exps, scales).
template <class A, class S, class D>
struct four_rows {
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  static constexpr int R = 4;
  // On avx2 the rows' mins too: where all four rows' ranges allow, their exps are
  // exp_minus_nearby_f32's (the factor exp(max - s) cancels in exp / sum).
  static constexpr bool kNearby = std::is_same_v<A, xsimd::avx2>;

  const dense_geometry& g;
  const S* src[R];
  D* dst[R];
  const char* next_src[R] = {};
  const char* next_dst[R] = {};
  bool prefetch_next;
  float out_scale;  // kernel_args::out_scale (scaled_store.h)
  // A run's first and last byte: a run that is not line-aligned spans two lines (leaving out the
  // last row's second line costs measurable time).
  dim_t run_last;
  dim_t dst_run_last;
  dim_t full;  // runs that are whole vectors; the last may be partial
  int tail;
  dim_t tail_off = 0;  // the partial vector's
  F m[R];
  bool zero[R];
  // Outside the object: make() may write it through a pointer, which would otherwise keep every
  // member in memory.
  std::optional<exp_minus_nearby_f32<A>> (&nearby)[R];
  bool all_nearby = kNearby;
  wide_sum<A> sum[R];  // f32 per lane over four runs (terms <= 1.05, three roundings), then f64
  F inv[R];

  [[gnu::always_inline]] four_rows(const kernel_args& k, dim_t row0, bool prefetch,
                                   std::optional<exp_minus_nearby_f32<A>> (&exps)[R])
      : g(k.dense), prefetch_next(prefetch), out_scale(k.out_scale), nearby(exps) {
    for (int j = 0; j < R; ++j) {
      const dim_t base = k.rows.offset_of(row0 + j);
      src[j] = static_cast<const S*>(k.in0) + base;
      dst[j] = static_cast<D*>(k.out) + base;
    }
    run_last = (g.chunk - 1) * dim_t{sizeof(S)};
    dst_run_last = (g.chunk - 1) * dim_t{sizeof(D)};
    if (prefetch_next) {
      for (int j = 0; j < R; ++j) {
        const dim_t base = k.rows.offset_of(row0 + R + j);
        next_src[j] = reinterpret_cast<const char*>(static_cast<const S*>(k.in0) + base);
        next_dst[j] = reinterpret_cast<const char*>(static_cast<D*>(k.out) + base);
      }
    }
    full = g.len / W;
    tail = static_cast<int>(g.len - full * W);
  }

  // Pass 1: each row's max (and min where kNearby), and the exp it takes.
  [[gnu::always_inline]] void find_ranges(bool inf_as_zero) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    F lo[R];
    for (int j = 0; j < R; ++j) m[j] = F(neg_inf), lo[j] = F(-neg_inf);
    vector_walk<A> at;
    for (dim_t c = 0; c < full; ++c, at.next(g)) {
      for (int j = 0; j < R; ++j) {
        const F x = simd::load_f32<A>(src[j] + at.off);
        m[j] = xsimd::max(x, m[j]);
        if constexpr (kNearby) lo[j] = xsimd::min(x, lo[j]);
      }
    }
    tail_off = at.off;
    if (tail) {
      for (int j = 0; j < R; ++j) {
        m[j] = xsimd::max(load_partial<A>(src[j] + tail_off, tail, neg_inf), m[j]);
        if constexpr (kNearby) {
          lo[j] = xsimd::min(load_partial<A>(src[j] + tail_off, tail, -neg_inf), lo[j]);
        }
      }
    }
    for (int j = 0; j < R; ++j) {
      const float mx = simd::reduce_max<A>(m[j]);
      zero[j] = inf_as_zero && mx == neg_inf;
      m[j] = F(mx);
      if constexpr (kNearby) {
        nearby[j] = exp_minus_nearby_f32<A>::make(mx, -simd::reduce_max<A>(-lo[j]));
        all_nearby = all_nearby && nearby[j];
      }
    }
  }

  // The exp sweep's prefetch of the next four rows' runs at offset `off` (see forward_four_rows).
  [[gnu::always_inline]] void fetch_next_runs(dim_t off) const {
    const dim_t bytes = off * dim_t{sizeof(S)};
    const dim_t dst_bytes = off * dim_t{sizeof(D)};
    for (int j = 0; j < R; ++j) {
      simd::prefetch<simd::locality::l2>(next_src[j] + bytes);
      simd::prefetch<simd::locality::l2>(next_src[j] + bytes + run_last);
      simd::prefetch<simd::locality::l2>(next_dst[j] + dst_bytes);
      simd::prefetch<simd::locality::l2>(next_dst[j] + dst_bytes + dst_run_last);
    }
  }

  // Pass 2: the exps into dst and their sums. exp_of(j, x): row j's exp(x - max), or exp(x - s).
  template <class ExpOf>
  [[gnu::always_inline]] void sum_exps(ExpOf&& exp_of) {
    F part[R];
    for (int j = 0; j < R; ++j) part[j] = F(0.f);
    vector_walk<A> walk;
    for (dim_t c = 0; c < full; ++c, walk.next(g)) {
      if (prefetch_next && walk.in_run == 0) fetch_next_runs(walk.off);
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
        const F e = ::tessera::simd::select(
            inside, exp_of(j, load_partial<A>(src[j] + tail_off, tail, m[j])), F(0.f));
        simd::store_f32(dst[j] + tail_off, e, tail);
        part[j] = part[j] + e;
      }
    }
    for (int j = 0; j < R; ++j) {
      sum[j].add(part[j]);
      inv[j] = F(zero[j] ? 0.f : static_cast<float>(1.0 / reduce_sum<A>(sum[j])));
    }
  }

  // Pass 3: the exps in dst times their row's 1 / sum.
  [[gnu::always_inline]] void normalise() {
    vector_walk<A> at;
    for (dim_t c = 0; c < full; ++c, at.next(g)) {
      for (int j = 0; j < R; ++j) {
        const F e = zero[j] ? F(0.f) : simd::load_f32<A>(dst[j] + at.off);
        store_result<S>(dst[j] + at.off, e * inv[j], out_scale);
      }
    }
    if (tail) {
      for (int j = 0; j < R; ++j) {
        const F e = zero[j] ? F(0.f) : load_partial<A>(dst[j] + tail_off, tail, 0.f);
        store_result<S>(dst[j] + tail_off, e * inv[j], out_scale, tail);
      }
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
  std::optional<exp_minus_nearby_f32<A>> exps[4];
  four_rows<A, S, D> rows(k, row0, prefetch_next, exps);
  rows.find_ranges(k.alg == softmax_alg::softmax_inf_as_zero);
  if (rows.all_nearby) {
    rows.sum_exps([&](int j, F x) __attribute__((always_inline)) { return (*rows.nearby[j])(x); });
  } else {
    rows.sum_exps([&](int j, F x) __attribute__((always_inline)) { return exp_diff<A>(x, rows.m[j]); });
  }
  rows.normalise();
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_FOUR_ROWS_H_
