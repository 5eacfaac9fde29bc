// The arithmetic of one reordered element, shared by every scalar path (kernel tails, the strided
// kernel, the element-wise kernel) so that all of them agree bit for bit.
//
//   quant_ptrs q = ...;                       // resolved at execution; null = attribute absent
//   dst[i] = apply_one<float>(src[i], &dst[i], q, offsets);
//
// Order (docs/reorder.md): x = src; x -= src_zp; x *= src_scale; x *= oscale;
// x += beta * (dst - dst_zp); x /= dst_scale; x += dst_zp; then the scalar conversion.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_ELEMENT_MATH_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_ELEMENT_MATH_H_

#include <cstdint>
#include <type_traits>

#include "tessera/core/convert.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"

// A fused multiply-add would round once instead of twice and break bit-exactness between the
// scalar and vector paths; every file including this one computes with separate roundings.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace tessera::reorder_internal {

// Where the quantization values of the current execution live. Indexed with the loop nest's
// scale/zero-point operand offsets.
struct quant_ptrs {
  const float* src_scale = nullptr;
  const float* dst_scale = nullptr;
  const int32_t* src_zp = nullptr;
  const int32_t* dst_zp = nullptr;
  const float* oscale = nullptr;
  bool has_sum = false;
  float beta = 0.f;
  int32_t sum_zp = 0;  // 2.x sum zero point, used when there is no dst zero point
  bool stochastic = false;  // dst rounded stochastically (element-wise kernel only), with seed
  uint32_t seed = 0;

  bool any() const {
    return src_scale || dst_scale || src_zp || dst_zp || oscale || has_sum || stochastic;
  }
};

template <class Acc, Element T>
constexpr Acc widen(T v) {
  if constexpr (std::is_same_v<Acc, double>) {
    return to_f64(v);
  } else {
    return to_f32(v);
  }
}

template <Element T, class Acc>
constexpr T narrow(Acc v) {
  if constexpr (std::is_same_v<Acc, double>) {
    return from_f64<T>(v);
  } else {
    return from_f32<T>(v);
  }
}

// f64 arithmetic when either side is f64, else f32.
template <Element S, Element D>
using acc_t = std::conditional_t<std::is_same_v<S, double> || std::is_same_v<D, double>, double,
                                 float>;

template <Element S, Element D>
inline D apply_one(S s, const D* dst_old, const quant_ptrs& q, const strides_t& off) {
  using Acc = acc_t<S, D>;
  Acc x = widen<Acc>(s);
  if (q.src_zp) x -= static_cast<Acc>(q.src_zp[off[kSrcZp]]);
  if (q.src_scale) x *= static_cast<Acc>(q.src_scale[off[kSrcScale]]);
  if (q.oscale) x *= static_cast<Acc>(q.oscale[off[kOscale]]);
  if (q.has_sum) {
    const Acc zp = q.dst_zp ? static_cast<Acc>(q.dst_zp[off[kDstZp]]) : static_cast<Acc>(q.sum_zp);
    const Acc old = widen<Acc>(*dst_old) - zp;
    x += static_cast<Acc>(q.beta) * old;
  }
  if (q.dst_scale) x /= static_cast<Acc>(q.dst_scale[off[kDstScale]]);
  if (q.dst_zp) x += static_cast<Acc>(q.dst_zp[off[kDstZp]]);
  return narrow<D>(x);
}

// Calls f(S{}, D{}) for the run-time type pair.
template <class F>
decltype(auto) visit_type_pair(data_type s, data_type d, F&& f) {
  return visit_data_type(s, [&](auto sv) {
    return visit_data_type(d, [&](auto dv) { return f(sv, dv); });
  });
}

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_ELEMENT_MATH_H_
