// The 8x8 f32 register transpose the harnesses share: load_t8 loads 8 rows of 8 floats (ld
// apart) and leaves column i in t[i]. The library's own is transpose8x8_registers in
// primitives/reorder/internal/vector_kernels.cc; these harnesses use no Tessera code.
#ifndef TESSERA_BENCH_EXPERIMENTS_TRANSPOSE8X8_H_
#define TESSERA_BENCH_EXPERIMENTS_TRANSPOSE8X8_H_

#include <immintrin.h>

#include <cstdint>

inline void tr8(__m256 r[8], __m256 t[8]) {
  __m256 a0 = _mm256_unpacklo_ps(r[0], r[1]), a1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 a2 = _mm256_unpacklo_ps(r[2], r[3]), a3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 a4 = _mm256_unpacklo_ps(r[4], r[5]), a5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 a6 = _mm256_unpacklo_ps(r[6], r[7]), a7 = _mm256_unpackhi_ps(r[6], r[7]);
  __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xEE);
  __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xEE);
  __m256 b4 = _mm256_shuffle_ps(a4, a6, 0x44), b5 = _mm256_shuffle_ps(a4, a6, 0xEE);
  __m256 b6 = _mm256_shuffle_ps(a5, a7, 0x44), b7 = _mm256_shuffle_ps(a5, a7, 0xEE);
  t[0] = _mm256_permute2f128_ps(b0, b4, 0x20);
  t[4] = _mm256_permute2f128_ps(b0, b4, 0x31);
  t[1] = _mm256_permute2f128_ps(b1, b5, 0x20);
  t[5] = _mm256_permute2f128_ps(b1, b5, 0x31);
  t[2] = _mm256_permute2f128_ps(b2, b6, 0x20);
  t[6] = _mm256_permute2f128_ps(b2, b6, 0x31);
  t[3] = _mm256_permute2f128_ps(b3, b7, 0x20);
  t[7] = _mm256_permute2f128_ps(b3, b7, 0x31);
}
inline void load_t8(const float* s, int64_t ld, __m256 t[8]) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + i * ld);
  tr8(r, t);
}

#endif  // TESSERA_BENCH_EXPERIMENTS_TRANSPOSE8X8_H_
