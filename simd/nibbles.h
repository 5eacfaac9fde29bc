// 4-bit elements (s4, u4) packed two per byte, as 32-bit lanes: element 2k in the low nibble of
// byte k, element 2k + 1 in its high nibble (oneDNN's order), for kernels templated on Arch.
//
//   xsimd::batch<int32_t, Arch> v = ...;              // lanes within [-8, 7] or [0, 15]
//   tessera::simd::store_nibbles(p, v);                // size / 2 bytes at p
//   auto s = tessera::simd::load_nibbles<true, Arch>(p);   // size lanes, sign-extended (s4)
//   auto u = tessera::simd::load_nibbles<false, Arch>(p);  // size lanes in [0, 15] (u4)
//
// Both read or write exactly size / 2 bytes. x86 ISAs widen or narrow through 64-bit lanes (one
// byte per lane pair); neon64 and any other Arch take the portable versions, which
// //simd:tile_ops_test compares with the ISA ones on every ISA the machine has.
#ifndef TESSERA_SIMD_NIBBLES_H_
#define TESSERA_SIMD_NIBBLES_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>

#include "tessera/simd/arch.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

namespace portable {

template <class Arch>
inline void store_nibbles(uint8_t* p, xsimd::batch<int32_t, Arch> v) {
  constexpr size_t n = xsimd::batch<int32_t, Arch>::size;
  alignas(64) int32_t lanes[n];
  v.store_aligned(lanes);
  for (size_t k = 0; k < n / 2; ++k) {
    p[k] = static_cast<uint8_t>((lanes[2 * k] & 0xF) | ((lanes[2 * k + 1] & 0xF) << 4));
  }
}

template <bool kSigned, class Arch>
inline xsimd::batch<int32_t, Arch> load_nibbles(const uint8_t* p) {
  constexpr size_t n = xsimd::batch<int32_t, Arch>::size;
  alignas(64) int32_t lanes[n];
  for (size_t i = 0; i < n; ++i) {
    const int32_t code = (p[i / 2] >> (4 * (i % 2))) & 0xF;
    lanes[i] = kSigned && code >= 8 ? code - 16 : code;
  }
  return xsimd::batch<int32_t, Arch>::load_aligned(lanes);
}

}  // namespace portable

// Packs the low nibble of each lane: size / 2 bytes to p (lanes out of range are truncated).
// x86: each 64-bit lane holds elements 2k (low half) and 2k + 1 (high half); its low byte becomes
// their packed byte, and the lanes' low bytes are gathered.
template <class Arch>
[[gnu::always_inline]] inline void store_nibbles(uint8_t* p, xsimd::batch<int32_t, Arch> v) {
  [[maybe_unused]] constexpr int kBytes = static_cast<int>(xsimd::batch<int32_t, Arch>::size) / 2;
#if defined(__AVX512F__)
  if constexpr (internal::is_x86<Arch> && kBytes == 8) {
    const __m512i x = v;
    const __m512i packed =
        _mm512_or_si512(_mm512_and_si512(x, _mm512_set1_epi64(0xF)),
                        _mm512_and_si512(_mm512_srli_epi64(x, 28), _mm512_set1_epi64(0xF0)));
    __m128i bytes = _mm512_cvtepi64_epi8(packed);
    // Keeps clang from folding the narrowing into a vpmovqb to memory (slow on Zen).
    asm("" : "+x"(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (internal::is_x86<Arch> && kBytes == 4) {
    const __m256i x = v;
    const __m256i packed =
        _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0xF)),
                        _mm256_and_si256(_mm256_srli_epi64(x, 28), _mm256_set1_epi64x(0xF0)));
    // Bytes 0 and 8 of each 128-bit half to its word 0, then the two words side by side.
    const __m256i gather = _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, 0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, -1, -1);
    const __m256i words = _mm256_shuffle_epi8(packed, gather);
    const __m128i both =
        _mm_unpacklo_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
    const int32_t out = _mm_cvtsi128_si32(both);
    std::memcpy(p, &out, sizeof(out));
    return;
  }
#endif
#if defined(__SSE4_1__)
  if constexpr (internal::is_x86<Arch> && kBytes == 2) {
    const __m128i x = v;
    const __m128i packed = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0xF)),
                                        _mm_and_si128(_mm_srli_epi64(x, 28), _mm_set1_epi64x(0xF0)));
    const __m128i gather = _mm_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const uint16_t out = static_cast<uint16_t>(_mm_extract_epi16(_mm_shuffle_epi8(packed, gather), 0));
    std::memcpy(p, &out, sizeof(out));
    return;
  }
#endif
  portable::store_nibbles(p, v);
}

// size elements from size / 2 bytes at p, one per 32-bit lane; kSigned: s4 (sign-extended),
// else u4. x86: each byte widened to a 64-bit lane, its high nibble moved to the lane's high half.
template <bool kSigned, class Arch>
[[gnu::always_inline]] inline xsimd::batch<int32_t, Arch> load_nibbles(const uint8_t* p) {
  using lanes_t = xsimd::batch<int32_t, Arch>;
  [[maybe_unused]] constexpr int kBytes = static_cast<int>(lanes_t::size) / 2;
  [[maybe_unused]] auto sign = [](lanes_t lanes) {
    if constexpr (kSigned) return (lanes << 28) >> 28;  // arithmetic shift: sign-extends
    return lanes;
  };
#if defined(__AVX512F__)
  if constexpr (internal::is_x86<Arch> && kBytes == 8) {
    const __m512i b = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    return sign(_mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi64(0xF)),
                                _mm512_slli_epi64(_mm512_srli_epi64(b, 4), 32)));
  }
#endif
#if defined(__AVX2__)
  if constexpr (internal::is_x86<Arch> && kBytes == 4) {
    int32_t word;
    std::memcpy(&word, p, sizeof(word));
    const __m256i b = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(word));
    return sign(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x(0xF)),
                                _mm256_slli_epi64(_mm256_srli_epi64(b, 4), 32)));
  }
#endif
#if defined(__SSE4_1__)
  if constexpr (internal::is_x86<Arch> && kBytes == 2) {
    uint16_t word;
    std::memcpy(&word, p, sizeof(word));
    const __m128i b = _mm_cvtepu8_epi64(_mm_cvtsi32_si128(word));
    return sign(_mm_or_si128(_mm_and_si128(b, _mm_set1_epi64x(0xF)),
                             _mm_slli_epi64(_mm_srli_epi64(b, 4), 32)));
  }
#endif
  return portable::load_nibbles<kSigned, Arch>(p);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_NIBBLES_H_
