// simd::scaled_exp_f64 over arrays, instantiated per ISA (math_probe.cc) so its test can run
// each ISA's code. (exp_nonpositive_f32 is tested by //simd:math_test.)
//
//   exp_f64_relaxed_array<xsimd::avx512bw>(x.data(), y.data(), n, /*scale=*/1.0);
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_

#include <cstdint>

namespace tessera::softmax_internal {

// dst[i] = exp(src[i]) * scale through simd::scaled_exp_f64, for i < n; a partial last vector
// goes through a buffer.
template <class Arch>
void exp_f64_relaxed_array(const double* src, double* dst, int64_t n, double scale);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_MATH_PROBE_H_
