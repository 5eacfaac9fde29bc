// simd::scaled_exp_f64 over an array, instantiated per ISA (exp_f64_probe.cc) so its test can run
// each ISA's code. It lives here because the logsoftmax backward kernel is its user; the natural
// home is simd/internal/math_kernels (owned by the simd/ engineer).
//
//   exp_f64_relaxed_array<xsimd::avx512bw>(x.data(), y.data(), n, /*scale=*/1.0);
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_F64_PROBE_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_F64_PROBE_H_

#include <cstdint>

namespace tessera::softmax_internal {

// dst[i] = exp(src[i]) * scale through scaled_exp_f64, for i < n; a partial last vector is padded through a buffer.
template <class Arch>
void exp_f64_relaxed_array(const double* src, double* dst, int64_t n, double scale);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_F64_PROBE_H_
