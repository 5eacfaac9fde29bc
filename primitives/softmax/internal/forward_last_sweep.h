// The one-row forward's last sweep (last_sweep), which also reads a later row's range, and the
// partial loads it and the row pairs share. Part of the per-ISA kernels: include only from
// vector_kernels_impl.h (through forward_dense.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LAST_SWEEP_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LAST_SWEEP_H_

#include <limits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_store.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

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
// i .. i + lanes) at q + i (store_result: times `scale` in an int8 kernel). With `ahead` (a later row, single-run rows only) it also returns
// that row's max, and its min when kWithMin: this sweep is bound by its stores, so that row's
// first sweep (loads, maxes and mins only) costs almost nothing alongside it. Without, it returns
// {-Inf, +Inf}.
template <class A, bool kWithMin, class S, class D, class Y>
[[gnu::always_inline]] inline row_range last_sweep(D* q, dim_t n, const S* ahead, float scale, Y&& y) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const float inf = std::numeric_limits<float>::infinity();
  F a0(-inf), a1(-inf), b0(inf), b1(inf);
  dim_t i = 0;
  if (ahead != nullptr) {
    for (; i + 2 * W <= n; i += 2 * W) {
      store_result<S>(q + i, y(i, W), scale);
      store_result<S>(q + i + W, y(i + W, W), scale);
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
    store_result<S>(q + i, y(i, W), scale);
    if (ahead != nullptr) {
      const F x = simd::load_f32<A>(ahead + i);
      a0 = xsimd::max(x, a0);
      if constexpr (kWithMin) b0 = xsimd::min(x, b0);
    }
  }
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    store_result<S>(q + i, y(i, rest), scale, rest);
    if (ahead != nullptr) {
      a0 = xsimd::max(load_partial<A>(ahead + i, rest, -inf), a0);
      if constexpr (kWithMin) b0 = xsimd::min(load_partial<A>(ahead + i, rest, inf), b0);
    }
  }
  return {simd::reduce_max<A>(xsimd::max(a0, a1)),
          kWithMin ? -simd::reduce_max<A>(-xsimd::min(b0, b1)) : inf};
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_LAST_SWEEP_H_
