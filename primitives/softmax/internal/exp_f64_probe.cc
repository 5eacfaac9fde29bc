// One ISA's instantiation of exp_f64_relaxed_array (tessera_isa_kernels sets TESSERA_SIMD_ARCH).
#include "tessera/primitives/softmax/internal/exp_f64_probe.h"

#include <algorithm>

#include "tessera/simd/math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {

template <class Arch>
void exp_f64_relaxed_array(const double* src, double* dst, int64_t n, double scale) {
  const simd::scaled_exp_f64<Arch> exp_times(scale);
  using db = xsimd::batch<double, Arch>;
  constexpr int64_t W = static_cast<int64_t>(db::size);
  int64_t i = 0;
  for (; i + W <= n; i += W) exp_times(db::load_unaligned(src + i)).store_unaligned(dst + i);
  if (i < n) {
    alignas(64) double buffer[W] = {};
    std::copy(src + i, src + n, buffer);
    exp_times(db::load_aligned(buffer)).store_aligned(buffer);
    std::copy(buffer, buffer + (n - i), dst + i);
  }
}

template void exp_f64_relaxed_array<TESSERA_SIMD_ARCH>(const double*, double*, int64_t, double);

}  // namespace tessera::softmax_internal
