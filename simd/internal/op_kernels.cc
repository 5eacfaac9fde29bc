// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/simd/internal/op_kernels.h"

#include "tessera/simd/scalef.h"
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
void scalef_kernel(const float* x, const float* e, float* out, int64_t n) {
  using fb = xsimd::batch<float, Arch>;
  for (int64_t i = 0; i + static_cast<int64_t>(fb::size) <= n; i += fb::size) {
    scalef<Arch>(fb::load_unaligned(x + i), fb::load_unaligned(e + i)).store_unaligned(out + i);
  }
}

template void scalef_kernel<TESSERA_SIMD_ARCH>(const float*, const float*, float*, int64_t);
template void widen_narrow_kernel<TESSERA_SIMD_ARCH>(const float*, double*, const double*,
                                                     float*, int64_t);

}  // namespace tessera::simd::internal
