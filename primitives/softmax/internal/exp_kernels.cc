// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/primitives/softmax/internal/exp_kernels.h"

#include "tessera/primitives/softmax/internal/exp_minus.h"
#include "tessera/primitives/softmax/internal/exp_nearby.h"
#include "tessera/primitives/softmax/internal/exp_nonpositive.h"
#include "tessera/primitives/softmax/internal/scaled_exp_f64.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace TESSERA_ISA_NS {

// dst[i] = op(src[i]) batch by batch, the tail through load_partial / store_partial.
template <class Arch, class T, class Op>
void map_array(const T* src, T* dst, int64_t n, const Op& op) {
  using batch = xsimd::batch<T, Arch>;
  int64_t i = 0;
  for (; i + static_cast<int64_t>(batch::size) <= n; i += batch::size) {
    op(batch::load_unaligned(src + i)).store_unaligned(dst + i);
  }
  const int rest = static_cast<int>(n - i);
  if (rest > 0) simd::store_partial(dst + i, op(simd::load_partial<Arch>(src + i, rest)), rest);
}

}  // namespace TESSERA_ISA_NS

template <class Arch>
void exp_nonpositive_kernel(const float* src, float* dst, int64_t n) {
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, [](auto v) { return exp_nonpositive_f32<Arch>(v); });
}

template <class Arch>
bool exp_minus_kernel(const float* src, float* dst, int64_t n, float c, float lo) {
  const auto exp_minus = exp_minus_f32<Arch>::make(c, lo);
  if (!exp_minus) return false;
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, *exp_minus);
  return true;
}

template <class Arch>
bool exp_minus_lanes_kernel(const float* src, float* dst, int64_t n, const float* c,
                            const float* lo) {
  using batch = xsimd::batch<float, Arch>;
  const auto exp_minus =
      exp_minus_lanes_f32<Arch>::make(batch::load_unaligned(c), batch::load_unaligned(lo));
  if (!exp_minus) return false;
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, *exp_minus);
  return true;
}

template <class Arch>
bool exp_minus_nearby_kernel(const float* src, float* dst, int64_t n, float c, float lo,
                             double* shift, double* to_c) {
  const auto exp_minus = exp_minus_nearby_f32<Arch>::make(c, lo);
  if (!exp_minus) return false;
  *shift = exp_minus->shift();
  *to_c = exp_minus->to_c();
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, *exp_minus);
  return true;
}

template <class Arch>
bool exp_minus_nearby_lanes_kernel(const float* src, float* dst, int64_t n, const float* c,
                                   const float* lo, double* shift, double* to_c) {
  using batch = xsimd::batch<float, Arch>;
  const auto exp_minus = exp_minus_nearby_lanes_f32<Arch>::make(batch::load_unaligned(c),
                                                                batch::load_unaligned(lo));
  if (!exp_minus) return false;
  for (int i = 0; i < static_cast<int>(batch::size); ++i) {
    shift[i] = exp_minus->shift(i);
    to_c[i] = exp_minus->to_c(i);
  }
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, *exp_minus);
  return true;
}

template <class Arch>
void scaled_exp_f64_kernel(const double* src, double* dst, int64_t n, double scale) {
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n, scaled_exp_f64<Arch>(scale));
}

template <class Arch>
void full_exp_f64_kernel(const double* src, double* dst, int64_t n, double scale) {
  TESSERA_ISA_NS::map_array<Arch>(src, dst, n,
                                  scaled_exp_f64<Arch, exp_f64_accuracy::full>(scale));
}

template void exp_nonpositive_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t);
template bool exp_minus_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t, float, float);
template bool exp_minus_lanes_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t,
                                                        const float*, const float*);
template bool exp_minus_nearby_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t, float,
                                                         float, double*, double*);
template bool exp_minus_nearby_lanes_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t,
                                                               const float*, const float*, double*,
                                                               double*);
template void scaled_exp_f64_kernel<TESSERA_SIMD_ARCH>(const double*, double*, int64_t, double);
template void full_exp_f64_kernel<TESSERA_SIMD_ARCH>(const double*, double*, int64_t, double);

}  // namespace tessera::softmax_internal
