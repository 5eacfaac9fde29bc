// Array forms of exp_f32, log_f32, reduce_max and reduce_sum, and tail.h's partial loads and
// stores, instantiated per ISA so tests and benchmarks can run each under every ISA
// (math_kernels.cc).
#ifndef TESSERA_SIMD_INTERNAL_MATH_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_MATH_KERNELS_H_

#include <cstdint>

namespace tessera::simd::internal {

template <class Arch>
void exp_kernel(const float* src, float* dst, int64_t n);
template <class Arch>
void log_kernel(const float* src, float* dst, int64_t n);
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
