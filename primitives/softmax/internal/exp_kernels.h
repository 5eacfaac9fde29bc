// Array forms of the softmax's exps (exp_nonpositive.h, exp_minus.h, exp_nearby.h,
// scaled_exp_f64.h), instantiated per ISA (exp_kernels.cc) so that tests and benchmarks run each
// under every ISA the machine has.
//
//   float y[100];
//   softmax_internal::exp_nonpositive_kernel<xsimd::avx2>(x, y, 100);   // an AVX2 machine
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_KERNELS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_KERNELS_H_

#include <cstdint>

namespace tessera::softmax_internal {

// exp_nonpositive_f32 (inputs in [-110, 0] or NaN).
template <class Arch>
void exp_nonpositive_kernel(const float* src, float* dst, int64_t n);
// dst[i] = exp(src[i] - c) through exp_minus_f32 made for the range [lo, c]; false (dst not
// written) when make() declines.
template <class Arch>
bool exp_minus_kernel(const float* src, float* dst, int64_t n, float c, float lo);
// exp_minus_lanes_f32 made for per-lane ranges [lo[i], c[i]] (i < the batch's f32 lanes):
// dst[j] = its lane j % lanes of exp(src - c); false (nothing written) when make() declines.
template <class Arch>
bool exp_minus_lanes_kernel(const float* src, float* dst, int64_t n, const float* c,
                            const float* lo);
// dst[i] = exp(src[i] - s) through exp_minus_nearby_f32 made for the range [lo, c], with
// *shift = s and *to_c = exp(s - c); false (dst not written) when make() declines.
template <class Arch>
bool exp_minus_nearby_kernel(const float* src, float* dst, int64_t n, float c, float lo,
                             double* shift, double* to_c);
// exp_minus_nearby_lanes_f32 made for per-lane ranges [lo[i], c[i]] (i < the batch's f32 lanes):
// dst[j] = its lane j % lanes of exp(src - s), with shift[i] and to_c[i] lane i's s and
// exp(s - c); false (nothing written) when make() declines.
template <class Arch>
bool exp_minus_nearby_lanes_kernel(const float* src, float* dst, int64_t n, const float* c,
                                   const float* lo, double* shift, double* to_c);
// dst[i] = exp(src[i]) * scale through scaled_exp_f64, relaxed accuracy (logsoftmax backward).
template <class Arch>
void scaled_exp_f64_kernel(const double* src, double* dst, int64_t n, double scale);
// dst[i] = exp(src[i]) * scale through scaled_exp_f64, full accuracy (f64 forward).
template <class Arch>
void full_exp_f64_kernel(const double* src, double* dst, int64_t n, double scale);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_EXP_KERNELS_H_
