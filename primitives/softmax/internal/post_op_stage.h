// The post-op chain applied to a vector of f32 softmax results just before its store: eltwise in
// f32 as oneDNN defines them, binary with the operand converted to f32, in the chain's order. Part
// of the per-ISA kernels: include only from vector_kernels_impl.h (through forward_post_ops.h).
//
//   post_op_stage<A> stage(*args.post_ops);
//   stage.start_row(args.rows, row);                 // the operands' offsets for this row
//   y = stage.apply(y, axis_step, first_lane, count); // count valid lanes of y
//
// A vector runs along the axis (dense kernel: axis_step is the first element's, first_lane 0) or
// across the lanes of a strided group (first_lane the first lane's).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_STAGE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_STAGE_H_

#include <array>
#include <cmath>
#include <cstdint>

#include "tessera/core/convert.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/post_op_chain.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/math.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/select.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// Calls f(T{}) for the operand's element type (check_post_ops allows these five).
template <class F>
[[gnu::always_inline]] inline void visit_operand_type(data_type dt, F&& f) {
  switch (dt) {
    case data_type::bf16: f(bf16{}); return;
    case data_type::f16: f(f16{}); return;
    case data_type::s8: f(int8_t{}); return;
    case data_type::u8: f(uint8_t{}); return;
    default: f(float{}); return;
  }
}

// oneDNN's eltwise formulas in f32. clip's and the binary max / min's select forms are fmax /
// fmin's: a NaN x gives the bound (clip) or the other operand.
template <class A>
vf<A> eltwise_f32(const post_op_step& s, vf<A> x) {
  using F = vf<A>;
  namespace ts = ::tessera::simd;
  switch (s.eltwise) {
    case eltwise_alg::linear: return simd::fused_fma(F(s.alpha), x, F(s.beta));
    case eltwise_alg::relu: return ts::select(x > F(0.f), x, F(s.alpha) * x);
    case eltwise_alg::clip: {
      const F lo = ts::select(x > F(s.alpha), x, F(s.alpha));
      return ts::select(lo < F(s.beta), lo, F(s.beta));
    }
    case eltwise_alg::abs: return xsimd::abs(x);
    case eltwise_alg::square: return x * x;
    case eltwise_alg::sqrt: return xsimd::sqrt(x);
    case eltwise_alg::exp: return simd::exp_f32<A>(x);
    case eltwise_alg::tanh: {
      // |x| >= 1/4: (1 - e) / (1 + e) with e = exp(-2|x|) <= e^-0.5, the sign put back (no
      // overflow; 1 - e >= 0.39 keeps exp's error a few eps). |x| < 1/4: the Taylor series to
      // x^9 (the first omitted term is below 0.1 eps relative there), so that tanh of a tiny x
      // is x, not 0 (1 - e would cancel).
      const F ax = xsimd::abs(x);
      const F e = simd::exp_f32<A>(F(-2.f) * ax);
      const F far = xsimd::bitwise_or((F(1.f) - e) / (F(1.f) + e), xsimd::bitwise_and(x, F(-0.f)));
      const F x2 = x * x;
      F p = simd::fused_fma(F(62.f / 2835), x2, F(-17.f / 315));
      p = simd::fused_fma(p, x2, F(2.f / 15));
      p = simd::fused_fma(p, x2, F(-1.f / 3));
      const F near = simd::fused_fma(x * x2, p, x);
      return ts::select(ax < F(0.25f), near, far);
    }
    case eltwise_alg::logistic:  // select keeps a NaN x (its compare is false)
      return ts::select(x <= F(kLogisticZeroAtOrBelow), F(0.f),
                        F(1.f) / (F(1.f) + simd::exp_f32<A>(-x)));
  }
  return x;
}

template <class A>
vf<A> binary_f32(binary_alg alg, vf<A> a, vf<A> b) {
  using F = vf<A>;
  namespace ts = ::tessera::simd;
  const F one(1.f), zero(0.f);
  switch (alg) {
    case binary_alg::add: return a + b;
    case binary_alg::sub: return a - b;
    case binary_alg::mul: return a * b;
    case binary_alg::div: return a / b;
    case binary_alg::max: return ts::select(a > b, a, b);
    case binary_alg::min: return ts::select(a < b, a, b);
    case binary_alg::ge: return ts::select(a >= b, one, zero);
    case binary_alg::gt: return ts::select(a > b, one, zero);
    case binary_alg::le: return ts::select(a <= b, one, zero);
    case binary_alg::lt: return ts::select(a < b, one, zero);
    case binary_alg::eq: return ts::select(a == b, one, zero);
    case binary_alg::ne: return ts::select(ts::not_equal(a, b), one, zero);
  }
  return a;
}

template <class A>
struct post_op_stage {
  using F = vf<A>;
  static constexpr int W = kWidth<A>;
  const post_op_chain& chain;
  std::array<dim_t, kMaxPostOps> row_offset{};  // each binary operand's offset at the row start

  explicit post_op_stage(const post_op_chain& c) : chain(c) {}

  void start_row(const row_loops& rows, dim_t row) {
    for (int i = 0; i < chain.count; ++i) row_offset[i] = 0;
    for (int l = rows.depth - 1; l >= 0; --l) {
      const dim_t at = row % rows.sizes[l];
      row /= rows.sizes[l];
      for (int i = 0; i < chain.count; ++i) row_offset[i] += at * chain.steps[i].row_strides[l];
    }
  }

  // `count` (1..W) operand values from element `offset` on, `stride` apart, as f32 (lanes past
  // count 0). Never reads past the last of them.
  template <class T>
  static F operand(const T* p, dim_t offset, dim_t stride, int count) {
    if (stride == 0) return F(to_f32(p[offset]));
    if (stride == 1) {
      return count == W ? simd::load_f32<A>(p + offset) : simd::load_f32<A>(p + offset, count);
    }
    alignas(64) float v[W] = {};
    for (int j = 0; j < count; ++j) v[j] = to_f32(p[offset + j * stride]);
    return F::load_aligned(v);
  }

  [[gnu::always_inline]] F apply(F y, dim_t axis_step, dim_t first_lane, int count) const {
    for (int i = 0; i < chain.count; ++i) {
      const post_op_step& s = chain.steps[i];
      if (s.kind == post_op_kind::eltwise) {
        y = eltwise_f32<A>(s, y);
        continue;
      }
      const dim_t offset = row_offset[i] + axis_step * s.axis_stride + first_lane * s.lane_stride;
      const dim_t stride = chain.strided ? s.lane_stride : s.axis_stride;
      F b;
      visit_operand_type(s.src1_dt, [&](auto t) __attribute__((always_inline)) {
        b = operand(static_cast<const decltype(t)*>(s.src1), offset, stride, count);
      });
      y = binary_f32<A>(s.binary, y, b);
    }
    return y;
  }
};

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_POST_OP_STAGE_H_
