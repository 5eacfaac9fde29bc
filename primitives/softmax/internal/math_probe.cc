// One ISA's instantiation of the math probes (tessera_isa_kernels sets TESSERA_SIMD_ARCH).
#include "tessera/primitives/softmax/internal/math_probe.h"

#include <algorithm>

#include "tessera/simd/math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal {
namespace {

// dst[i] = op(src[i]); the partial last vector through a zero-padded buffer.
template <class T, class Arch, class Op>
void map_array(const T* src, T* dst, int64_t n, Op op) {
  using batch = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(batch::size);
  int64_t i = 0;
  for (; i + W <= n; i += W) op(batch::load_unaligned(src + i)).store_unaligned(dst + i);
  if (i < n) {
    alignas(64) T buffer[W] = {};
    std::copy(src + i, src + n, buffer);
    op(batch::load_aligned(buffer)).store_aligned(buffer);
    std::copy(buffer, buffer + (n - i), dst + i);
  }
}

}  // namespace

template <class Arch>
void exp_f64_relaxed_array(const double* src, double* dst, int64_t n, double scale) {
  const simd::scaled_exp_f64<Arch> exp_times(scale);
  map_array<double, Arch>(src, dst, n, exp_times);
}

template void exp_f64_relaxed_array<TESSERA_SIMD_ARCH>(const double*, double*, int64_t, double);

}  // namespace tessera::softmax_internal
