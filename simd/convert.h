// Vector conversions between f32 batches and every Tessera element type, bit for bit equal to
// the scalar reference <tessera/core/convert.h> on every ISA (tested exhaustively).
//
//   template <class Arch>
//   void bf16_to_f16(const tessera::bf16* src, tessera::f16* dst, int64_t n) {
//     constexpr int w = xsimd::batch<float, Arch>::size;
//     int64_t i = 0;
//     for (; i + w <= n; i += w) tessera::simd::store_f32(dst + i, tessera::simd::load_f32<Arch>(src + i));
//     const int rest = static_cast<int>(n - i);   // tail: never touches memory past the end
//     tessera::simd::store_f32(dst + i, tessera::simd::load_f32<Arch>(src + i, rest), rest);
//   }
//
// One element per f32 lane: a batch of bf16 holds batch<float, Arch>::size values, not twice as
// many. Rules (the scalar reference's): narrowing rounds once, half to even; NaN keeps its sign
// and top payload bits with the quiet bit set (E4M3: S.1111.111); overflow -> Inf (E4M3: NaN);
// denormals kept. f32 -> s32/s8/u8 rounds half to even and saturates; NaN -> max for s32/s8, 0 for
// u8. Assumes the default MXCSR (round to nearest, no DAZ/FTZ), as the C++ code around it does.
// Native instructions where they pay: F16C on avx2/avx512bw, vcvtneps2bf16 on avx512bw_bf16,
// FCVTL / FCVTN on neon64 (the same rounding and NaN rules, under the default FPCR).
#ifndef TESSERA_SIMD_CONVERT_H_
#define TESSERA_SIMD_CONVERT_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <limits>
#include <type_traits>

#include "tessera/core/data_type.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/select.h"
#include "tessera/simd/internal/int_lanes.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace internal {

// A binary floating-point format narrower than f32, stored in the low bits of an int32 lane.
template <int ExpBits, int MantBits, bool HasInf>
struct narrow_format {
  static constexpr int kExpBits = ExpBits;
  static constexpr int kMantBits = MantBits;
  static constexpr bool kHasInf = HasInf;
  static constexpr int kBias = (1 << (ExpBits - 1)) - 1;
  static constexpr int kShift = 23 - MantBits;  // f32 mantissa bits dropped
  static constexpr int32_t kSignBit = 1 << (ExpBits + MantBits);
  static constexpr int32_t kExpMask = ((1 << ExpBits) - 1) << MantBits;
  static constexpr int32_t kMantMask = (1 << MantBits) - 1;
  static constexpr int32_t kQuietBit = 1 << (MantBits - 1);
  static constexpr int32_t kMaxFinite = HasInf ? kExpMask - 1 : kExpMask | (kMantMask - 1);
  static constexpr int32_t kNan = HasInf ? kExpMask | kQuietBit : kExpMask | kMantMask;
  // f32 exponent field minus this format's, in f32 bit position.
  static constexpr int32_t kRebias = (127 - kBias) << 23;
  // f32 bits of this format's smallest normal, 2^(1 - bias).
  static constexpr int32_t kMinNormalF32Bits = (127 + 1 - kBias) << 23;
};

template <class T>
struct format_of;
template <> struct format_of<bf16> { using type = narrow_format<8, 7, true>; };
template <> struct format_of<f16> { using type = narrow_format<5, 10, true>; };
template <> struct format_of<f8_e5m2> { using type = narrow_format<5, 2, true>; };
template <> struct format_of<f8_e4m3> { using type = narrow_format<4, 3, false>; };

template <class T>
inline constexpr bool is_narrow_float = std::is_same_v<T, bf16> || std::is_same_v<T, f16> ||
                                        std::is_same_v<T, f8_e5m2> || std::is_same_v<T, f8_e4m3>;

// 2^e as a float, for e in the normal range.
constexpr float exp2i(int e) {
  float r = 1.f;
  for (; e > 0; --e) r *= 2.f;
  for (; e < 0; ++e) r *= 0.5f;
  return r;
}

template <class Arch>
using f32_batch = xsimd::batch<float, Arch>;

template <class Arch>
f32_batch<Arch> as_f32(i32_batch<Arch> v) {
  return xsimd::bitwise_cast<f32_batch<Arch>>(v);
}
template <class Arch>
i32_batch<Arch> as_i32(f32_batch<Arch> v) {
  return xsimd::bitwise_cast<i32_batch<Arch>>(v);
}

// The bf16 of each lane (round half to even; NaN keeps its payload with the quiet bit set) in
// the low 16 bits of its 32-bit lane: the format's general steps below, specialised to a format
// that keeps f32's exponent (no subnormal step; overflow rounds into Inf on its own).
template <class Arch>
xsimd::batch<uint32_t, Arch> f32_to_bf16_lanes(f32_batch<Arch> x) {
  using ub = xsimd::batch<uint32_t, Arch>;
  const ub bits = xsimd::bitwise_cast<ub>(x);
  const ub lsb = (bits >> 16) & ub(1u);
  const ub rounded = (bits + ub(0x7FFFu) + lsb) >> 16;
  const ub quiet = (bits >> 16) | ub(0x40u);  // NaN: payload kept, quiet bit set
  const auto is_nan = (bits & ub(0x7FFFFFFFu)) > ub(0x7F800000u);
  return ::tessera::simd::select(is_nan, quiet, rounded);
}

// f32 -> the format's bits, in integer arithmetic on the f32 bits (one rounding, half to even).
template <class F, class Arch>
i32_batch<Arch> f32_to_format_bits(f32_batch<Arch> v) {
  using ib = i32_batch<Arch>;
  if constexpr (F::kExpBits == 8) {
    return xsimd::bitwise_cast<ib>(f32_to_bf16_lanes<Arch>(v));
  }
  const ib bits = as_i32(v);
  const ib abs = bits & ib(0x7FFFFFFF);
  const ib sign = ((bits >> 31) & ib(1)) << (F::kExpBits + F::kMantBits);
  // Normal results: drop kShift mantissa bits, adding just under half plus the kept lsb.
  ib result = (abs - ib(F::kRebias) + ib((1 << (F::kShift - 1)) - 1) + ((abs >> F::kShift) & ib(1))) >>
              F::kShift;
  if constexpr (F::kBias != 127) {
    // Subnormal results: adding a power of two whose ulp is the format's subnormal unit makes
    // the FPU round (half to even) exactly where the format would; its low bits are the result.
    const f32_batch<Arch> magic(exp2i(1 - F::kBias - F::kMantBits + 23));
    const ib subnormal = as_i32(as_f32(abs) + magic) - as_i32(magic);
    result = ::tessera::simd::select(abs < ib(F::kMinNormalF32Bits), subnormal, result);
  }
  result = ::tessera::simd::select(result > ib(F::kMaxFinite), ib(F::kHasInf ? F::kExpMask : F::kNan), result);
  ib nan = ib(F::kNan);
  if constexpr (F::kHasInf) nan = nan | ((abs >> F::kShift) & ib(F::kMantMask));
  result = ::tessera::simd::select(abs > ib(0x7F800000), nan, result);
  return result | sign;
}

// The format's bits (zero-extended in each lane) -> f32, exactly.
template <class F, class Arch>
f32_batch<Arch> format_bits_to_f32(i32_batch<Arch> bits) {
  using ib = i32_batch<Arch>;
  if constexpr (F::kExpBits == 8) {
    return as_f32(bits << 16);  // bf16 is the top half of an f32, NaN payloads included
  } else {
    const ib sign = (bits & ib(F::kSignBit)) << (31 - F::kExpBits - F::kMantBits);
    const ib abs = bits & ib(F::kExpMask | F::kMantMask);
    ib result = (abs << F::kShift) + ib(F::kRebias);
    // Exponent 0: abs * 2^(1 - bias - mant_bits), exact (every such value is normal in f32).
    const f32_batch<Arch> unit(exp2i(1 - F::kBias - F::kMantBits));
    const ib subnormal = as_i32(xsimd::to_float(abs) * unit);
    result = ::tessera::simd::select(abs < ib(1 << F::kMantBits), subnormal, result);
    if constexpr (F::kHasInf) {
      const ib mant = abs & ib(F::kMantMask);
      const ib quiet = ::tessera::simd::select(mant != ib(0), ib(0x00400000), ib(0));
      const ib special = ib(0x7F800000) | (mant << F::kShift) | quiet;
      result = ::tessera::simd::select(abs >= ib(F::kExpMask), special, result);
    } else {
      result = ::tessera::simd::select(abs == ib(F::kNan), ib(0x7FC00000 | (F::kMantMask << F::kShift)), result);
    }
    return as_f32(result | sign);
  }
}

// f32 -> Int, rounding half to even (the default MXCSR mode) and saturating; NaN -> max for
// signed types, 0 for unsigned. Returns the value in an int32 lane.
template <class Int, class Arch>
i32_batch<Arch> f32_to_int(f32_batch<Arch> v) {
  using ib = i32_batch<Arch>;
  using fb = f32_batch<Arch>;
  using limits = std::numeric_limits<Int>;
  if constexpr (std::is_same_v<Int, int32_t>) {
    // cvtps2dq gives INT32_MIN for NaN and out-of-range values: right for v < -2^31 only.
    const ib r = xsimd::nearbyint_as_int(v);
    return as_i32(::tessera::simd::select(v < fb(2147483648.f), as_f32(r), as_f32(ib(limits::max()))));
  } else {
    const fb clamped = xsimd::min(xsimd::max(v, fb(limits::lowest())), fb(limits::max()));
    const ib r = xsimd::nearbyint_as_int(clamped);
    const ib nan_value(std::is_signed_v<Int> ? limits::max() : 0);
    return as_i32(::tessera::simd::select(xsimd::isnan(v), as_f32(nan_value), as_f32(r)));
  }
}

// vcvtneps2bf16 flushes denormal inputs to zero; those (rare) batches take the integer path.
template <class Arch>
bool has_f32_denormal(f32_batch<Arch> v) {
#if defined(__AVX512DQ__)
  // One vfpclassps (class 0x20: denormal) instead of four integer steps: this test runs once
  // per stored vector.
  if constexpr (is_avx512<Arch>) return _mm512_fpclass_ps_mask(v, 0x20) != 0;
#endif
  using ib = i32_batch<Arch>;
  const ib abs = as_i32(v) & ib(0x7FFFFFFF);
  return xsimd::any((abs < ib(0x00800000)) & (abs != ib(0)));
}

}  // namespace internal

// f32 -> bf16 bits (round half to even, NaN quieted with its payload) in the low 16 bits of each
// 32-bit lane, for kernels that narrow or pack the lanes themselves (simd/narrow.h).
template <class Arch>
xsimd::batch<uint32_t, Arch> bf16_lanes(xsimd::batch<float, Arch> x) {
  return internal::f32_to_bf16_lanes<Arch>(x);
}

// batch<float, Arch>::size elements of T from p, converted exactly to f32.
template <class Arch, Element T>
xsimd::batch<float, Arch> load_f32(const T* p) {
  using fb = xsimd::batch<float, Arch>;
  if constexpr (std::is_same_v<T, float>) {
    return fb::load_unaligned(p);
#if defined(__x86_64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx512<Arch>) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx2<Arch>) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#elif defined(__aarch64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_neon64<Arch>) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(p))));
#endif
  } else if constexpr (internal::is_narrow_float<T>) {
    using F = typename internal::format_of<T>::type;
    return internal::format_bits_to_f32<F, Arch>(internal::load_lanes<Arch, sizeof(T), false>(p));
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    return xsimd::to_float(internal::load_lanes<Arch, sizeof(T), std::is_signed_v<T>>(p));
  } else {
    static_assert(sizeof(T) == 0, "load_f32: f64 has no f32 batch form");
  }
}

// The first `count` (0..size) elements of T from p; lanes past `count` are 0.0f. Never reads
// past p + count.
template <class Arch, Element T>
xsimd::batch<float, Arch> load_f32(const T* p, int count) {
  if constexpr (std::is_same_v<T, float>) {
    return load_partial<Arch>(p, count);
#if defined(__x86_64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx512<Arch>) {
    const __mmask16 m = static_cast<__mmask16>(internal::low_lanes_mask(count));
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx2<Arch>) {
    alignas(16) f16 buffer[8] = {};
    if (count > 0) std::memcpy(buffer, p, sizeof(f16) * static_cast<size_t>(count));
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(buffer)));
#elif defined(__aarch64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_neon64<Arch>) {
    alignas(16) f16 buffer[4] = {};
    if (count > 0) std::memcpy(buffer, p, sizeof(f16) * static_cast<size_t>(count));
    return load_f32<Arch>(static_cast<const f16*>(buffer));
#endif
  } else if constexpr (internal::is_narrow_float<T>) {
    using F = typename internal::format_of<T>::type;
    return internal::format_bits_to_f32<F, Arch>(
        internal::load_lanes<Arch, sizeof(T), false>(p, count));
  } else {
    return xsimd::to_float(internal::load_lanes<Arch, sizeof(T), std::is_signed_v<T>>(p, count));
  }
}

// Converts v to T (rounding and saturating as the scalar reference) and stores size elements.
template <Element T, class Arch>
void store_f32(T* p, xsimd::batch<float, Arch> v) {
  if constexpr (std::is_same_v<T, float>) {
    v.store_unaligned(p);
#if defined(__x86_64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx512<Arch>) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx2<Arch>) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else if constexpr (std::is_same_v<T, bf16> && has_native_bf16<Arch>) {
    if (internal::has_f32_denormal<Arch>(v)) {
      using F = internal::format_of<bf16>::type;
      internal::store_lanes<Arch, 2>(p, internal::f32_to_format_bits<F, Arch>(v));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), (__m256i)_mm512_cvtneps_pbh(v));
    }
#elif defined(__aarch64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_neon64<Arch>) {
    vst1_u16(reinterpret_cast<uint16_t*>(p), vreinterpret_u16_f16(vcvt_f16_f32(v)));
#endif
  } else if constexpr (internal::is_narrow_float<T>) {
    using F = typename internal::format_of<T>::type;
    internal::store_lanes<Arch, sizeof(T)>(p, internal::f32_to_format_bits<F, Arch>(v));
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    internal::store_lanes<Arch, sizeof(T)>(p, internal::f32_to_int<T, Arch>(v));
  } else {
    static_assert(sizeof(T) == 0, "store_f32: f64 has no f32 batch form");
  }
}

// Converts v to T and stores its first `count` (0..size) lanes; p[count..] is not touched.
template <Element T, class Arch>
void store_f32(T* p, xsimd::batch<float, Arch> v, int count) {
  if constexpr (std::is_same_v<T, float>) {
    store_partial(p, v, count);
#if defined(__x86_64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx512<Arch>) {
    const __mmask16 m = static_cast<__mmask16>(internal::low_lanes_mask(count));
    _mm256_mask_storeu_epi16(p, m, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else if constexpr (std::is_same_v<T, f16> && internal::is_avx2<Arch>) {
    alignas(16) f16 buffer[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(buffer),
                    _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    if (count > 0) std::memcpy(p, buffer, sizeof(f16) * static_cast<size_t>(count));
  } else if constexpr (std::is_same_v<T, bf16> && has_native_bf16<Arch>) {
    const __mmask16 m = static_cast<__mmask16>(internal::low_lanes_mask(count));
    if (internal::has_f32_denormal<Arch>(v)) {
      using F = internal::format_of<bf16>::type;
      internal::store_lanes<Arch, 2>(p, internal::f32_to_format_bits<F, Arch>(v), count);
    } else {
      _mm256_mask_storeu_epi16(p, m, (__m256i)_mm512_cvtneps_pbh(v));
    }
#elif defined(__aarch64__)
  } else if constexpr (std::is_same_v<T, f16> && internal::is_neon64<Arch>) {
    alignas(16) f16 buffer[4];
    store_f32(static_cast<f16*>(buffer), v);
    if (count > 0) std::memcpy(p, buffer, sizeof(f16) * static_cast<size_t>(count));
#endif
  } else if constexpr (internal::is_narrow_float<T>) {
    using F = typename internal::format_of<T>::type;
    internal::store_lanes<Arch, sizeof(T)>(p, internal::f32_to_format_bits<F, Arch>(v), count);
  } else {
    internal::store_lanes<Arch, sizeof(T)>(p, internal::f32_to_int<T, Arch>(v), count);
  }
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_CONVERT_H_
