// The simd/math.h functions the softmax kernels added, over arrays, instantiated per ISA
// (math_probe.cc) so their tests can run each ISA's code. They live here because the softmax
// kernels are their users; the natural home is simd/internal/math_kernels (owned by simd/).
//
//   exp_f64_relaxed_array<xsimd::avx512bw>(x.data(), y.data(), n, /*scale=*/1.0);
//   exp_nonpositive_fused_array<xsimd::avx512bw>(xf.data(), yf.data(), n);
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_

#include <cstdint>

namespace tessera::softmax_internal {

// dst[i] = exp(src[i]) * scale through simd::scaled_exp_f64, for i < n; a partial last vector
// goes through a buffer.
template <class Arch>
void exp_f64_relaxed_array(const double* src, double* dst, int64_t n, double scale);

// dst[i] = simd::exp_nonpositive_fused_f32(src[i]), for i < n.
template <class Arch>
void exp_nonpositive_fused_array(const float* src, float* dst, int64_t n);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_
