// Forward softmax / logsoftmax along a strided axis (nchw along C, 30000x8 along dim 0): vectorised
// across neighbouring rows. Part of the per-ISA kernels: include only from vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

// ---- forward, axis strided with few lanes: several axis positions per vector ---------------

// When the lanes are fewer than a vector and the axis stride equals them (30000x8 along dim 0),
// the group is one contiguous block in which vector lane i always belongs to row i % lanes:
// sweep it like a dense row and fold the per-lane results over the W / lanes copies.
template <class A, class S, class D>
void forward_interleaved(const kernel_args& k, dim_t base) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const int lanes = static_cast<int>(k.strided.lanes);
  const dim_t n = k.strided.len * k.strided.lanes;
  const bool log = k.alg == softmax_alg::logsoftmax;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  constexpr bool kKeepExp = std::is_same_v<D, float>;
  const bool keep = kKeepExp && !log;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const S* src = static_cast<const S*>(k.in0) + base;
  D* dst = static_cast<D*>(k.out) + base;
  const dim_t full = n - n % W;
  const int tail = static_cast<int>(n - full);

  F mv(neg_inf);
  for (dim_t i = 0; i < full; i += W) mv = xsimd::max(simd::load_f32<A>(src + i), mv);
  if (tail) mv = xsimd::max(load_partial<A>(src + full, tail, neg_inf), mv);
  alignas(64) float pat[W];
  mv.store_aligned(pat);
  for (int j = 0; j < lanes; ++j) {
    for (int c = j + lanes; c < W; c += lanes) pat[j] = std::max(pat[j], pat[c]);
  }
  for (int i = lanes; i < W; ++i) pat[i] = pat[i % lanes];
  const F m = F::load_aligned(pat);

  split_sum<A> acc;
  auto accumulate = [&](F x, F e) {
    if (log) acc.add(x, m, e);
    else acc.rest.add(e);
  };
  for (dim_t i = 0; i < full; i += W) {
    const F x = simd::load_f32<A>(src + i);
    const F e = exp_diff<A>(x, m);
    accumulate(x, e);
    if constexpr (kKeepExp) {
      if (keep) simd::store_f32(dst + i, e);
    }
  }
  if (tail) {
    const auto inside = lane_index<A>() < F(static_cast<float>(tail));
    const F x = load_partial<A>(src + full, tail, 0.f);
    const F e = ::tessera::simd::select(inside, exp_diff<A>(x, m), F(0.f));
    accumulate(::tessera::simd::select(inside, x, F(std::numeric_limits<float>::quiet_NaN())), e);
    if constexpr (kKeepExp) {
      if (keep) simd::store_f32(dst + full, e, tail);
    }
  }
  double rest[W];
  alignas(64) float count[W], scale_pat[W];
  acc.rest.lanes(rest);
  acc.count.store_aligned(count);
  for (int j = 0; j < lanes; ++j) {
    row_total t{0, 0};
    for (int c = j; c < W; c += lanes) {
      t.count += count[c];
      t.rest += rest[c];
    }
    scale_pat[j] = static_cast<float>(log ? t.log_sum() : 1.0 / t.sum());
  }
  for (int i = lanes; i < W; ++i) scale_pat[i] = scale_pat[i % lanes];
  const F scale = F::load_aligned(scale_pat);

  auto finish = [&](F x, F kept) {
    F y = log ? log_diff<A>(x, m, scale) : (keep ? kept : exp_diff<A>(x, m)) * scale;
    if (inf_as_zero) y = ::tessera::simd::select(m == F(neg_inf), F(0.f), y);
    return y;
  };
  for (dim_t i = 0; i < full; i += W) {
    const F x = log || !keep ? simd::load_f32<A>(src + i) : F(0.f);
    F kept(0.f);
    if constexpr (kKeepExp) {
      if (keep) kept = simd::load_f32<A>(dst + i);
    }
    simd::store_f32(dst + i, finish(x, kept));
  }
  if (tail) {
    const F x = log || !keep ? load_partial<A>(src + full, tail, 0.f) : F(0.f);
    F kept(0.f);
    if constexpr (kKeepExp) {
      if (keep) kept = load_partial<A>(dst + full, tail, 0.f);
    }
    simd::store_f32(dst + full, finish(x, kept), tail);
  }
}

// ---- forward, axis strided: vectorised across neighbouring rows -----------------------------

template <class A, class S, class D>
void forward_strided(const kernel_args& k, dim_t begin, dim_t end) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  constexpr int kVectors = 4;  // lanes handled per sweep along the axis: 4 vectors
  const strided_geometry& g = k.strided;
  const bool log = k.alg == softmax_alg::logsoftmax;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  constexpr bool kKeepExp = std::is_same_v<D, float>;
  const bool keep = kKeepExp && !log;
  const float neg_inf = -std::numeric_limits<float>::infinity();

  const bool interleaved = g.lanes < W && W % g.lanes == 0 && g.axis_stride == g.lanes;
  for (dim_t group = begin; group < end; ++group) {
    const dim_t base = k.rows.offset_of(group);
    if (interleaved) {
      forward_interleaved<A, S, D>(k, base);
      continue;
    }
    for (dim_t j0 = 0; j0 < g.lanes; j0 += kVectors * W) {
      const int lanes = static_cast<int>(std::min<dim_t>(kVectors * W, g.lanes - j0));
      const int nv = (lanes + W - 1) / W;
      const int tail = lanes - (nv - 1) * W;  // lanes in the last vector, 1..W
      const S* src = static_cast<const S*>(k.in0) + base + j0;
      D* dst = static_cast<D*>(k.out) + base + j0;
      auto load = [&](const auto* p, int v, float fill) {
        return v + 1 < nv || tail == W ? simd::load_f32<A>(p + v * W)
                                       : load_partial<A>(p + v * W, tail, fill);
      };
      auto store = [&](D* p, int v, F x) {
        if (v + 1 < nv || tail == W) simd::store_f32(p + v * W, x);
        else simd::store_f32(p + v * W, x, tail);
      };

      F m[kVectors];
      for (int v = 0; v < nv; ++v) m[v] = F(neg_inf);
      for (dim_t a = 0; a < g.len; ++a) {
        const S* p = src + a * g.axis_stride;
        for (int v = 0; v < nv; ++v) m[v] = xsimd::max(load(p, v, neg_inf), m[v]);
      }

      split_sum<A> s[kVectors];
      for (dim_t a = 0; a < g.len; ++a) {
        const S* p = src + a * g.axis_stride;
        D* q = dst + a * g.axis_stride;
        for (int v = 0; v < nv; ++v) {
          const F x = load(p, v, 0.f);
          F e = exp_diff<A>(x, m[v]);
          if (log) s[v].add(x, m[v], e);
          else s[v].rest.add(e);
          if constexpr (kKeepExp) {
            if (keep) store(q, v, e);
          }
        }
      }

      F scale[kVectors];
      for (int v = 0; v < nv; ++v) {
        double rest[W];
        alignas(64) float count[W], t[W];
        s[v].rest.lanes(rest);
        s[v].count.store_aligned(count);
        for (int i = 0; i < W; ++i) {
          const row_total lane{count[i], rest[i]};
          t[i] = static_cast<float>(log ? lane.log_sum() : 1.0 / lane.sum());
        }
        scale[v] = F::load_aligned(t);
        if (!log && inf_as_zero) scale[v] = ::tessera::simd::select(m[v] == F(neg_inf), F(0.f), scale[v]);
      }

      for (dim_t a = 0; a < g.len; ++a) {
        const S* p = src + a * g.axis_stride;
        D* q = dst + a * g.axis_stride;
        for (int v = 0; v < nv; ++v) {
          F y;
          if (log) {
            y = log_diff<A>(load(p, v, 0.f), m[v], scale[v]);
          } else if (keep) {
            y = load(q, v, 0.f) * scale[v];
          } else {
            y = exp_diff<A>(load(p, v, 0.f), m[v]) * scale[v];
          }
          // An all -Inf lane of softmax_inf_as_zero: 0, not 0 * NaN.
          if (inf_as_zero) y = ::tessera::simd::select(m[v] == F(neg_inf), F(0.f), y);
          store(q, v, y);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
