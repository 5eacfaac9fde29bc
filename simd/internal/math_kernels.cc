// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/simd/internal/math_kernels.h"

#include <limits>

#include "tessera/simd/math.h"
#include "tessera/simd/select.h"
#include "tessera/simd/reduce.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {

template <class Arch, class T, class Op>
void map_kernel(const T* src, T* dst, int64_t n, Op op) {
  using batch = xsimd::batch<T, Arch>;
  int64_t i = 0;
  for (; i + batch::size <= n; i += batch::size) op(batch::load_unaligned(src + i)).store_unaligned(dst + i);
  const int rest = static_cast<int>(n - i);
  if (rest > 0) store_partial(dst + i, op(load_partial<Arch>(src + i, rest)), rest);
}

template <class Arch>
void exp_kernel(const float* src, float* dst, int64_t n) {
  map_kernel<Arch>(src, dst, n, [](auto v) { return exp_f32(v); });
}

template <class Arch>
void log_kernel(const float* src, float* dst, int64_t n) {
  map_kernel<Arch>(src, dst, n, [](auto v) { return log_f32(v); });
}

template <class Arch>
float max_kernel(const float* src, int64_t n) {
  using batch = xsimd::batch<float, Arch>;
  batch m(-std::numeric_limits<float>::infinity());
  // maxps drops a NaN depending on operand order: remember NaN lanes separately.
  auto nan_seen = xsimd::isnan(m);
  int64_t i = 0;
  for (; i + batch::size <= n; i += batch::size) {
    const batch v = batch::load_unaligned(src + i);
    m = xsimd::max(m, v);
    nan_seen = nan_seen | xsimd::isnan(v);
  }
  const int rest = static_cast<int>(n - i);
  if (rest > 0) {
    // Lanes past the end must not win: fill them with -Inf, not the 0 load_partial gives.
    alignas(64) float buffer[batch::size];
    load_partial<Arch>(src + i, rest).store_aligned(buffer);
    for (int k = rest; k < static_cast<int>(batch::size); ++k) {
      buffer[k] = -std::numeric_limits<float>::infinity();
    }
    const batch v = batch::load_aligned(buffer);
    m = xsimd::max(m, v);
    nan_seen = nan_seen | xsimd::isnan(v);
  }
  return reduce_max(::tessera::simd::select(nan_seen, batch(std::numeric_limits<float>::quiet_NaN()), m));
}

template <class Arch>
float sum_kernel(const float* src, int64_t n) {
  using batch = xsimd::batch<float, Arch>;
  batch s(0.f);
  int64_t i = 0;
  for (; i + batch::size <= n; i += batch::size) s += batch::load_unaligned(src + i);
  const int rest = static_cast<int>(n - i);
  if (rest > 0) s += load_partial<Arch>(src + i, rest);
  return reduce_sum(s);
}

template <class Arch, class T>
int tail_of(const void* src, int count, void* full, void* partial) {
  const auto v = load_partial<Arch>(static_cast<const T*>(src), count);
  v.store_unaligned(static_cast<T*>(full));
  store_partial(static_cast<T*>(partial), v, count);
  return static_cast<int>(xsimd::batch<T, Arch>::size);
}

template <class Arch>
int tail_kernel(tail_lanes kind, const void* src, int count, void* full, void* partial) {
  switch (kind) {
    case tail_lanes::f32: return tail_of<Arch, float>(src, count, full, partial);
    case tail_lanes::f64: return tail_of<Arch, double>(src, count, full, partial);
    case tail_lanes::i32: return tail_of<Arch, int32_t>(src, count, full, partial);
    case tail_lanes::i64: return tail_of<Arch, int64_t>(src, count, full, partial);
    case tail_lanes::i16: return tail_of<Arch, int16_t>(src, count, full, partial);
    case tail_lanes::u8: return tail_of<Arch, uint8_t>(src, count, full, partial);
  }
  return 0;
}

template void exp_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t);
template void log_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t);
template float max_kernel<TESSERA_SIMD_ARCH>(const float*, int64_t);
template float sum_kernel<TESSERA_SIMD_ARCH>(const float*, int64_t);
template int tail_kernel<TESSERA_SIMD_ARCH>(tail_lanes, const void*, int, void*, void*);

}  // namespace tessera::simd::internal
