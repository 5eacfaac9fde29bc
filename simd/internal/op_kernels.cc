// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/simd/internal/op_kernels.h"

#include "tessera/simd/compare.h"
#include "tessera/simd/math.h"
#include "tessera/simd/scalef.h"
#include "tessera/simd/table_lookup.h"
#include "tessera/simd/widen.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {

template <class Arch>
void widen_narrow_kernel(const float* src, double* wide, const double* wide2, float* back,
                         int64_t n) {
  using fb = xsimd::batch<float, Arch>;
  using db = xsimd::batch<double, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(fb::size) <= n; i += fb::size) {
    db lo, hi;
    widen_to_f64<Arch>(fb::load_unaligned(src + i), lo, hi);
    lo.store_unaligned(wide + i);
    hi.store_unaligned(wide + i + db::size);
    narrow_to_f32<Arch>(db::load_unaligned(wide2 + i), db::load_unaligned(wide2 + i + db::size))
        .store_unaligned(back + i);
  }
}

template <class Arch>
void divide_f32_kernel(const float* a, const float* b, float* out, int64_t n) {
  using fb = xsimd::batch<float, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(fb::size) <= n; i += fb::size) {
    divide(fb::load_unaligned(a + i), fb::load_unaligned(b + i)).store_unaligned(out + i);
  }
}

template <class Arch>
void scalef_kernel(const float* x, const float* e, float* out, int64_t n) {
  using fb = xsimd::batch<float, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(fb::size) <= n; i += fb::size) {
    scalef<Arch>(fb::load_unaligned(x + i), fb::load_unaligned(e + i)).store_unaligned(out + i);
  }
}

template <class Arch>
void scalef_f64_kernel(const double* x, const double* e, double* out, int64_t n) {
  using db = xsimd::batch<double, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(db::size) <= n; i += db::size) {
    scalef<Arch>(db::load_unaligned(x + i), db::load_unaligned(e + i)).store_unaligned(out + i);
  }
}

template <class Arch, class T>
void table_lookup_of(const T* table, const T* table2, const table_index_t<T>* index, T* out,
                     T* out2, int64_t n) {
  using batch = xsimd::batch<T, Arch>;
  using index_batch = xsimd::batch<table_index_t<T>, Arch>;
  const batch one = batch::load_unaligned(table);
  const batch low = batch::load_unaligned(table2);
  const batch high = batch::load_unaligned(table2 + batch::size);
  for (int64_t i = 0; i + static_cast<int64_t>(batch::size) <= n; i += batch::size) {
    const index_batch at = index_batch::load_unaligned(index + i);
    table_lookup<T, Arch>(one, at).store_unaligned(out + i);
    table_lookup2<T, Arch>(low, high, at).store_unaligned(out2 + i);
  }
}

template <class Arch>
void table_lookup_f32_kernel(const float* table, const float* table2, const int32_t* index,
                             float* out, float* out2, int64_t n) {
  table_lookup_of<Arch>(table, table2, index, out, out2, n);
}

template <class Arch>
void table_lookup_f64_kernel(const double* table, const double* table2, const int64_t* index,
                             double* out, double* out2, int64_t n) {
  table_lookup_of<Arch>(table, table2, index, out, out2, n);
}

template <class Arch, class T>
void fused_of(const T* a, const T* b, const T* c, T* fma, T* fnma, int64_t n) {
  using batch = xsimd::batch<T, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(batch::size) <= n; i += batch::size) {
    const batch va = batch::load_unaligned(a + i);
    const batch vb = batch::load_unaligned(b + i);
    const batch vc = batch::load_unaligned(c + i);
    fused_fma(va, vb, vc).store_unaligned(fma + i);
    fused_fnma(va, vb, vc).store_unaligned(fnma + i);
  }
}

template <class Arch>
void fused_f32_kernel(const float* a, const float* b, const float* c, float* fma, float* fnma,
                      int64_t n) {
  fused_of<Arch>(a, b, c, fma, fnma, n);
}

template <class Arch>
void fused_f64_kernel(const double* a, const double* b, const double* c, double* fma,
                      double* fnma, int64_t n) {
  fused_of<Arch>(a, b, c, fma, fnma, n);
}

// out[i] = compare(a[i], b[i]) for each whole batch.
template <class Arch, class T, class Compare>
void compare_of(Compare compare, const T* a, const T* b, bool* out, int64_t n) {
  using batch = xsimd::batch<T, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(batch::size) <= n; i += batch::size) {
    compare(batch::load_unaligned(a + i), batch::load_unaligned(b + i)).store_unaligned(out + i);
  }
}

template <class Arch>
void not_greater_equal_f32_kernel(const float* a, const float* b, bool* out, int64_t n) {
  compare_of<Arch>([](auto x, auto y) { return not_greater_equal(x, y); }, a, b, out, n);
}

template <class Arch>
void not_greater_equal_f64_kernel(const double* a, const double* b, bool* out, int64_t n) {
  compare_of<Arch>([](auto x, auto y) { return not_greater_equal(x, y); }, a, b, out, n);
}

template <class Arch>
void not_equal_f32_kernel(const float* a, const float* b, bool* out, int64_t n) {
  compare_of<Arch>([](auto x, auto y) { return not_equal(x, y); }, a, b, out, n);
}

template <class Arch>
void not_equal_f64_kernel(const double* a, const double* b, bool* out, int64_t n) {
  compare_of<Arch>([](auto x, auto y) { return not_equal(x, y); }, a, b, out, n);
}

template void divide_f32_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, float*, int64_t);
template void not_greater_equal_f32_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, bool*,
                                                              int64_t);
template void not_greater_equal_f64_kernel<TESSERA_SIMD_ARCH>(const double*, const double*, bool*,
                                                              int64_t);
template void not_equal_f32_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, bool*, int64_t);
template void not_equal_f64_kernel<TESSERA_SIMD_ARCH>(const double*, const double*, bool*, int64_t);
template void scalef_f64_kernel<TESSERA_SIMD_ARCH>(const double*, const double*, double*, int64_t);
template void table_lookup_f32_kernel<TESSERA_SIMD_ARCH>(const float*, const float*,
                                                         const int32_t*, float*, float*, int64_t);
template void table_lookup_f64_kernel<TESSERA_SIMD_ARCH>(const double*, const double*,
                                                         const int64_t*, double*, double*, int64_t);
template void fused_f32_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, const float*, float*,
                                                  float*, int64_t);
template void fused_f64_kernel<TESSERA_SIMD_ARCH>(const double*, const double*, const double*,
                                                  double*, double*, int64_t);
template void scalef_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, float*, int64_t);
template void widen_narrow_kernel<TESSERA_SIMD_ARCH>(const float*, double*, const double*,
                                                     float*, int64_t);

}  // namespace tessera::simd::internal
