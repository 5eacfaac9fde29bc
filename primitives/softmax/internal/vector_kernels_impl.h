// The softmax kernels, written once against xsimd and instantiated per ISA by vector_kernels.cc
// (simd/build_defs.bzl: tessera_isa_kernels). Include only from there: it carries the ISA flags.
// The kernels themselves: forward_dense.h and forward_strided.h (each the driver of the row
// kernels in the forward_*.h files it includes), backward_dense.h, backward_strided.h (shared
// arithmetic in kernel_math.h); this file holds the per-ISA tables of them.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_IMPL_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_IMPL_H_

#include "tessera/core/data_type.h"
#include "tessera/primitives/softmax/internal/backward_dense.h"
#include "tessera/primitives/softmax/internal/backward_strided.h"
#include "tessera/primitives/softmax/internal/forward_dense.h"
#include "tessera/primitives/softmax/internal/forward_f64.h"
#include "tessera/primitives/softmax/internal/forward_post_ops.h"
#include "tessera/primitives/softmax/internal/forward_strided.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/vector_kernels.h"
#include "tessera/simd/per_isa.h"

namespace tessera::softmax_internal {
namespace TESSERA_ISA_NS {

// Calls f(T{}) for the element types this ISA vectorises; returns false for the others.
template <class A, class F>
bool visit_vector_type(data_type dt, F&& f) {
  switch (dt) {
    case data_type::f32: f(float{}); return true;
    case data_type::bf16: f(bf16{}); return true;
    case data_type::f16:
      if constexpr (kHasF16c<A>) {
        f(f16{});
        return true;
      }
      return false;
    default: return false;
  }
}

// The forward's: the vectorised types and s8, u8 (int8 kernels scale their results:
// scaled_store.h). The backward has no int8 (as in oneDNN).
template <class A, class F>
bool visit_forward_type(data_type dt, F&& f) {
  switch (dt) {
    case data_type::s8: f(int8_t{}); return true;
    case data_type::u8: f(uint8_t{}); return true;
    default: return visit_vector_type<A>(dt, f);
  }
}

// The avx512bw_bf16 instantiation differs from avx512bw only where it stores bf16 (vcvtneps2bf16):
// it compiles kernels for bf16 outputs only, and its tables (*_for below) hand the other outputs
// to avx512bw's (instantiated by that ISA's vector_kernels.cc, declared extern there). That saves
// compiling two thirds of the kernels a fourth time (each build configuration compiles all ISAs).
template <class A, class F>
bool visit_output_type(data_type dt, F&& f) {
  if constexpr (simd::has_native_bf16<A>) {
    if (dt != data_type::bf16) return false;
    f(bf16{});
    return true;
  } else {
    return visit_vector_type<A>(dt, f);
  }
}
template <class A, class F>
bool visit_forward_output_type(data_type dt, F&& f) {
  if constexpr (simd::has_native_bf16<A>) {
    return visit_output_type<A>(dt, f);
  } else {
    return visit_forward_type<A>(dt, f);
  }
}

// The forward kernel `pick(S{}, D{})` for vectorised src / dst types; nullptr for the others.
template <class A, class Pick>
kernel_fn for_types(data_type s, data_type d, Pick pick) {
  kernel_fn fn = nullptr;
  visit_forward_type<A>(s, [&](auto st) {
    visit_forward_output_type<A>(d, [&](auto dt) { fn = pick(st, dt); });
  });
  return fn;
}

// Backward: one type for all three tensors keeps the instantiation count small.
template <class A, class Pick>
kernel_fn for_one_type(data_type y, data_type dy, data_type dx, Pick pick) {
  kernel_fn fn = nullptr;
  if (y != dy || y != dx) return nullptr;
  visit_output_type<A>(y, [&](auto t) { fn = pick(t); });
  return fn;
}

}  // namespace TESSERA_ISA_NS

// The tables: entry points of the per-ISA code, outside TESSERA_ISA_NS so that plan.cc names them
// for every ISA; each instantiation differs by its Arch argument.
template <class A>
kernel_fn forward_dense_for(data_type s, data_type d) {
  if constexpr (simd::has_native_bf16<A>) {
    if (d != data_type::bf16) return forward_dense_for<xsimd::avx512bw>(s, d);
  } else {
    if (s == data_type::f64 && d == data_type::f64) return &TESSERA_ISA_NS::forward_dense_f64<A>;
  }
  return TESSERA_ISA_NS::for_types<A>(s, d, [](auto st, auto dt) -> kernel_fn {
    return &TESSERA_ISA_NS::forward_dense<A, decltype(st), decltype(dt)>;
  });
}

template <class A>
kernel_fn forward_strided_for(data_type s, data_type d) {
  if constexpr (simd::has_native_bf16<A>) {
    if (d != data_type::bf16) return forward_strided_for<xsimd::avx512bw>(s, d);
  } else {
    if (s == data_type::f64 && d == data_type::f64) return &TESSERA_ISA_NS::forward_strided_f64<A>;
  }
  return TESSERA_ISA_NS::for_types<A>(s, d, [](auto st, auto dt) -> kernel_fn {
    return &TESSERA_ISA_NS::forward_strided<A, decltype(st), decltype(dt)>;
  });
}

template <class A>
kernel_fn forward_post_ops_for(data_type s, data_type d) {
  if constexpr (simd::has_native_bf16<A>) {
    if (d != data_type::bf16) return forward_post_ops_for<xsimd::avx512bw>(s, d);
  }
  return TESSERA_ISA_NS::for_types<A>(s, d, [](auto st, auto dt) -> kernel_fn {
    return &TESSERA_ISA_NS::forward_post_ops<A, decltype(st), decltype(dt)>;
  });
}

template <class A>
kernel_fn backward_dense_for(data_type y, data_type dy, data_type dx) {
  if constexpr (simd::has_native_bf16<A>) {
    if (dx != data_type::bf16) return backward_dense_for<xsimd::avx512bw>(y, dy, dx);
  }
  return TESSERA_ISA_NS::for_one_type<A>(y, dy, dx, [](auto t) -> kernel_fn {
    using T = decltype(t);
    return &TESSERA_ISA_NS::backward_dense<A, T, T, T>;
  });
}

template <class A>
kernel_fn backward_strided_for(data_type y, data_type dy, data_type dx) {
  if constexpr (simd::has_native_bf16<A>) {
    if (dx != data_type::bf16) return backward_strided_for<xsimd::avx512bw>(y, dy, dx);
  }
  return TESSERA_ISA_NS::for_one_type<A>(y, dy, dx, [](auto t) -> kernel_fn {
    using T = decltype(t);
    return &TESSERA_ISA_NS::backward_strided<A, T, T, T>;
  });
}

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_IMPL_H_
