// Moving 1-, 2- and 4-byte elements in and out of int32 lanes (one element per lane of a float
// batch), full or partial. The building block of the conversions in <tessera/simd/convert.h>.
//
//   auto lanes = load_lanes<Arch, 2, false>(p);        // 16-bit elements, zero-extended
//   store_lanes<Arch, 1>(q, lanes & 0x7F, count);       // low byte of each lane, first `count` lanes
#ifndef TESSERA_SIMD_INTERNAL_INT_LANES_H_
#define TESSERA_SIMD_INTERNAL_INT_LANES_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {

template <class Arch>
using i32_batch = xsimd::batch<int32_t, Arch>;

// The lane moves element by element, for the Archs without x86's widening loads and packs
// (neon64: clang vectorises these loops).
namespace portable {

template <int Bytes, bool Signed>
using lane_element_t = std::conditional_t<
    Bytes == 1, std::conditional_t<Signed, int8_t, uint8_t>,
    std::conditional_t<Bytes == 2, std::conditional_t<Signed, int16_t, uint16_t>, int32_t>>;

template <class Arch, int Bytes, bool Signed>
i32_batch<Arch> load_lanes(const void* p) {
  constexpr int kLanes = i32_batch<Arch>::size;
  lane_element_t<Bytes, Signed> elements[kLanes];
  std::memcpy(elements, p, sizeof(elements));
  alignas(64) int32_t lanes[kLanes];
  for (int i = 0; i < kLanes; ++i) lanes[i] = elements[i];
  return i32_batch<Arch>::load_aligned(lanes);
}

// Truncates each lane to its low `Bytes` bytes.
template <class Arch, int Bytes>
void store_lanes(void* p, i32_batch<Arch> v) {
  constexpr int kLanes = i32_batch<Arch>::size;
  alignas(64) int32_t lanes[kLanes];
  v.store_aligned(lanes);
  lane_element_t<Bytes, false> elements[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    elements[i] = static_cast<lane_element_t<Bytes, false>>(static_cast<uint32_t>(lanes[i]));
  }
  std::memcpy(p, elements, sizeof(elements));
}

}  // namespace portable

// batch<float, Arch>::size elements of `Bytes` bytes each from p, one per int32 lane.
template <class Arch, int Bytes, bool Signed>
i32_batch<Arch> load_lanes(const void* p) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4);
  if constexpr (Bytes == 4) {
    return i32_batch<Arch>::load_unaligned(static_cast<const int32_t*>(p));
  } else if constexpr (!is_x86<Arch>) {
    return portable::load_lanes<Arch, Bytes, Signed>(p);
  }
#if defined(__x86_64__)
  else if constexpr (is_avx512<Arch>) {
    if constexpr (Bytes == 1) {
      const __m128i raw = _mm_loadu_si128(static_cast<const __m128i*>(p));
      return Signed ? _mm512_cvtepi8_epi32(raw) : _mm512_cvtepu8_epi32(raw);
    } else {
      const __m256i raw = _mm256_loadu_si256(static_cast<const __m256i*>(p));
      return Signed ? _mm512_cvtepi16_epi32(raw) : _mm512_cvtepu16_epi32(raw);
    }
  } else if constexpr (is_avx2<Arch>) {
    if constexpr (Bytes == 1) {
      const __m128i raw = _mm_loadl_epi64(static_cast<const __m128i*>(p));
      return Signed ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw);
    } else {
      const __m128i raw = _mm_loadu_si128(static_cast<const __m128i*>(p));
      return Signed ? _mm256_cvtepi16_epi32(raw) : _mm256_cvtepu16_epi32(raw);
    }
  } else {
    if constexpr (Bytes == 1) {
      int32_t four;
      std::memcpy(&four, p, 4);
      const __m128i raw = _mm_cvtsi32_si128(four);
      return Signed ? _mm_cvtepi8_epi32(raw) : _mm_cvtepu8_epi32(raw);
    } else {
      const __m128i raw = _mm_loadl_epi64(static_cast<const __m128i*>(p));
      return Signed ? _mm_cvtepi16_epi32(raw) : _mm_cvtepu16_epi32(raw);
    }
  }
#endif
}

// The first `count` elements; lanes at or past `count` are 0. Never reads past p + count.
template <class Arch, int Bytes, bool Signed>
i32_batch<Arch> load_lanes(const void* p, int count) {
  constexpr int kLanes = i32_batch<Arch>::size;
#if defined(__x86_64__)
  if constexpr (is_avx512<Arch>) {
    const uint64_t m = low_lanes_mask(count);
    if constexpr (Bytes == 4) {
      return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(m), p);
    } else if constexpr (Bytes == 2) {
      const __m256i raw = _mm256_maskz_loadu_epi16(static_cast<__mmask16>(m), p);
      return Signed ? _mm512_cvtepi16_epi32(raw) : _mm512_cvtepu16_epi32(raw);
    } else {
      const __m128i raw = _mm_maskz_loadu_epi8(static_cast<__mmask16>(m), p);
      return Signed ? _mm512_cvtepi8_epi32(raw) : _mm512_cvtepu8_epi32(raw);
    }
  } else
#endif
  {
    alignas(64) unsigned char buffer[kLanes * Bytes] = {};
    if (count > 0) std::memcpy(buffer, p, static_cast<size_t>(count) * Bytes);
    return load_lanes<Arch, Bytes, Signed>(buffer);
  }
}

// Writes the low `Bytes` bytes of every lane to p (batch::size elements).
template <class Arch, int Bytes>
void store_lanes(void* p, i32_batch<Arch> v) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4);
  if constexpr (Bytes == 4) {
    v.store_unaligned(static_cast<int32_t*>(p));
  } else if constexpr (!is_x86<Arch>) {
    portable::store_lanes<Arch, Bytes>(p, v);
  }
#if defined(__x86_64__)
  else if constexpr (is_avx512<Arch>) {
    if constexpr (Bytes == 1) {
      _mm_storeu_si128(static_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v));
    } else {
      _mm256_storeu_si256(static_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
    }
  } else {
    // packus saturates signed int32 to unsigned: mask first so it only truncates.
    const i32_batch<Arch> low = v & i32_batch<Arch>(Bytes == 1 ? 0xFF : 0xFFFF);
    __m128i words;
    if constexpr (is_avx2<Arch>) {
      const __m256i reg = low;
      words = _mm_packus_epi32(_mm256_castsi256_si128(reg), _mm256_extracti128_si256(reg, 1));
    } else {
      words = _mm_packus_epi32(low, low);
    }
    if constexpr (Bytes == 2) {
      if constexpr (is_avx2<Arch>) {
        _mm_storeu_si128(static_cast<__m128i*>(p), words);
      } else {
        _mm_storel_epi64(static_cast<__m128i*>(p), words);
      }
    } else {
      const __m128i bytes = _mm_packus_epi16(words, words);
      if constexpr (is_avx2<Arch>) {
        _mm_storel_epi64(static_cast<__m128i*>(p), bytes);
      } else {
        const int32_t four = _mm_cvtsi128_si32(bytes);
        std::memcpy(p, &four, 4);
      }
    }
  }
#endif
}

// Writes the low `Bytes` bytes of the first `count` lanes; p[count..] is not touched.
template <class Arch, int Bytes>
void store_lanes(void* p, i32_batch<Arch> v, int count) {
  constexpr int kLanes = i32_batch<Arch>::size;
#if defined(__x86_64__)
  if constexpr (is_avx512<Arch>) {
    const __mmask16 m = static_cast<__mmask16>(low_lanes_mask(count));
    if constexpr (Bytes == 4) {
      _mm512_mask_storeu_epi32(p, m, v);
    } else if constexpr (Bytes == 2) {
      _mm512_mask_cvtepi32_storeu_epi16(p, m, v);
    } else {
      _mm512_mask_cvtepi32_storeu_epi8(p, m, v);
    }
  } else
#endif
  {
    alignas(64) unsigned char buffer[kLanes * Bytes];
    store_lanes<Arch, Bytes>(buffer, v);
    if (count > 0) std::memcpy(p, buffer, static_cast<size_t>(count) * Bytes);
  }
}

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_INT_LANES_H_
