// Backward softmax / logsoftmax along a strided axis (nchw along C): vectorised across neighbouring
// rows, looping along the axis, as the forward's strided kernel does. Part of the per-ISA kernels:
// include only from vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_

#include <algorithm>
#include <type_traits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/simd/math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

// NV vectors of lanes starting at y / dy / dx (lane j of axis step a at a * stride + j); the last
// vector holds `last` lanes (masked loads and stores when fewer than W, so vectors never overlap
// and dx may be dy). The arithmetic is the dense backward's, per lane:
//   sums: four axis steps added pairwise in f32 (products rounded once), widened to f64;
//   softmax dx = y * (dy - sum), the sum rounded to f32; logsoftmax dx = dy - exp(y) * sum in f64.
template <class A, class T, bool kLog, int NV>
void backward_lane_vectors(const T* y, const T* dy, T* dx, dim_t len, dim_t stride, int last) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  auto load = [&](const T* p, int v) {
    return v == NV - 1 && last != W ? load_partial<A>(p + v * W, last, 0.f)
                                    : simd::load_f32<A>(p + v * W);
  };

  wide_sum<A> sum[NV];
  dim_t a = 0;
  for (; a + 4 <= len; a += 4) {
    for (int v = 0; v < NV; ++v) {
      F d[4];
      for (int q = 0; q < 4; ++q) d[q] = load(dy + (a + q) * stride, v);
      if constexpr (kLog) {
        sum[v].add((d[0] + d[1]) + (d[2] + d[3]));
      } else {
        F u[4];
        for (int q = 0; q < 4; ++q) u[q] = load(y + (a + q) * stride, v);
        sum[v].add(simd::fused_fma(d[1], u[1], d[0] * u[0]) + simd::fused_fma(d[3], u[3], d[2] * u[2]));
      }
    }
  }
  for (; a < len; ++a) {
    for (int v = 0; v < NV; ++v) {
      const F d = load(dy + a * stride, v);
      if constexpr (kLog) sum[v].add(d);
      else sum[v].add_product(d, load(y + a * stride, v));
    }
  }

  F sum_f32[NV];
  for (int v = 0; v < NV; ++v) sum_f32[v] = narrow<A>(sum[v].lo, sum[v].hi);
  const simd::scaled_exp_f64<A> exp_f64(1.0);
  for (a = 0; a < len; ++a) {
    const dim_t o = a * stride;
    F r[NV];
    for (int v = 0; v < NV; ++v) {
      const F d = load(dy + o, v);
      const F u = load(y + o, v);
      if constexpr (kLog) {
        vd<A> dlo, dhi, ulo, uhi;
        widen<A>(d, dlo, dhi);
        widen<A>(u, ulo, uhi);
        r[v] = narrow<A>(dlo - exp_f64(ulo) * sum[v].lo, dhi - exp_f64(uhi) * sum[v].hi);
      } else {
        r[v] = u * (d - sum_f32[v]);
      }
    }
    for (int v = 0; v < NV; ++v) {
      if (v == NV - 1 && last != W) simd::store_f32(dx + o + v * W, r[v], last);
      else simd::store_f32(dx + o + v * W, r[v]);
    }
  }
}

template <class A, class T, bool kLog>
void backward_strided_rows(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  constexpr dim_t kMaxVectors = 4;  // per sweep along the axis
  const strided_geometry& g = k.strided;
  for (dim_t group = begin; group < end; ++group) {
    const dim_t base = k.rows.offset_of(group);
    const T* y = static_cast<const T*>(k.in0) + base;
    const T* dy = static_cast<const T*>(k.in1) + base;
    T* dx = static_cast<T*>(k.out) + base;
    for (dim_t j = 0; j < g.lanes; j += kMaxVectors * W) {
      const dim_t vectors = std::min(kMaxVectors, (g.lanes - j + W - 1) / W);
      const int last = static_cast<int>(std::min<dim_t>(W, g.lanes - j - (vectors - 1) * W));
      const T* yj = y + j;
      const T* dyj = dy + j;
      T* dxj = dx + j;
      switch (vectors) {
        case 1: backward_lane_vectors<A, T, kLog, 1>(yj, dyj, dxj, g.len, g.axis_stride, last); break;
        case 2: backward_lane_vectors<A, T, kLog, 2>(yj, dyj, dxj, g.len, g.axis_stride, last); break;
        case 3: backward_lane_vectors<A, T, kLog, 3>(yj, dyj, dxj, g.len, g.axis_stride, last); break;
        default: backward_lane_vectors<A, T, kLog, 4>(yj, dyj, dxj, g.len, g.axis_stride, last); break;
      }
    }
  }
}

template <class A, class Dst, class DiffDst, class DiffSrc>
void backward_strided(const kernel_args& k, dim_t begin, dim_t end) {
  static_assert(std::is_same_v<Dst, DiffDst> && std::is_same_v<Dst, DiffSrc>);
  if (k.alg == softmax_alg::logsoftmax) {
    backward_strided_rows<A, Dst, true>(k, begin, end);
  } else {
    backward_strided_rows<A, Dst, false>(k, begin, end);
  }
}

}  // namespace
}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_
