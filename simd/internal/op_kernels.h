// Array forms of the small per-ISA ops (widen.h, scalef.h), instantiated per ISA so that tests run each
// under every ISA the machine has (op_kernels.cc).
#ifndef TESSERA_SIMD_INTERNAL_OP_KERNELS_H_
#define TESSERA_SIMD_INTERNAL_OP_KERNELS_H_

#include <cstdint>

namespace tessera::simd::internal {

// For each whole batch of src (n a multiple of the f32 lanes): wide[i] = src[i] through
// widen_to_f64, and back[i] = narrow_to_f32 of wide2[i] (the two halves from wide2).
template <class Arch>
void widen_narrow_kernel(const float* src, double* wide, const double* wide2, float* back,
                         int64_t n);

// For each whole batch (n a multiple of the f32 lanes): out[i] = scalef(x[i], e[i]).
template <class Arch>
void scalef_kernel(const float* x, const float* e, float* out, int64_t n);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_OP_KERNELS_H_
