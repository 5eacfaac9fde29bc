// Loads and stores of the first `count` lanes only: a tail never reads or writes past the end of
// a buffer. On avx512bw these are native masked loads/stores; on avx2 the 4- and 8-byte lanes
// are `vmaskmov` / `vpmaskmov` (masked-out lanes are neither read nor written, and do not
// fault); the rest, sse4_2 and neon64, copy through a stack buffer.
//
//   template <class Arch>
//   void scale(const float* src, float* dst, int64_t n, float s) {
//     using batch = xsimd::batch<float, Arch>;
//     int64_t i = 0;
//     for (; i + batch::size <= n; i += batch::size) (batch::load_unaligned(src + i) * s).store_unaligned(dst + i);
//     const int rest = static_cast<int>(n - i);
//     tessera::simd::store_partial(dst + i, tessera::simd::load_partial<Arch>(src + i, rest) * s, rest);
//   }
//
// Lanes at or past `count` load as 0. count must be in [0, batch::size].
#ifndef TESSERA_SIMD_TAIL_H_
#define TESSERA_SIMD_TAIL_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "xsimd/xsimd.hpp"

namespace tessera::simd {

namespace internal {

template <class Arch>
inline constexpr bool is_avx512 = std::is_base_of_v<xsimd::avx512bw, Arch>;
template <class Arch>
inline constexpr bool is_avx2 = std::is_base_of_v<xsimd::avx2, Arch> && !is_avx512<Arch>;
// Any x86 Arch: every one has SSE2's registers. (xsimd's avx and avx512f archs derive from
// generic, not from its sse archs.)
template <class Arch>
inline constexpr bool is_x86 = std::is_base_of_v<xsimd::sse2, Arch> ||
                               std::is_base_of_v<xsimd::avx, Arch> ||
                               std::is_base_of_v<xsimd::avx512f, Arch>;

template <class Arch>
inline constexpr bool is_neon64 = std::is_base_of_v<xsimd::neon64, Arch>;

// Mask of the first `count` lanes (count <= 64).
inline uint64_t low_lanes_mask(int count) {
  return count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
}

#if defined(__AVX2__)
// AVX2's lane mask of the first `count` lanes of `lane_bytes` (4 or 8) bytes: all ones in each.
// A stack buffer instead costs a memcpy call and a failed store-to-load forward per tail:
// softmax of 442 rows of 19 f32 (two vectors and a 3-lane tail) then runs far slower than rows
// of 24, 1 thread.
inline __m256i avx2_low_lanes(int count, int lane_bytes) {
  const __m256i lane = lane_bytes == 4 ? _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
                                       : _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), lane);
}
#endif

}  // namespace internal

// Batch of `count` elements from p (any 1-, 2-, 4- or 8-byte lane type xsimd has), rest 0.
template <class Arch, class T>
xsimd::batch<T, Arch> load_partial(const T* p, int count) {
  using batch = xsimd::batch<T, Arch>;
#if defined(__x86_64__)
  if constexpr (internal::is_avx512<Arch>) {
    const uint64_t m = internal::low_lanes_mask(count);
    if constexpr (std::is_same_v<T, float>) {
      return _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), p);
    } else if constexpr (std::is_same_v<T, double>) {
      return _mm512_maskz_loadu_pd(static_cast<__mmask8>(m), p);
    } else if constexpr (sizeof(T) == 4) {
      return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(m), p);
    } else if constexpr (sizeof(T) == 8) {
      return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), p);
    } else if constexpr (sizeof(T) == 2) {
      return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(m), p);
    } else {
      return _mm512_maskz_loadu_epi8(static_cast<__mmask64>(m), p);
    }
  } else
#endif
  {
#if defined(__AVX2__)
    if constexpr (internal::is_avx2<Arch> && (sizeof(T) == 4 || sizeof(T) == 8)) {
      const __m256i m = internal::avx2_low_lanes(count, sizeof(T));
      if constexpr (std::is_same_v<T, float>) {
        return _mm256_maskload_ps(p, m);
      } else if constexpr (std::is_same_v<T, double>) {
        return _mm256_maskload_pd(p, m);
      } else if constexpr (sizeof(T) == 4) {
        return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), m);
      } else {
        return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), m);
      }
    }
#endif
    alignas(64) T buffer[batch::size] = {};
    if (count > 0) std::memcpy(buffer, p, sizeof(T) * static_cast<size_t>(count));
    return batch::load_aligned(buffer);
  }
}

// Stores the first `count` lanes of v to p; memory at p[count..] is not touched.
template <class Arch, class T>
void store_partial(T* p, xsimd::batch<T, Arch> v, int count) {
  using batch = xsimd::batch<T, Arch>;
#if defined(__x86_64__)
  if constexpr (internal::is_avx512<Arch>) {
    const uint64_t m = internal::low_lanes_mask(count);
    if constexpr (std::is_same_v<T, float>) {
      _mm512_mask_storeu_ps(p, static_cast<__mmask16>(m), v);
    } else if constexpr (std::is_same_v<T, double>) {
      _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), v);
    } else if constexpr (sizeof(T) == 4) {
      _mm512_mask_storeu_epi32(p, static_cast<__mmask16>(m), v);
    } else if constexpr (sizeof(T) == 8) {
      _mm512_mask_storeu_epi64(p, static_cast<__mmask8>(m), v);
    } else if constexpr (sizeof(T) == 2) {
      _mm512_mask_storeu_epi16(p, static_cast<__mmask32>(m), v);
    } else {
      _mm512_mask_storeu_epi8(p, static_cast<__mmask64>(m), v);
    }
  } else
#endif
  {
#if defined(__AVX2__)
    if constexpr (internal::is_avx2<Arch> && (sizeof(T) == 4 || sizeof(T) == 8)) {
      const __m256i m = internal::avx2_low_lanes(count, sizeof(T));
      if constexpr (std::is_same_v<T, float>) {
        _mm256_maskstore_ps(p, m, v);
      } else if constexpr (std::is_same_v<T, double>) {
        _mm256_maskstore_pd(p, m, v);
      } else if constexpr (sizeof(T) == 4) {
        _mm256_maskstore_epi32(reinterpret_cast<int*>(p), m, v);
      } else {
        _mm256_maskstore_epi64(reinterpret_cast<long long*>(p), m, v);
      }
      return;
    }
#endif
    alignas(64) T buffer[batch::size];
    v.store_aligned(buffer);
    if (count > 0) std::memcpy(p, buffer, sizeof(T) * static_cast<size_t>(count));
  }
}

// Lanes [0, split) from low[0, split), lanes [split, size) from high[split, size): one batch
// joined from two places, e.g. a strip's last `split` columns and its first size - split. high
// is an address only: its lanes before `split` are never read (avx512bw: two masked loads).
template <class Arch>
xsimd::batch<float, Arch> load_joined(const float* low, const float* high, int split) {
  using batch = xsimd::batch<float, Arch>;
#if defined(__x86_64__)
  if constexpr (internal::is_avx512<Arch>) {
    const auto m = static_cast<__mmask16>(internal::low_lanes_mask(split));
    return _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(static_cast<__mmask16>(~m), high), m, low);
  } else
#endif
  {
    alignas(64) float lanes[batch::size];
    for (int i = 0; i < static_cast<int>(batch::size); ++i) lanes[i] = i < split ? low[i] : high[i];
    return batch::load_aligned(lanes);
  }
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_TAIL_H_
