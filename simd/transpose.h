// In-register transposes that xsimd 8.1 cannot express (its zip_lo/zip_hi stay within 128-bit
// lanes and it has no 128-bit lane shuffles), for kernels templated on Arch.
//
//   xsimd::batch<float, Arch> r[xsimd::batch<float, Arch>::size];   // row i in r[i]
//   tessera::simd::transpose_square(r);                              // now column i in r[i]
//
//   // 16 x 16 bytes, rows src + i * src_ld, column i stored at dst_row(i)[0..16):
//   tessera::simd::transpose_16x16_u8<Arch>(src, src_ld, [&](int i) { return dst + col(i); });
//
// Each op has a portable version in tessera::simd::portable (plain lane loops), used for any
// Arch without the instructions and compared with the ISA versions by //simd:tile_ops_test.
// The ISA versions are the instruction sequences the reorder's kernels were measured with.
#ifndef TESSERA_SIMD_TRANSPOSE_H_
#define TESSERA_SIMD_TRANSPOSE_H_

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

// r[i] holds row i of an N x N tile (N = the batch's lanes); afterwards r[i] holds column i.
template <class Arch>
inline void transpose_square(xsimd::batch<float, Arch>* r) {
  constexpr int n = static_cast<int>(xsimd::batch<float, Arch>::size);
  alignas(64) float lanes[n][n];
  for (int i = 0; i < n; ++i) r[i].store_aligned(lanes[i]);
  alignas(64) float column[n];
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) column[j] = lanes[j][i];
    r[i] = xsimd::batch<float, Arch>::load_aligned(column);
  }
}

// Four rows r[0..3]; within each 128-bit block (4 lanes), the 4 x 4 tile is transposed: lane
// 4b + k of r[j] becomes lane 4b + j of r[k].
template <class Arch>
inline void transpose_4x4_blocks(xsimd::batch<float, Arch>* r) {
  constexpr int n = static_cast<int>(xsimd::batch<float, Arch>::size);
  alignas(64) float in[4][n], out[4][n];
  for (int j = 0; j < 4; ++j) r[j].store_aligned(in[j]);
  for (int b = 0; b < n; b += 4) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 4; ++k) out[k][b + j] = in[j][b + k];
    }
  }
  for (int j = 0; j < 4; ++j) r[j] = xsimd::batch<float, Arch>::load_aligned(out[j]);
}

// Lanes [0, size / 2) from lo, [size / 2, size) from hi.
template <class Arch>
inline xsimd::batch<float, Arch> load_halves(const float* lo, const float* hi) {
  constexpr int n = static_cast<int>(xsimd::batch<float, Arch>::size);
  alignas(64) float lanes[n];
  std::memcpy(lanes, lo, sizeof(float) * n / 2);
  std::memcpy(lanes + n / 2, hi, sizeof(float) * n / 2);
  return xsimd::batch<float, Arch>::load_aligned(lanes);
}

// A kN x kN tile of T: row i at src + i * src_ld, column i written to dst_row(i)[0, kN).
template <class Arch, int kN, class T, class DstRow>
inline void transpose_tile(const T* src, int64_t src_ld, const DstRow& dst_row) {
  for (int i = 0; i < kN; ++i) {
    T* out = dst_row(i);
    for (int j = 0; j < kN; ++j) out[j] = src[j * src_ld + i];
  }
}

}  // namespace portable

namespace internal {

template <class Arch>
inline constexpr bool has_sse2_tiles = is_x86<Arch>;

#if defined(__AVX512F__)
// Transposes 16 registers of 16 32-bit lanes in place. (Templates on Arch, here and below: a
// per-ISA symbol each, never one copy shared by translation units built with other flags.)
template <class Arch>
[[gnu::always_inline]] inline void transpose_16x16_f32(__m512* r) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int h = 0; h < 16; h += 8) {
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xDD);
    }
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}
#endif

#if defined(__AVX__)
// Transposes 8 registers of 8 32-bit lanes in place.
template <class Arch>
[[gnu::always_inline]] inline void transpose_8x8_f32(__m256* r) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) r[i] = t[i];
}
#endif

#if defined(__SSE2__)
// kRows rows of 16 bytes, `stride` bytes apart, into SSE registers.
template <class Arch, int kRows>
[[gnu::always_inline]] inline void load_rows128(const void* p, int64_t stride, __m128i* x) {
  for (int i = 0; i < kRows; ++i) {
    x[i] = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(static_cast<const char*>(p) + i * stride));
  }
}

// One round of an SSE register transpose: within each block of kBlock registers starting at
// b, out[b + k] and out[b + kBlock/2 + k] are the low and high halves of the interleave
// (unpacklo / unpackhi at one unit width) of in[b + 2k] and in[b + 2k + 1].
template <class Arch, int kRegs, int kBlock, class Lo, class Hi>
[[gnu::always_inline]] inline void unpack_round(const __m128i* in, __m128i* out, Lo lo, Hi hi) {
  for (int b = 0; b < kRegs; b += kBlock) {
    for (int k = 0; k < kBlock / 2; ++k) {
      out[b + k] = lo(in[b + 2 * k], in[b + 2 * k + 1]);
      out[b + kBlock / 2 + k] = hi(in[b + 2 * k], in[b + 2 * k + 1]);
    }
  }
}

// Interleaves at 8-, 16-, 32- and 64-bit units, for unpack_round.
#define TESSERA_SIMD_UNPACK_PAIR_(bits)                                                        \
  [](__m128i p, __m128i q) { return _mm_unpacklo_epi##bits(p, q); },                          \
      [](__m128i p, __m128i q) { return _mm_unpackhi_epi##bits(p, q); }

// Four unpack rounds (8-, 16-, 32- and 64-bit units) leave column i of the tile in register i.
template <class Arch, class DstRow>
[[gnu::always_inline]] inline void transpose_16x16_u8_sse(const uint8_t* src, int64_t src_ld,
                                                          const DstRow& dst_row) {
  __m128i x[16], a[16];
  load_rows128<Arch, 16>(src, src_ld, x);
  unpack_round<Arch, 16, 16>(x, a, TESSERA_SIMD_UNPACK_PAIR_(8));
  unpack_round<Arch, 16, 8>(a, x, TESSERA_SIMD_UNPACK_PAIR_(16));
  unpack_round<Arch, 16, 4>(x, a, TESSERA_SIMD_UNPACK_PAIR_(32));
  unpack_round<Arch, 16, 2>(a, x, TESSERA_SIMD_UNPACK_PAIR_(64));
  for (int i = 0; i < 16; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst_row(i)), x[i]);
}

// Three unpack rounds (16-, 32- and 64-bit units) leave column i of the tile in register i.
template <class Arch, class DstRow>
[[gnu::always_inline]] inline void transpose_8x8_u16_sse(const uint16_t* src, int64_t src_ld,
                                                         const DstRow& dst_row) {
  __m128i x[8], a[8];
  load_rows128<Arch, 8>(src, src_ld * int64_t{sizeof(uint16_t)}, x);
  unpack_round<Arch, 8, 8>(x, a, TESSERA_SIMD_UNPACK_PAIR_(16));
  unpack_round<Arch, 8, 4>(a, x, TESSERA_SIMD_UNPACK_PAIR_(32));
  unpack_round<Arch, 8, 2>(x, a, TESSERA_SIMD_UNPACK_PAIR_(64));
  for (int i = 0; i < 8; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst_row(i)), a[i]);
}

#undef TESSERA_SIMD_UNPACK_PAIR_
#endif

#if defined(__aarch64__)
// The 4 x 4 tile of four neon64 registers transposed: TRN1/TRN2 on pairs of rows, then the
// 64-bit halves recombined.
inline void transpose_4x4_f32_neon(float32x4_t* r) {
  const float32x4x2_t p01 = vtrnq_f32(r[0], r[1]);  // r0c0 r1c0 r0c2 r1c2 | r0c1 r1c1 r0c3 r1c3
  const float32x4x2_t p23 = vtrnq_f32(r[2], r[3]);
  r[0] = vcombine_f32(vget_low_f32(p01.val[0]), vget_low_f32(p23.val[0]));
  r[1] = vcombine_f32(vget_low_f32(p01.val[1]), vget_low_f32(p23.val[1]));
  r[2] = vcombine_f32(vget_high_f32(p01.val[0]), vget_high_f32(p23.val[0]));
  r[3] = vcombine_f32(vget_high_f32(p01.val[1]), vget_high_f32(p23.val[1]));
}
#endif

}  // namespace internal

// r[i] holds row i of an N x N tile of 32-bit lanes (N = the batch's f32 lanes); afterwards
// r[i] holds column i. avx512bw: 16x16 by unpacks, shuffles and 128-bit lane shuffles
// (vshuff32x4); avx2: 8x8, its last step vperm2f128; neon64: 4x4 by TRN1/TRN2.
template <class Arch>
[[gnu::always_inline]] inline void transpose_square(xsimd::batch<float, Arch>* r) {
#if defined(__AVX512F__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    __m512 x[16];
    for (int i = 0; i < 16; ++i) x[i] = r[i];
    internal::transpose_16x16_f32<Arch>(x);
    for (int i = 0; i < 16; ++i) r[i] = x[i];
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (isa_of<Arch> == isa::avx2) {
    __m256 x[8];
    for (int i = 0; i < 8; ++i) x[i] = r[i];
    internal::transpose_8x8_f32<Arch>(x);
    for (int i = 0; i < 8; ++i) r[i] = x[i];
    return;
  }
#endif
#if defined(__aarch64__)
  if constexpr (isa_of<Arch> == isa::neon64) {
    float32x4_t x[4] = {r[0], r[1], r[2], r[3]};
    internal::transpose_4x4_f32_neon(x);
    for (int i = 0; i < 4; ++i) r[i] = x[i];
    return;
  }
#endif
  portable::transpose_square(r);
}

// Four rows r[0..3]; each 128-bit block's 4 x 4 tile transposed: lane 4b + k of r[j] becomes
// lane 4b + j of r[k] (avx2: two unpacks and two shuffles per pair of registers). A neon64
// register is one block: there this is transpose_square.
template <class Arch>
[[gnu::always_inline]] inline void transpose_4x4_blocks(xsimd::batch<float, Arch>* r) {
#if defined(__AVX__)
  if constexpr (isa_of<Arch> == isa::avx2) {
    const __m256 r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1);  // block: r0c0 r1c0 r0c1 r1c1
    const __m256 t1 = _mm256_unpackhi_ps(r0, r1);  //        r0c2 r1c2 r0c3 r1c3
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3);
    const __m256 t3 = _mm256_unpackhi_ps(r2, r3);
    r[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    r[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    r[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    r[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
    return;
  }
#endif
  if constexpr (isa_of<Arch> == isa::neon64) {
    transpose_square(r);  // The register is one 128-bit block.
    return;
  }
  portable::transpose_4x4_blocks(r);
}

// Lanes [0, size / 2) from lo, [size / 2, size) from hi: on avx2 one 16-byte load and one
// vinsertf128 from memory (no load straddles a line when both are 16-byte aligned).
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> load_halves(const float* lo,
                                                                    const float* hi) {
#if defined(__AVX__)
  if constexpr (isa_of<Arch> == isa::avx2) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
  }
#endif
  return portable::load_halves<Arch>(lo, hi);
}

// A 16 x 16 tile of bytes: row i at src + i * src_ld, column i stored at dst_row(i)[0, 16).
// SSE registers on every x86 Arch (one byte at a time, these tiles ran far below memcpy's speed).
template <class Arch, class DstRow>
[[gnu::always_inline]] inline void transpose_16x16_u8(const uint8_t* src, int64_t src_ld,
                                                      const DstRow& dst_row) {
#if defined(__SSE2__)
  if constexpr (internal::has_sse2_tiles<Arch>) {
    internal::transpose_16x16_u8_sse<Arch>(src, src_ld, dst_row);
    return;
  }
#endif
  portable::transpose_tile<Arch, 16>(src, src_ld, dst_row);
}

// An 8 x 8 tile of 16-bit elements: row i at src + i * src_ld, column i at dst_row(i)[0, 8).
template <class Arch, class DstRow>
[[gnu::always_inline]] inline void transpose_8x8_u16(const uint16_t* src, int64_t src_ld,
                                                     const DstRow& dst_row) {
#if defined(__SSE2__)
  if constexpr (internal::has_sse2_tiles<Arch>) {
    internal::transpose_8x8_u16_sse<Arch>(src, src_ld, dst_row);
    return;
  }
#endif
  portable::transpose_tile<Arch, 8>(src, src_ld, dst_row);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_TRANSPOSE_H_
