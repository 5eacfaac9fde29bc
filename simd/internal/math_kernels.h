// Array forms of exp_f32, exp_nonpositive_f32, exp_minus_f32, exp_minus_nearby_f32 (and their
// _lanes forms), log_f32, scaled_exp_f64, reduce_max and reduce_sum, and tail.h's partial loads and
// stores, instantiated per ISA so tests
// and benchmarks can run each under every ISA (math_kernels.cc).
#ifndef TESSERA_SIMD_INTERNAL_MATH_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_MATH_KERNELS_H_

#include <cstdint>

namespace tessera::simd::internal {

template <class Arch>
void exp_kernel(const float* src, float* dst, int64_t n);
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
template <class Arch>
void log_kernel(const float* src, float* dst, int64_t n);
// dst[i] = exp(src[i]) * scale through scaled_exp_f64.
template <class Arch>
void scaled_exp_f64_kernel(const double* src, double* dst, int64_t n, double scale);
// The max / sum of src[0..n) (n >= 1 for max); tails through load_partial.
template <class Arch>
float max_kernel(const float* src, int64_t n);
template <class Arch>
float sum_kernel(const float* src, int64_t n);

// The lane types of tail_kernel (tail.h's load_partial / store_partial).
enum class tail_lanes { f32, f64, i32, i64, i16, u8 };
// load_partial of `count` lanes of `kind` from src, stored whole to `full` (the lanes past count
// must read as 0) and by store_partial to `partial`; returns the batch's lane count.
template <class Arch>
int tail_kernel(tail_lanes kind, const void* src, int count, void* full, void* partial);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_MATH_KERNELS_H_
