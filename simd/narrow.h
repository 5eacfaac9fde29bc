// Narrowing stores and packs of 32-bit integer lanes that xsimd 8.1 cannot express, for kernels
// templated on Arch.
//
//   xsimd::batch<int32_t, Arch> v = ...;          // every lane already within int8_t's range
//   tessera::simd::store_narrowed(p, v);          // p[i] = int8_t(v[i]), batch::size bytes
//   tessera::simd::store_narrowed<true>(p, v);    // the same, non-temporal on avx512bw
//
//   auto words = tessera::simd::pack_low_words(lo, hi);   // 2 * size 16-bit lanes
//   auto quads = tessera::simd::pack_rows4_transposed<int8_t>(rows);   // see below
//
// Each op has a portable version in tessera::simd::portable, used for any Arch without the
// instructions and compared with the ISA versions by //simd:tile_ops_test.
#ifndef TESSERA_SIMD_NARROW_H_
#define TESSERA_SIMD_NARROW_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/simd/arch.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

namespace portable {

// The low sizeof(D) bytes of each lane to p[i] (D: a 1- or 2-byte type).
template <class D, class I, class Arch>
inline void store_narrowed(D* p, xsimd::batch<I, Arch> v) {
  static_assert(sizeof(I) == 4 && (sizeof(D) == 1 || sizeof(D) == 2));
  constexpr size_t n = xsimd::batch<I, Arch>::size;
  using Bits = std::conditional_t<sizeof(D) == 1, uint8_t, uint16_t>;
  alignas(64) I wide[n];
  v.store_aligned(wide);
  Bits narrow[n];
  for (size_t i = 0; i < n; ++i) narrow[i] = static_cast<Bits>(wide[i]);
  std::memcpy(static_cast<void*>(p), narrow, sizeof(narrow));
}

// 2 * size 16-bit lanes: the low halves of lo's lanes, then of hi's.
template <class I, class Arch>
inline xsimd::batch<uint16_t, Arch> pack_low_words(xsimd::batch<I, Arch> lo,
                                                   xsimd::batch<I, Arch> hi) {
  constexpr size_t n = xsimd::batch<I, Arch>::size;
  alignas(64) I wide[2 * n];
  lo.store_aligned(wide);
  hi.store_aligned(wide + n);
  alignas(64) uint16_t words[2 * n];
  for (size_t i = 0; i < 2 * n; ++i) words[i] = static_cast<uint16_t>(wide[i]);
  return xsimd::batch<uint16_t, Arch>::load_aligned(words);
}

// What two saturating packs (32 -> 16 -> 8 bits, signed or unsigned as D) make of one lane.
// (On Arch too, as every helper here: one symbol per ISA, see simd/per_isa.h.)
template <class D, class Arch>
inline D saturate_twice(int32_t x) {
  if constexpr (std::is_same_v<D, int8_t>) {
    return static_cast<int8_t>(
        std::clamp<int32_t>(std::clamp<int32_t>(x, -32768, 32767), -128, 127));
  } else {
    // packus 32 -> 16 clamps to [0, 65535]; packus 16 -> 8 reads those words as signed.
    const auto word = static_cast<int16_t>(static_cast<uint16_t>(std::clamp<int32_t>(x, 0, 65535)));
    return static_cast<uint8_t>(std::clamp<int32_t>(word, 0, 255));
  }
}

template <class D, class Arch>
inline xsimd::batch<int32_t, Arch> pack_rows4_transposed(const xsimd::batch<int32_t, Arch>* rows) {
  constexpr size_t n = xsimd::batch<int32_t, Arch>::size;
  alignas(64) int32_t in[4][n];
  for (int j = 0; j < 4; ++j) rows[j].store_aligned(in[j]);
  alignas(64) D out[4 * n];
  for (size_t b = 0; b < n; b += 4) {
    for (size_t k = 0; k < 4; ++k) {
      for (size_t j = 0; j < 4; ++j) out[4 * b + 4 * k + j] = saturate_twice<D, Arch>(in[j][b + k]);
    }
  }
  alignas(64) int32_t packed[n];
  std::memcpy(packed, out, sizeof(packed));
  return xsimd::batch<int32_t, Arch>::load_aligned(packed);
}

}  // namespace portable

// Stores the low sizeof(D) bytes of each 32-bit lane (D: int8_t, uint8_t or a 2-byte type):
// truncation, so exact when every lane is already within D's range. avx512bw: vpmovdb /
// vpmovdw (kStream: then a non-temporal store, p aligned to the stored width); avx2, 1-byte D:
// two saturating packs (exact for in-range lanes). Beware: clang folds a vpmov* followed by a
// plain store into one vpmov* to memory; a streamed store keeps its hint.
template <bool kStream = false, class D, class I, class Arch>
[[gnu::always_inline]] inline void store_narrowed(D* p, xsimd::batch<I, Arch> v) {
  static_assert(sizeof(I) == 4 && (sizeof(D) == 1 || sizeof(D) == 2));
#if defined(__AVX512F__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    const __m512i wide = xsimd::bitwise_cast<xsimd::batch<int32_t, Arch>>(v);
    if constexpr (sizeof(D) == 2) {
      const __m256i narrow = _mm512_cvtepi32_epi16(wide);
      if constexpr (kStream) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(p), narrow);
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), narrow);
      }
    } else {
      const __m128i narrow = _mm512_cvtepi32_epi8(wide);
      if constexpr (kStream) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(p), narrow);
      } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), narrow);
      }
    }
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (isa_of<Arch> == isa::avx2 && sizeof(D) == 1) {
    const __m256i wide = xsimd::bitwise_cast<xsimd::batch<int32_t, Arch>>(v);
    const __m128i lo = _mm256_castsi256_si128(wide), hi = _mm256_extracti128_si256(wide, 1);
    const __m128i bytes = std::is_same_v<D, int8_t>
                              ? _mm_packs_epi16(_mm_packs_epi32(lo, hi), lo)
                              : _mm_packus_epi16(_mm_packus_epi32(lo, hi), lo);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
    return;
  }
#endif
  portable::store_narrowed(p, v);
}

// 2 * size 16-bit lanes: the low halves of lo's lanes, then of hi's. avx512bw: one vpermt2w,
// which clang does not fold into the store that follows (a streamed store keeps its hint).
template <class I, class Arch>
[[gnu::always_inline]] inline xsimd::batch<uint16_t, Arch> pack_low_words(
    xsimd::batch<I, Arch> lo, xsimd::batch<I, Arch> hi) {
  static_assert(sizeof(I) == 4);
#if defined(__AVX512BW__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    // Word j of the result: word 2j of lo:hi (the low half of 32-bit lane j).
    const __m512i even_words =
        _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                         24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i a = xsimd::bitwise_cast<xsimd::batch<int32_t, Arch>>(lo);
    const __m512i b = xsimd::bitwise_cast<xsimd::batch<int32_t, Arch>>(hi);
    return _mm512_permutex2var_epi16(a, even_words, b);
  }
#endif
  return portable::pack_low_words(lo, hi);
}

// rows[0..3]: four rows of 32-bit lanes. Narrowed to D (int8_t or uint8_t) by two saturating
// packs (32 -> 16 -> 8 bits; exact for lanes already within D's range), then transposed within
// each 128-bit block: dword 4b + k of the result holds lane 4b + k of the four rows, row j in
// byte j. (Four rows packed into one register and transposed as 4-byte groups take a quarter
// of the shuffles of four f32 transposes and four narrowing stores.)
template <class D, class Arch>
[[gnu::always_inline]] inline xsimd::batch<int32_t, Arch> pack_rows4_transposed(
    const xsimd::batch<int32_t, Arch>* rows) {
  static_assert(std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>);
  [[maybe_unused]] constexpr bool kSigned = std::is_same_v<D, int8_t>;
#if defined(__AVX512BW__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    // Within each 128-bit lane the packs leave 4 rows x 4 columns as bytes 4 * row + column;
    // this makes them 4 * column + row.
    const __m512i columns_of_rows =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    const __m512i w0 = rows[0], w1 = rows[1], w2 = rows[2], w3 = rows[3];
    __m512i b;
    if constexpr (kSigned) {
      b = _mm512_packs_epi16(_mm512_packs_epi32(w0, w1), _mm512_packs_epi32(w2, w3));
    } else {
      b = _mm512_packus_epi16(_mm512_packus_epi32(w0, w1), _mm512_packus_epi32(w2, w3));
    }
    return _mm512_shuffle_epi8(b, columns_of_rows);
  }
#endif
#if defined(__AVX2__)
  if constexpr (isa_of<Arch> == isa::avx2) {
    const __m256i columns_of_rows =
        _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                         13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i w0 = rows[0], w1 = rows[1], w2 = rows[2], w3 = rows[3];
    __m256i b;
    if constexpr (kSigned) {
      b = _mm256_packs_epi16(_mm256_packs_epi32(w0, w1), _mm256_packs_epi32(w2, w3));
    } else {
      b = _mm256_packus_epi16(_mm256_packus_epi32(w0, w1), _mm256_packus_epi32(w2, w3));
    }
    return _mm256_shuffle_epi8(b, columns_of_rows);
  }
#endif
  return portable::pack_rows4_transposed<D>(rows);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_NARROW_H_
