// Array forms of the small per-ISA ops (widen.h, scalef.h, table_lookup.h, compare.h, math.h's
// fused_fma, fused_fnma and divide), instantiated per ISA so that tests run each under every ISA the
// machine has (op_kernels.cc).
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
template <class Arch>
void scalef_f64_kernel(const double* x, const double* e, double* out, int64_t n);

// For each whole batch of index (n a multiple of the T lanes): out[i] = table_lookup of the
// batch at `table` (as many entries as lanes) at index[i]; out2[i] = table_lookup2 of the two
// batches at table2 (twice as many entries) at index[i].
template <class Arch>
void table_lookup_f32_kernel(const float* table, const float* table2, const int32_t* index,
                             float* out, float* out2, int64_t n);
template <class Arch>
void table_lookup_f64_kernel(const double* table, const double* table2, const int64_t* index,
                             double* out, double* out2, int64_t n);

// For each whole batch (n a multiple of the T lanes): fma[i] = fused_fma(a[i], b[i], c[i]) and
// fnma[i] = fused_fnma(a[i], b[i], c[i]).
template <class Arch>
void fused_f32_kernel(const float* a, const float* b, const float* c, float* fma, float* fnma,
                      int64_t n);
template <class Arch>
void fused_f64_kernel(const double* a, const double* b, const double* c, double* fma,
                      double* fnma, int64_t n);

// For each whole batch (n a multiple of the f32 lanes): out[i] = divide(a[i], b[i]).
template <class Arch>
void divide_f32_kernel(const float* a, const float* b, float* out, int64_t n);

// For each whole batch (n a multiple of the T lanes): out[i] = not_greater_equal(a[i], b[i]).
template <class Arch>
void not_greater_equal_f32_kernel(const float* a, const float* b, bool* out, int64_t n);
template <class Arch>
void not_greater_equal_f64_kernel(const double* a, const double* b, bool* out, int64_t n);

// For each whole batch: out[i] = not_equal(a[i], b[i]).
template <class Arch>
void not_equal_f32_kernel(const float* a, const float* b, bool* out, int64_t n);
template <class Arch>
void not_equal_f64_kernel(const double* a, const double* b, bool* out, int64_t n);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_OP_KERNELS_H_
