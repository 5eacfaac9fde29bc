// xsimd architectures behind each tessera::simd::isa (xsimd::neon64 for isa::neon64 on aarch64),
// and Tessera's one extra: avx512bw with the AVX512-BF16 conversion instructions.
//
//   template <class Arch> void my_kernel(const float* src, float* dst, int64_t n);
//   static_assert(tessera::simd::isa_of<xsimd::avx2> == tessera::simd::isa::avx2);
//   static_assert(tessera::simd::has_native_bf16<tessera::simd::avx512bw_bf16>);
//
// Safe to include in code compiled without -m flags: only the types are used there.
#ifndef TESSERA_SIMD_ARCH_H_
#define TESSERA_SIMD_ARCH_H_

#include <type_traits>

#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

// avx512bw plus vcvtneps2bf16. Kernels written for xsimd::avx512bw run unchanged on it (it
// derives from it); Tessera's bf16 conversions use the native instruction when Arch is this one.
// Only instantiated in translation units compiled with -mavx512bf16, chosen only when the CPU
// has the flag (see kernel_table).
struct avx512bw_bf16 : xsimd::avx512bw {
  static constexpr char const* name() noexcept { return "avx512bw_bf16"; }
};

template <class Arch>
inline constexpr bool has_native_bf16 = std::is_base_of_v<avx512bw_bf16, Arch>;

// The tessera::simd::isa an xsimd architecture is dispatched as.
template <class Arch>
inline constexpr isa isa_of = std::is_base_of_v<xsimd::neon64, Arch>     ? isa::neon64
                              : std::is_base_of_v<xsimd::avx512bw, Arch> ? isa::avx512bw
                              : std::is_base_of_v<xsimd::avx2, Arch>     ? isa::avx2
                                                                         : isa::sse4_2;

// f32 lanes per batch, usable where xsimd::batch<float, Arch> is not (code without -m flags).
template <class Arch>
inline constexpr int f32_lanes = isa_of<Arch> == isa::avx512bw ? 16 : isa_of<Arch> == isa::avx2 ? 8 : 4;

}  // namespace tessera::simd

#if XSIMD_WITH_AVX512BW
// Lets xsimd::batch<T, avx512bw_bf16> reuse avx512bw's registers (how xsimd chains its own archs).
namespace xsimd::types {
template <class T>
struct get_bool_simd_register<T, tessera::simd::avx512bw_bf16> {
  using type = simd_avx512_bool_register<T>;
};
XSIMD_DECLARE_SIMD_REGISTER_ALIAS(tessera::simd::avx512bw_bf16, avx512bw);
}  // namespace xsimd::types
#endif

#endif  // TESSERA_SIMD_ARCH_H_
